package operator

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/iamclient"
)

// TestStatusShows pins what a person reads in the status: the documented
// mode, a message on every condition, and a request for another cloud
// shown as Ignored rather than as a failure.
func TestStatusShows(t *testing.T) {
	noNS := Outcome{Mode: leashv1.ModeMint, Failure: &Failure{Type: leashv1.MissingTargetNamespace, Reason: "NamespaceNotFound", Message: "namespace apps does not exist"}}
	ready := Outcome{Mode: leashv1.ModeMint, Provisioned: true, Principal: "arn:aws:iam::123456789012:user/x"}
	tests := []struct {
		name  string
		steps []Outcome
		check func(t *testing.T, st *leashv1.CredentialsRequestStatus)
	}{
		{"a request with stsIAMRoleARN shows mode Manual", []Outcome{{Mode: leashv1.ModeSTS, Provisioned: true, Principal: "arn:aws:iam::123456789012:role/r"}},
			func(t *testing.T, st *leashv1.CredentialsRequestStatus) {
				if st.Mode != leashv1.ModeManual {
					t.Errorf("mode %q, want Manual", st.Mode)
				}
			}},
		{"a request for another cloud shows mode Ignored and Ready False with reason Ignored and a message",
			[]Outcome{{Mode: leashv1.ModeIgnored, Failure: &Failure{Type: leashv1.Ignored, Reason: "NotAWS", Message: "spec.providerSpec is a GCPProviderSpec"}}},
			func(t *testing.T, st *leashv1.CredentialsRequestStatus) {
				c := findCondition(st, leashv1.Ready)
				if st.Mode != leashv1.ModeIgnored || c == nil || c.Status != corev1.ConditionFalse || c.Reason != "Ignored" || !strings.Contains(c.Message, "GCPProviderSpec") {
					t.Errorf("mode %q, Ready %+v; want Ignored, and Ready False with reason Ignored and the message", st.Mode, c)
				}
			}},
		{"a resolved condition says what was fixed", []Outcome{noNS, ready},
			func(t *testing.T, st *leashv1.CredentialsRequestStatus) {
				c := findCondition(st, leashv1.MissingTargetNamespace)
				if c == nil || c.Status != corev1.ConditionFalse || c.Reason != "Resolved" || !strings.Contains(c.Message, "NamespaceNotFound") || !strings.Contains(c.Message, "namespace apps does not exist") {
					t.Errorf("MissingTargetNamespace %+v, want False, Resolved, naming what was fixed", c)
				}
			}},
		{"a resolved condition keeps its message across resyncs", []Outcome{noNS, ready, ready, ready},
			func(t *testing.T, st *leashv1.CredentialsRequestStatus) {
				if c := findCondition(st, leashv1.MissingTargetNamespace); c == nil || !strings.Contains(c.Message, "NamespaceNotFound") {
					t.Errorf("MissingTargetNamespace %+v after resyncs, want the message of what was fixed", c)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
			now := time.Now()
			for i, out := range tt.steps {
				applyOutcome(cr, out, true, metav1.NewTime(now.Add(time.Duration(i)*time.Second)))
			}
			for _, c := range cr.Status.Conditions {
				if c.Message == "" {
					t.Errorf("condition %s (%s) has no message", c.Type, c.Reason)
				}
			}
			tt.check(t, &cr.Status)
		})
	}
}

// TestApplyTableShows pins leash apply's table for a request with a role
// (STS, the mode leash used, though status.mode says Manual) and one for
// another cloud.
func TestApplyTableShows(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, []Applied{
		{Request: "apps/ccm", Outcome: Outcome{Mode: leashv1.ModeSTS, Provisioned: true, Principal: "arn:aws:iam::123456789012:role/ccm"}},
		{Request: "apps/gcp", Outcome: Outcome{Mode: leashv1.ModeIgnored, Failure: &Failure{Type: leashv1.Ignored, Reason: "NotAWS", Message: "another cloud"}}},
	}); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) == 5 {
			rows[f[0]] = f
		}
	}
	if r := rows["apps/ccm"]; r == nil || r[1] != "STS" || r[4] != "Ready" {
		t.Errorf("row of apps/ccm %q, want mode STS and Ready\n%s", r, b.String())
	}
	if r := rows["apps/gcp"]; r == nil || r[1] != "Ignored" || r[4] != "Ignored" {
		t.Errorf("row of apps/gcp %q, want mode and state Ignored\n%s", r, b.String())
	}
	if a := (Applied{Outcome: Outcome{Failure: &Failure{Type: leashv1.Ignored}}}); !a.Ignored() || a.Ready() {
		t.Error("a request for another cloud: want Ignored, not Ready")
	}
}

// TestSettingsLog pins the operator's one line of settings at start: the
// effective values, and nothing secret.
func TestSettingsLog(t *testing.T) {
	key := iamclient.AccessKey{ID: "AKIAIOSFODNN7EXAMPLE", Secret: iamclient.NewSecret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")}
	o := Options{Config: Config{Mode: leashv1.ModeManual, ClusterName: "prod-eu1", RotateAfter: 720 * time.Hour, Boundary: "arn:aws:iam::123456789012:policy/ceiling"},
		IAM: iamclient.Config{Credentials: key.Provider(), Region: "eu-north-1"}, RootSecret: types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}, RecheckFailed: 30 * time.Second}
	kv := o.settings()
	got := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		got[fmt.Sprint(kv[i])] = fmt.Sprint(kv[i+1])
	}
	want := map[string]string{"mode": "Manual", "clusterName": "prod-eu1", "iamEndpoint": "AWS", "region": "eu-north-1",
		"rootCredentials": "Secret kube-system/aws-creds", "namespace": "all", "permissionsBoundary": "arn:aws:iam::123456789012:policy/ceiling",
		"rotateAfter": "720h0m0s", "recheck": "10m0s", "recheckInterval": "30s",
		"ceiling": "none", "namespaceActions": "none", "refuseEscalation": "critical", "escalationNamespaces": "none",
		"oidcIssuer": "none", "oidcAudience": "sts.amazonaws.com", "webhook": "off"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if s := fmt.Sprint(kv...); strings.Contains(s, key.Secret.Reveal()) || strings.Contains(s, key.ID) {
		t.Error("the settings carry the root key")
	}

	o.Webhook = &admission.Options{Port: 9443, RefuseAt: analyze.High}
	kv = o.settings()
	for i := 0; i+1 < len(kv); i += 2 {
		got[fmt.Sprint(kv[i])] = fmt.Sprint(kv[i+1])
	}
	if want := "port 9443, refuse at high, 0 node role policies"; got["webhook"] != want {
		t.Errorf("with the webhook, webhook = %q, want %q", got["webhook"], want)
	}
	o.Webhook = nil

	// With guardrails, the line names the ceiling policy as the boundary
	// and each guardrail's setting.
	o.Config.Boundary = ""
	o.Config.Guardrails = Guardrails{Ceiling: testCeiling, NamespaceActions: map[string][]string{"team-b": {"s3:*"}, "team-a": {"ec2:*"}},
		RefuseEscalation: "high", EscalationNamespaces: []string{"platform", "ops"}}
	kv = o.settings()
	for i := 0; i+1 < len(kv); i += 2 {
		got[fmt.Sprint(kv[i])] = fmt.Sprint(kv[i+1])
	}
	for k, v := range map[string]string{"permissionsBoundary": "ceiling policy /leash/prod-eu1/ceiling/prod-eu1-leash-ceiling", "ceiling": "set",
		"namespaceActions": "team-a,team-b", "refuseEscalation": "high", "escalationNamespaces": "platform,ops"} {
		if got[k] != v {
			t.Errorf("with guardrails, %s = %q, want %q", k, got[k], v)
		}
	}
}
