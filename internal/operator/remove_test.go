package operator

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// TestRemove pins what Remove takes back: everything IAM holds for the
// request's user, in the order IAM requires, and the Secret; and nothing
// that belongs to another request.
func TestRemove(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"keys, inline policy, login profile, user and Secret are deleted", removeEverything},
		{"a managed policy is detached and deleted with its user", removeManaged},
		{"every part of a split policy is deleted with its user, an unattached one a crash left too", removeSplit},
		{"a user with the request's name owned by another request is left alone", removeLeavesOthers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newEnv(t, envOptions{})) })
	}
}

func removeEverything(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	name := userName("unit", "apps", "reader", string(cr.UID))
	key := e.publishedKey(t, cr)
	// A login profile blocks DeleteUser until it is deleted.
	if _, err := e.sdk(t).CreateLoginProfile(e.ctx, &iam.CreateLoginProfileInput{UserName: aws.String(name), Password: aws.String("Correct-Horse-" + key.ID[len(key.ID)-4:])}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.admin.CreateAccessKey(e.ctx, name); err != nil { // one no Secret holds
		t.Fatal(err)
	}

	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.GetUser(e.ctx, name); !iamclient.IsNotFound(err) {
		t.Errorf("user after removal: %v, want NoSuchEntity", err)
	}
	if _, err := e.admin.WithKey(key).CallerIdentity(e.ctx); !iamclient.IsInvalidKey(err) {
		t.Errorf("the published key after removal: %v, want it refused", err)
	}
	if s := e.secret(t, cr); s != nil {
		t.Error("the Secret survived the removal")
	}
	if got := e.events.reasons(corev1.EventTypeNormal); got[len(got)-1] != "UserDeleted" {
		t.Errorf("Events %v, want UserDeleted last", got)
	}
	// Again, as after a crash: nothing left to do, and no error.
	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Errorf("a repeated removal: %v", err)
	}
}

func removeManaged(t *testing.T, e *env) {
	cr := mintRequest(t, "big", largeEntries()...)
	out := e.ready(t, cr)
	name := userName("unit", "apps", "big", string(cr.UID))
	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.ManagedPolicyDocument(e.ctx, out.Policy); !iamclient.IsNotFound(err) {
		t.Errorf("managed policy %s after removal: %v, want NoSuchEntity", out.Policy, err)
	}
	if _, err := e.admin.GetUser(e.ctx, name); !iamclient.IsNotFound(err) {
		t.Errorf("user after removal: %v, want NoSuchEntity", err)
	}
}

func removeLeavesOthers(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	name := userName("unit", "apps", "reader", string(cr.UID))
	if _, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: name, Path: userPath("unit"),
		Tags: map[string]string{TagCluster: "unit", TagRequestUID: "uid-of-another-request"}}); err != nil {
		t.Fatal(err)
	}
	theirKey, _, err := e.admin.CreateAccessKey(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	// The other request's Secret sits where this one's would.
	theirs := newSecret(&leashv1.CredentialsRequest{Spec: cr.Spec}, staticKeyData(theirKey))
	theirs.Annotations[leashv1.AnnotationCredentialsRequest] = "apps/other"
	if err := e.cluster.WriteSecret(e.ctx, theirs, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if ids := e.keyIDs(t, name); !slices.Equal(ids, []string{theirKey.ID}) {
		t.Errorf("the other request's user has keys %v, want its own %s", ids, theirKey.ID)
	}
	if s := e.secret(t, cr); s == nil {
		t.Error("the other request's Secret was deleted")
	}
}

func removeSplit(t *testing.T, e *env) {
	cr := mintRequest(t, "big", splitEntries()...)
	e.ready(t, cr)
	name := userName("unit", "apps", "big", string(cr.UID))
	u := mintedUser{name: name, policyARNs: "arn:aws:iam::" + e.account + ":policy/leash/unit/"}
	// A crash between CreatePolicy and AttachUserPolicy of a third part,
	// then the request shrank back: the part is the user's but unattached.
	if _, err := e.admin.CreatePolicy(e.ctx, userPath("unit"), partName(name, 2),
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := e.admin.ManagedPolicyDocument(e.ctx, u.partARN(i)); !iamclient.IsNotFound(err) {
			t.Errorf("managed policy %s after removal: %v, want NoSuchEntity", u.partARN(i), err)
		}
	}
	if policies, err := e.admin.ListPolicies(e.ctx, "/leash/"); err != nil || len(policies) != 0 {
		t.Errorf("managed policies %+v (%v) after removal, want none", policies, err)
	}
	if _, err := e.admin.GetUser(e.ctx, name); !iamclient.IsNotFound(err) {
		t.Errorf("user after removal: %v, want NoSuchEntity", err)
	}
}
