package operator

import (
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

// TestWarningWhenARequestTurnsToFailing pins that a Warning Event marks
// each turn of a failure condition to True, and only the turn: a request
// that stays failed across resyncs is one Warning.
func TestWarningWhenARequestTurnsToFailing(t *testing.T) {
	// A step is what the reconciler writes into the status: a sync's
	// outcome, or a failed removal.
	type step func(cr *leashv1.CredentialsRequest, now metav1.Time)
	synced := func(out Outcome) step {
		return func(cr *leashv1.CredentialsRequest, now metav1.Time) { applyOutcome(cr, out, true, now) }
	}
	var (
		ready         = synced(Outcome{Mode: leashv1.ModeMint, Provisioned: true})
		invalid       = synced(Outcome{Failure: &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: "InvalidRequest", Message: "statementEntries[0].effect: must be Allow or Deny"}})
		cloud         = synced(Outcome{Failure: &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: "CloudError", Message: "throttled; retrying with backoff"}})
		noNS          = synced(Outcome{Failure: &Failure{Type: leashv1.MissingTargetNamespace, Reason: "NamespaceNotFound", Message: "create it"}})
		ignored       = synced(Outcome{Failure: &Failure{Type: leashv1.Ignored, Reason: "NotAWS", Message: "another cloud"}})
		noRemove step = func(cr *leashv1.CredentialsRequest, now metav1.Time) {
			setDeprovisionFailure(cr, errors.New("iam:DeleteUser: throttled"), now)
		}
	)
	tests := []struct {
		name  string
		steps []step
		want  []string // the Warnings' reasons, in order
	}{
		{"a failure warns once however many resyncs find it", []step{invalid, invalid, invalid}, []string{"InvalidRequest"}},
		{"a failure after a recovery warns again", []step{invalid, ready, ready, invalid}, []string{"InvalidRequest", "InvalidRequest"}},
		{"a ready request never warns", []step{ready, ready}, nil},
		{"a new reason on a condition already True does not warn", []step{invalid, cloud, invalid}, []string{"InvalidRequest"}},
		{"another failure condition turning True warns", []step{noNS, invalid}, []string{"NamespaceNotFound", "InvalidRequest"}},
		{"a request for another cloud is not a failure", []step{ignored, ignored}, nil},
		{"a failed removal warns once", []step{ready, noRemove, noRemove}, []string{"CloudError"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := &recorder{}
			p := &Provisioner{events: events}
			cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
			now := time.Now()
			for i, apply := range tt.steps {
				before := cr.Status.DeepCopy()
				apply(cr, metav1.NewTime(now.Add(time.Duration(i)*time.Second)))
				p.warnIfTurnedFailing(cr, before)
			}
			if got := events.reasons(corev1.EventTypeWarning); !slices.Equal(got, tt.want) {
				t.Errorf("Warnings %v, want %v", got, tt.want)
			}
			if got := events.reasons(corev1.EventTypeNormal); len(got) != 0 {
				t.Errorf("Normal Events %v from status changes, want none", got)
			}
			for _, e := range events.events {
				if e.object != "apps/reader" || e.text == "" {
					t.Errorf("Warning %+v, want it on apps/reader with the condition's message", e)
				}
			}
		})
	}
}
