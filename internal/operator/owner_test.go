package operator

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
)

// TestOneOwnerPerSecret pins that of the requests naming one Secret only
// the oldest writes it: the others are refused with SecretConflict naming
// the owner, and nothing of theirs is made in IAM or the Secret.
func TestOneOwnerPerSecret(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"the older request owns the Secret and the newer is refused, naming the owner, with no user and no write", ownerOlderWins},
		{"with equal creation times the first by namespace/name owns the Secret", ownerTieByName},
		{"when the owner goes the next oldest takes the Secret over at its next sync", ownerHandsOver},
		{"a request for another cloud naming the Secret owns nothing", ownerIgnoresOtherClouds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newEnv(t, envOptions{})) })
	}
}

// sharing is a request for the Secret apps/shared-creds, created at t.
func sharing(t *testing.T, name string, created time.Time) *leashv1.CredentialsRequest {
	t.Helper()
	cr := mintRequest(t, name, allow("*", "ec2:DescribeInstances"))
	cr.Spec.SecretRef.Name = "shared-creds"
	cr.CreationTimestamp = metav1.NewTime(created)
	return cr
}

// withRequests makes the folder hold crs, as leash apply's does.
func (e *env) withRequests(t *testing.T, crs ...*leashv1.CredentialsRequest) {
	t.Helper()
	e.cluster.Requests = crs
	e.p = e.provisioner(t, e.p.cfg)
}

// wantConflict syncs cr and fails unless it is refused in favour of owner,
// with no IAM user made for it.
func wantConflict(t *testing.T, e *env, cr *leashv1.CredentialsRequest, owner string) {
	t.Helper()
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Failure
	if f == nil || f.Reason != ReasonSecretConflict || f.Type != leashv1.CredentialsProvisionFailure ||
		!strings.Contains(f.Message, "belongs to CredentialsRequest "+owner) || !strings.Contains(f.Message, "spec.secretRef") {
		t.Fatalf("%s: failure %+v, want %s naming the owner %s and spec.secretRef", cr.Name, f, ReasonSecretConflict, owner)
	}
	if out.Provisioned || out.User != "" || out.Principal != "" {
		t.Errorf("%s: outcome provisioned %v user %q principal %q, want nothing", cr.Name, out.Provisioned, out.User, out.Principal)
	}
	if _, err := e.admin.GetUser(e.ctx, userName("unit", cr.Namespace, cr.Name, string(cr.UID))); err == nil {
		t.Errorf("%s: an IAM user was minted for a request that does not own its Secret", cr.Name)
	}
	if c := findCondition(&cr.Status, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse || c.Reason != ReasonSecretConflict {
		t.Errorf("%s: Ready %+v, want False with reason %s", cr.Name, c, ReasonSecretConflict)
	}
}

func ownerOlderWins(t *testing.T, e *env) {
	now := time.Now()
	// The newer one sorts first by name: age, not name, decides.
	older, newer := sharing(t, "zeta", now.Add(-time.Hour)), sharing(t, "alpha", now)
	e.withRequests(t, newer, older)
	e.ready(t, older)
	owned := e.publishedKey(t, older)
	wantConflict(t, e, newer, "apps/zeta")
	wantConflict(t, e, newer, "apps/zeta") // and again at a resync
	if key := e.publishedKey(t, older); key.ID != owned.ID {
		t.Errorf("the Secret's key changed from %s to %s after the newer request's syncs", owned.ID, key.ID)
	}
	if s := e.secret(t, older); s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/zeta" {
		t.Errorf("the Secret is annotated for %q, want apps/zeta", s.Annotations[leashv1.AnnotationCredentialsRequest])
	}
	// Removing the refused request deletes nothing of the owner's.
	if err := e.p.Remove(e.ctx, newer); err != nil {
		t.Fatal(err)
	}
	if key := e.publishedKey(t, older); key.ID != owned.ID {
		t.Errorf("removing the refused request changed the Secret's key to %s", key.ID)
	}
	e.actsAs(t, owned, e.userARN(userName("unit", "apps", "zeta", string(older.UID))))
}

func ownerTieByName(t *testing.T, e *env) {
	at := time.Now().Truncate(time.Second)
	a, b := sharing(t, "a", at), sharing(t, "b", at)
	e.withRequests(t, b, a)
	wantConflict(t, e, b, "apps/a")
	e.ready(t, a)
}

func ownerHandsOver(t *testing.T, e *env) {
	now := time.Now()
	first, second := sharing(t, "first", now.Add(-time.Minute)), sharing(t, "second", now)
	e.withRequests(t, first, second)
	e.ready(t, first)
	wantConflict(t, e, second, "apps/first")
	if err := e.p.Remove(e.ctx, first); err != nil {
		t.Fatal(err)
	}
	e.withRequests(t, second)
	out := e.ready(t, second)
	key := e.publishedKey(t, second)
	e.actsAs(t, key, out.Principal)
	if s := e.secret(t, second); s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/second" {
		t.Errorf("the Secret is annotated for %q after the hand-over, want apps/second", s.Annotations[leashv1.AnnotationCredentialsRequest])
	}
}

func ownerIgnoresOtherClouds(t *testing.T, e *env) {
	now := time.Now()
	gcp := sharing(t, "gcp", now.Add(-time.Hour))
	raw, _ := json.Marshal(map[string]any{"apiVersion": "cloudcredential.openshift.io/v1", "kind": "GCPProviderSpec"})
	gcp.Spec.ProviderSpec = &runtime.RawExtension{Raw: raw}
	aws := sharing(t, "aws", now)
	e.withRequests(t, gcp, aws)
	e.ready(t, aws)
}
