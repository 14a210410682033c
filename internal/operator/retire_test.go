package operator

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// TestModeChangeRetiresMintedUser pins that a request leaving Mint mode
// takes back the user it minted, with its keys and policies, once no Secret
// names them, and that the status stops naming principals that do not
// exist.
func TestModeChangeRetiresMintedUser(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, e *env)
	}{
		{"Mint to Passthrough deletes the minted user once the Secret holds the root key, and the status names none", retireOnPassthrough},
		{"Mint to Manual keeps the minted user while the Secret holds its key, and deletes it once the administrator's key replaces it", retireOnManual},
		{"Mint to Manual with the Secret gone deletes the user and leaves no principal in the status", retireWhenSecretGone},
		{"a request refused before any IAM call names no user and no principal", refusedNamesNoUser},
		{"a minted request later refused by validation keeps naming its user, which still exists", refusedKeepsExistingUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newEnv(t, envOptions{})) })
	}
}

// withMode sets the request's leash.dev/mode annotation.
func withMode(cr *leashv1.CredentialsRequest, mode leashv1.CredentialsMode) {
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	cr.Annotations[AnnotationMode] = string(mode)
}

// mintedUsers lists the users under leash's path in the account.
func (e *env) mintedUsers(t *testing.T) []string {
	t.Helper()
	users, err := e.admin.ListUsers(e.ctx, "/leash/")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range users {
		names = append(names, u.Name)
	}
	return names
}

// wantRetired fails unless the user is gone and the status names neither
// it nor its ARN.
func wantRetired(t *testing.T, e *env, cr *leashv1.CredentialsRequest, user string) {
	t.Helper()
	if _, err := e.admin.GetUser(e.ctx, user); !iamclient.IsNotFound(err) {
		t.Errorf("minted user %s after the mode change: %v, want NoSuchEntity", user, err)
	}
	if users := e.mintedUsers(t); len(users) != 0 {
		t.Errorf("users under /leash/ %v, want none", users)
	}
	if knownUser(cr) != "" || cr.Status.ProviderStatus != nil {
		t.Errorf("status.providerStatus %s still names a user", cr.Status.ProviderStatus.Raw)
	}
	if cr.Status.Principal == e.userARN(user) {
		t.Errorf("status.principal still names the retired user %s", cr.Status.Principal)
	}
}

func retireOnPassthrough(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	user := knownUser(cr)
	minted := e.publishedKey(t, cr)
	withMode(cr, leashv1.ModePassthrough)
	out := e.ready(t, cr)
	wantRetired(t, e, cr, user)
	if out.Principal == "" || cr.Status.Principal != out.Principal || cr.Status.Mode != leashv1.ModePassthrough {
		t.Errorf("status mode %s principal %q, want Passthrough and the root's %q", cr.Status.Mode, cr.Status.Principal, out.Principal)
	}
	if _, err := e.admin.WithKey(minted).CallerIdentity(e.ctx); !iamclient.IsInvalidKey(err) {
		t.Errorf("the minted key after the switch: %v, want it refused", err)
	}
	if got := e.events.reasons(corev1.EventTypeNormal); got[len(got)-1] != "UserRetired" {
		t.Errorf("Events %v, want UserRetired last", got)
	}
	// Again: nothing left to do.
	e.ready(t, cr)
}

func retireOnManual(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	user := knownUser(cr)
	withMode(cr, leashv1.ModeManual)
	e.ready(t, cr) // the Secret still holds the minted key, which has the permissions
	if _, err := e.admin.GetUser(e.ctx, user); err != nil {
		t.Fatalf("the minted user while the Secret still names its key: %v, want it kept", err)
	}
	if knownUser(cr) != user || cr.Status.Principal != e.userARN(user) {
		t.Errorf("status user %q principal %q, want the minted user, which the Secret still holds", knownUser(cr), cr.Status.Principal)
	}
	// The administrator writes a key of a user of their own.
	if _, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: "ops"}); err != nil {
		t.Fatal(err)
	}
	key, _, err := e.admin.CreateAccessKey(e.ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.cluster.WriteSecret(e.ctx, newSecret(cr, staticKeyData(key)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sync(t, e.p, cr); err != nil {
		t.Fatal(err)
	}
	wantRetired(t, e, cr, user)
}

func retireWhenSecretGone(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	user := knownUser(cr)
	withMode(cr, leashv1.ModeManual)
	if err := e.cluster.DeleteSecret(e.ctx, cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name, ""); err != nil {
		t.Fatal(err)
	}
	out, err := e.sync(t, e.p, cr)
	if err != nil || out.Failure == nil || out.Failure.Reason != "SecretMissing" {
		t.Fatalf("sync: %v, failure %+v; want SecretMissing", err, out.Failure)
	}
	wantRetired(t, e, cr, user)
	if cr.Status.Principal != "" {
		t.Errorf("status.principal %q with no Secret, want none", cr.Status.Principal)
	}
}

func refusedNamesNoUser(t *testing.T, e *env) {
	cr := mintRequest(t, "bad", leashv1.StatementEntry{Effect: "allow", Action: []string{"s3:GetObject"}, Resource: "*"})
	out, err := e.sync(t, e.p, cr)
	if err != nil || out.Failure == nil || out.Failure.Reason != "InvalidRequest" {
		t.Fatalf("sync: %v, failure %+v; want InvalidRequest", err, out.Failure)
	}
	if cr.Status.ProviderStatus != nil || cr.Status.Principal != "" {
		t.Errorf("status of a refused request: providerStatus %s principal %q, want neither", cr.Status.ProviderStatus.Raw, cr.Status.Principal)
	}
	if users := e.mintedUsers(t); len(users) != 0 {
		t.Errorf("users %v, want none", users)
	}
}

func refusedKeepsExistingUser(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	user, arn := knownUser(cr), cr.Status.Principal
	setEntries(t, cr, leashv1.StatementEntry{Effect: "allow", Action: []string{"s3:GetObject"}, Resource: "*"})
	out, err := e.sync(t, e.p, cr)
	if err != nil || out.Failure == nil || out.Failure.Reason != "InvalidRequest" {
		t.Fatalf("sync: %v, failure %+v; want InvalidRequest", err, out.Failure)
	}
	if knownUser(cr) != user || cr.Status.Principal != arn {
		t.Errorf("status user %q principal %q, want the existing %s and %s", knownUser(cr), cr.Status.Principal, user, arn)
	}
}
