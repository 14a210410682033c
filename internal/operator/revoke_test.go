package operator

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
)

// TestRevokeAnnotation pins what leash.dev/revoke does in each mode: a
// minted user's keys issued before the time are retired at once after a
// proven successor is published, a role gets the session deny, and what the
// operator cannot retire is refused with what to run instead.
func TestRevokeAnnotation(t *testing.T) {
	tests := []struct {
		name string
		opts envOptions
		run  func(t *testing.T, e *env)
	}{
		{"a time after the published key retires it at once: a new proven key is published, the old one stops working, and a second sync changes nothing", envOptions{}, revokeMintedKey},
		{"a time after a rotation retires the key in its grace period too, leaving one key",
			envOptions{cfg: Config{RotateAfter: 2 * time.Minute, RotationGrace: time.Minute}}, revokeDuringGrace},
		{"a time before the key was created retires nothing and is recorded once", envOptions{}, revokeBeforeKey},
		{"a role-based request gets the session deny: sessions issued before the time are refused, later ones work", envOptions{}, revokeRoleSessions},
		{"a role's deny with a later cutoff is kept", envOptions{}, revokeKeepsLaterDeny},
		{"a decoy the role's own session put under the deny's name is replaced", envOptions{}, revokeReplacesDecoy},
		{"a role lacking a requested permission still gets the deny", envOptions{}, revokeRoleLackingPermission},
		{"root credentials without iam:PutRolePolicy give a condition naming the permission", envOptions{}, revokeRoleWithoutPermission},
		{"Passthrough is refused with leash revoke --user, and the root's key stays published", envOptions{}, revokePassthroughRefused},
		{"Manual is refused: the operator holds no key", envOptions{}, revokeManualRefused},
		{"a time honoured in Mint mode stays honoured after a switch to Manual: the request stays Ready, with no Event and no change", envOptions{}, revokeHonouredThenManual},
		{"Manual with leash's minted key still in the Secret names the minted user, not the administrator, as the key's holder", envOptions{}, revokeManualMintedKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newEnv(t, tt.opts)) })
	}
}

// annotateRevoke sets the request's leash.dev/revoke annotation.
func annotateRevoke(cr *leashv1.CredentialsRequest, v string) {
	if cr.Annotations == nil {
		cr.Annotations = map[string]string{}
	}
	cr.Annotations[AnnotationRevoke] = v
}

// noSecretIn fails when text holds the secret half of any key.
func noSecretIn(t *testing.T, what, text string, keys ...iamclient.AccessKey) {
	t.Helper()
	for _, k := range keys {
		if s := k.Secret.Reveal(); s != "" && strings.Contains(text, s) {
			t.Errorf("%s holds the secret of key %s", what, k.ID)
		}
	}
}

// eventsOf lists the texts of the Events with a reason.
func (r *recorder) eventsOf(reason string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.reason == reason {
			out = append(out, e.text)
		}
	}
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

func revokeMintedKey(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	user := knownUser(cr)
	old := e.publishedKey(t, cr)
	e.clock.advance(time.Minute)
	cutoff := formatTime(e.clock.Now())
	annotateRevoke(cr, cutoff)

	// Between any two IAM calls of the revocation the Secret names a key
	// that works: the successor is published before the old key goes.
	hc := iamclient.NewHTTPClient(1)
	var broken []string
	e.watch.set(func() {
		s := e.secret(t, cr)
		k := iamclient.AccessKey{ID: string(s.Data[SecretKeyID]), Secret: iamclient.NewSecret(string(s.Data[SecretKeySecret]))}
		own := iamclient.New(iamclient.Config{Endpoint: e.local.URL, Credentials: k.Provider(), HTTPClient: hc})
		if _, err := own.CallerIdentity(e.ctx); err != nil {
			broken = append(broken, k.ID)
		}
	})
	out := e.ready(t, cr)
	e.watch.set(nil)
	if len(broken) > 0 {
		t.Errorf("between two calls of the revocation the Secret named a key that did not work: %v", broken)
	}
	key := e.publishedKey(t, cr)
	if key.ID == old.ID {
		t.Fatalf("the Secret still holds key %s, issued before %s", old.ID, cutoff)
	}
	if got := e.keyIDs(t, user); !slices.Equal(got, []string{key.ID}) {
		t.Errorf("keys of %s %v, want only the new %s: the old one deleted with no grace", user, got, key.ID)
	}
	e.actsAs(t, key, e.userARN(user))
	if _, err := e.admin.WithKey(old).CallerIdentity(e.ctx); iamclient.ResultCode(err) != "InvalidClientTokenId" {
		t.Errorf("the revoked key %s: %v, want InvalidClientTokenId", old.ID, err)
	}
	if out.Revocation == nil || cr.Status.RevokedAt == nil || formatTime(cr.Status.RevokedAt.Time) != cutoff {
		t.Fatalf("status.revokedAt %v, want %s", cr.Status.RevokedAt, cutoff)
	}
	msg := cr.Status.Revocation
	for _, want := range []string{old.ID, key.ID, user, cutoff, AnnotationRevoke} {
		if !strings.Contains(msg, want) {
			t.Errorf("status.revocation %q: want it to name %s", msg, want)
		}
	}
	revoked := e.events.eventsOf("CredentialsRevoked")
	if len(revoked) != 1 || !strings.Contains(revoked[0], old.ID) || !strings.Contains(revoked[0], key.ID) {
		t.Errorf("CredentialsRevoked Events %q, want one naming %s and %s", revoked, old.ID, key.ID)
	}
	noSecretIn(t, "status.revocation", msg, old, key)
	noSecretIn(t, "the CredentialsRevoked Event", strings.Join(revoked, "\n"), old, key)

	// A second sync: the new key is after the time, so nothing happens.
	events, status := e.events.count(), *cr.Status.DeepCopy()
	e.ready(t, cr)
	if got := e.keyIDs(t, user); !slices.Equal(got, []string{key.ID}) || e.publishedKey(t, cr).ID != key.ID {
		t.Errorf("after a second sync keys %v, Secret %s; want %s untouched", got, e.publishedKey(t, cr).ID, key.ID)
	}
	if e.events.count() != events || statusChanged(&status, &cr.Status) {
		t.Errorf("a second sync recorded %d Events and changed the status: %+v", e.events.count()-events, cr.Status)
	}
}

func revokeDuringGrace(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	user := knownUser(cr)
	first := e.publishedKey(t, cr)
	e.clock.advance(3 * time.Minute)
	e.ready(t, cr) // rotated: the first key is in its minute of grace
	second := e.publishedKey(t, cr)
	if got := e.keyIDs(t, user); len(got) != 2 {
		t.Fatalf("keys during the grace %v, want the rotated-out one and its successor", got)
	}
	e.clock.advance(10 * time.Second)
	annotateRevoke(cr, formatTime(e.clock.Now()))
	e.ready(t, cr)
	third := e.publishedKey(t, cr)
	if got := e.keyIDs(t, user); !slices.Equal(got, []string{third.ID}) || third.ID == first.ID || third.ID == second.ID {
		t.Errorf("keys %v, Secret %s; want only a third key, both %s (in its grace) and %s retired", got, third.ID, first.ID, second.ID)
	}
	for _, k := range []iamclient.AccessKey{first, second} {
		if _, err := e.admin.WithKey(k).CallerIdentity(e.ctx); !iamclient.IsInvalidKey(err) {
			t.Errorf("revoked key %s: %v, want it refused", k.ID, err)
		}
	}
	if s := e.secret(t, cr); s.Annotations[annotationPreviousKey] != "" {
		t.Errorf("the Secret records previous key %s: a revoked key gets no grace", s.Annotations[annotationPreviousKey])
	}
}

func revokeBeforeKey(t *testing.T, e *env) {
	cutoff := formatTime(e.clock.Now())
	e.clock.advance(time.Minute)
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	key := e.publishedKey(t, cr)
	annotateRevoke(cr, cutoff)
	out := e.ready(t, cr)
	if got := e.keyIDs(t, knownUser(cr)); !slices.Equal(got, []string{key.ID}) || e.publishedKey(t, cr).ID != key.ID {
		t.Errorf("keys %v after a revoke time before the key: want %s kept and published", got, key.ID)
	}
	if out.Revocation == nil || !strings.Contains(cr.Status.Revocation, "left to retire") {
		t.Errorf("status.revocation %q, want it to say nothing was left to retire", cr.Status.Revocation)
	}
	if got := e.events.eventsOf("CredentialsRevoked"); len(got) != 0 {
		t.Errorf("CredentialsRevoked Events %q for a revocation that retired nothing", got)
	}
	if out := e.ready(t, cr); out.Revocation != nil {
		t.Errorf("a second sync reports the revocation again: %+v", out.Revocation)
	}
}

// roleRequest is a Manual request through a role the account's principals
// may assume, with the role allowed what it asks for.
func roleRequest(t *testing.T, e *env, name string) (*leashv1.CredentialsRequest, string) {
	t.Helper()
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + e.account + `:root"},"Action":"sts:AssumeRole"}]}`
	r, err := e.sdk(t).CreateRole(e.ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.admin.PutRolePolicy(e.ctx, name, "use", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	arn := aws.ToString(r.Role.Arn)
	cr := mintRequest(t, name, allow("*", "iam:ListUsers"))
	withMode(cr, leashv1.ModeManual)
	setSpec(t, cr, func(s *leashv1.AWSProviderSpec) { s.STSIAMRoleARN = arn })
	return cr, arn
}

// session assumes the role with the administrator's key.
func (e *env) session(t *testing.T, role string) iamclient.AccessKey {
	t.Helper()
	r, err := FileRoot{Path: e.local.AdminCredentialsPath()}.Root(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.local.URL), Credentials: r.Key.Provider()})
	out, err := c.AssumeRole(e.ctx, &sts.AssumeRoleInput{RoleArn: aws.String(role), RoleSessionName: aws.String("incident")})
	if err != nil {
		t.Fatal(err)
	}
	cr := out.Credentials
	return iamclient.AccessKey{ID: aws.ToString(cr.AccessKeyId), Secret: iamclient.NewSecret(aws.ToString(cr.SecretAccessKey)),
		SessionToken: iamclient.NewSecret(aws.ToString(cr.SessionToken))}
}

// listUsers is whether the credentials may call iam:ListUsers.
func (e *env) listUsers(key iamclient.AccessKey) error {
	_, err := e.admin.WithKey(key).ListUsers(e.ctx, "/")
	return err
}

func revokeRoleSessions(t *testing.T, e *env) {
	cr, role := roleRequest(t, e, "ccm")
	e.ready(t, cr)
	before := e.session(t, role)
	if err := e.listUsers(before); err != nil {
		t.Fatalf("a session before any revocation: %v", err)
	}
	e.clock.advance(time.Minute)
	cutoff := e.clock.Now().Truncate(time.Second)
	annotateRevoke(cr, formatTime(cutoff))
	e.clock.advance(time.Minute)
	e.ready(t, cr)

	doc, err := e.admin.RolePolicy(e.ctx, "ccm", revoke.PolicyName)
	if err != nil {
		t.Fatalf("role ccm has no %s after the revocation: %v", revoke.PolicyName, err)
	}
	if got, err := denyCutoff(doc); err != nil || !got.Equal(cutoff) {
		t.Errorf("the role's deny cuts off at %v (%v), want %v", got, err, cutoff)
	}
	if err := e.listUsers(before); !iamclient.IsAccessDenied(err) {
		t.Errorf("a session issued before the revoke time: %v, want AccessDenied", err)
	}
	if err := e.listUsers(e.session(t, role)); err != nil {
		t.Errorf("a session issued after the revoke time: %v", err)
	}
	msg := cr.Status.Revocation
	if cr.Status.RevokedAt == nil || !cr.Status.RevokedAt.Time.Equal(cutoff) || !strings.Contains(msg, role) || !strings.Contains(msg, "--lift") {
		t.Errorf("status.revokedAt %v, revocation %q; want %v and a message naming the role and how to lift", cr.Status.RevokedAt, msg, cutoff)
	}
	if got := e.events.eventsOf("CredentialsRevoked"); len(got) != 1 {
		t.Errorf("CredentialsRevoked Events %q, want one", got)
	}
	// Again: the deny is there with this cutoff, nothing is written.
	e.ready(t, cr)
	if got := e.events.eventsOf("CredentialsRevoked"); len(got) != 1 {
		t.Errorf("a second sync recorded CredentialsRevoked again: %q", got)
	}
}

func revokeKeepsLaterDeny(t *testing.T, e *env) {
	cr, _ := roleRequest(t, e, "ccm")
	e.ready(t, cr)
	later := e.clock.Now().Truncate(time.Second)
	if err := e.admin.PutRolePolicy(e.ctx, "ccm", revoke.PolicyName, revoke.SessionDeny(revoke.Deny{Cutoff: later})); err != nil {
		t.Fatal(err)
	}
	annotateRevoke(cr, formatTime(later.Add(-time.Hour)))
	e.ready(t, cr)
	doc, err := e.admin.RolePolicy(e.ctx, "ccm", revoke.PolicyName)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := denyCutoff(doc); !got.Equal(later) {
		t.Errorf("the role's deny cuts off at %v, want the later %v kept", got, later)
	}
	if !strings.Contains(cr.Status.Revocation, "kept") {
		t.Errorf("status.revocation %q, want it to say the later deny was kept", cr.Status.Revocation)
	}
}

func revokeRoleWithoutPermission(t *testing.T, e *env) {
	cr, _ := roleRequest(t, e, "ccm")
	// Root credentials that may do everything but put a role's policy.
	if _, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: "ops"}); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.PutUserPolicy(e.ctx, "ops", "all", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},
		{"Effect":"Deny","Action":"iam:PutRolePolicy","Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	key, _, err := e.admin.CreateAccessKey(e.ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProvisioner(Config{Mode: leashv1.ModeManual, ClusterName: "unit"}, StaticRoot{Key: key, Source: "test"}, e.newIAM, e.cluster, e.events)
	if err != nil {
		t.Fatal(err)
	}
	p.now = e.clock.Now
	e.clock.advance(time.Minute)
	annotateRevoke(cr, formatTime(e.clock.Now()))
	out, err := e.sync(t, p, cr)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Failure
	if f == nil || f.Type != leashv1.InsufficientCloudCredentials || f.Reason != "RevokePermissionMissing" ||
		!strings.Contains(f.Message, "iam:PutRolePolicy") || !strings.Contains(f.Message, AnnotationRevoke) || !strings.Contains(f.Message, "leash revoke --role") {
		t.Errorf("failure %+v, want InsufficientCloudCreds naming iam:PutRolePolicy, the annotation and leash revoke --role", f)
	}
	if _, err := e.admin.RolePolicy(e.ctx, "ccm", revoke.PolicyName); !iamclient.IsNotFound(err) {
		t.Errorf("role ccm's %s: %v, want none", revoke.PolicyName, err)
	}
	if !out.Provisioned || cr.Status.RevokedAt != nil {
		t.Errorf("provisioned %v, status.revokedAt %v: want the Secret kept and no revocation recorded", out.Provisioned, cr.Status.RevokedAt)
	}
}

func revokePassthroughRefused(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	withMode(cr, leashv1.ModePassthrough)
	e.ready(t, cr)
	root := e.publishedKey(t, cr)
	annotateRevoke(cr, formatTime(e.clock.Now()))
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	if f := out.Failure; f == nil || f.Reason != "RevokeNotOwned" || !strings.Contains(f.Message, "leash revoke --user") || !strings.Contains(f.Message, "Passthrough") {
		t.Errorf("failure %+v, want RevokeNotOwned pointing at leash revoke --user", f)
	}
	if e.publishedKey(t, cr).ID != root.ID {
		t.Error("the Secret no longer holds the root's key")
	}
}

func revokeManualRefused(t *testing.T, e *env) {
	if _, err := e.admin.CreateUser(e.ctx, iamclient.NewUser{Name: "ops"}); err != nil {
		t.Fatal(err)
	}
	if err := e.admin.PutUserPolicy(e.ctx, "ops", "use", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	key, _, err := e.admin.CreateAccessKey(e.ctx, "ops")
	if err != nil {
		t.Fatal(err)
	}
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	withMode(cr, leashv1.ModeManual)
	if err := e.cluster.WriteSecret(e.ctx, newSecret(cr, staticKeyData(key)), nil); err != nil {
		t.Fatal(err)
	}
	e.ready(t, cr)
	annotateRevoke(cr, formatTime(e.clock.Now()))
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	if f := out.Failure; f == nil || f.Reason != "RevokeNotOwned" || !strings.Contains(f.Message, "no key") || !strings.Contains(f.Message, ":user/ops") {
		t.Errorf("failure %+v, want RevokeNotOwned saying the operator holds no key and naming user ops", f)
	}
	if e.publishedKey(t, cr).ID != key.ID {
		t.Error("the administrator's Secret was changed")
	}
}

func revokeHonouredThenManual(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	e.clock.advance(time.Minute)
	annotateRevoke(cr, formatTime(e.clock.Now()))
	e.ready(t, cr) // retires the key and publishes a new one
	if cr.Status.RevokedAt == nil {
		t.Fatal("status.revokedAt unset after the revocation")
	}
	key := e.publishedKey(t, cr)
	withMode(cr, leashv1.ModeManual)
	events, status := e.events.count(), *cr.Status.DeepCopy()
	out := e.ready(t, cr) // the Secret holds the key made after the time
	if out.Revocation != nil || e.events.count() != events {
		t.Errorf("the switch to Manual honoured the time again: revocation %+v, %d new Events", out.Revocation, e.events.count()-events)
	}
	if cr.Status.Mode != leashv1.ModeManual || !cr.Status.RevokedAt.Equal(status.RevokedAt) || cr.Status.Revocation != status.Revocation {
		t.Errorf("status mode %s revokedAt %v revocation %q, want Manual with the Mint sync's record kept", cr.Status.Mode, cr.Status.RevokedAt, cr.Status.Revocation)
	}
	if e.publishedKey(t, cr).ID != key.ID {
		t.Error("the switch to Manual changed the Secret")
	}
}

func revokeManualMintedKey(t *testing.T, e *env) {
	cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
	e.ready(t, cr)
	user := knownUser(cr)
	key := e.publishedKey(t, cr)
	withMode(cr, leashv1.ModeManual)
	e.ready(t, cr)
	annotateRevoke(cr, formatTime(e.clock.Now()))
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Failure
	if f == nil || f.Reason != "RevokeNotOwned" {
		t.Fatalf("failure %+v, want RevokeNotOwned", f)
	}
	for _, want := range []string{"leash minted", user, "leash revoke --user " + e.userARN(user)} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q: want it to name %q", f.Message, want)
		}
	}
	if strings.Contains(f.Message, "administrator's:") || strings.Contains(f.Message, "holds no key") {
		t.Errorf("message %q calls leash's minted key the administrator's", f.Message)
	}
	noSecretIn(t, "the failure message", f.Message, key)
	if e.publishedKey(t, cr).ID != key.ID {
		t.Error("a Manual sync changed the Secret")
	}
}

// TestRevokeAnnotationRefusesBadTimes pins that a leash.dev/revoke value
// that is not a past RFC 3339 time is a failing condition and a Warning
// naming the annotation and the fix, and that the request's key stays
// published and working meanwhile.
func TestRevokeAnnotationRefusesBadTimes(t *testing.T) {
	tests := []struct {
		name  string
		value func(now time.Time) string
		want  string
	}{
		{"a word is not an RFC 3339 time", func(time.Time) string { return "yesterday" }, "not an RFC 3339 time"},
		{"a date without a time is not an RFC 3339 time", func(now time.Time) string { return now.Format("2006-01-02") }, "not an RFC 3339 time"},
		{"a time without a zone is not an RFC 3339 time", func(now time.Time) string { return now.Format("2006-01-02T15:04:05") }, "not an RFC 3339 time"},
		{"an empty value is not an RFC 3339 time", func(time.Time) string { return "" }, "not an RFC 3339 time"},
		{"a time in the future is refused", func(now time.Time) string { return formatTime(now.Add(time.Hour)) }, "in the future"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			cr := mintRequest(t, "reader", allow("*", "iam:ListUsers"))
			e.ready(t, cr)
			key := e.publishedKey(t, cr)
			e.clock.advance(time.Minute)
			annotateRevoke(cr, tt.value(e.clock.Now()))
			before := cr.Status.DeepCopy()
			out, err := e.sync(t, e.p, cr)
			if err != nil {
				t.Fatal(err)
			}
			e.p.warnIfTurnedFailing(cr, before)
			f := out.Failure
			if f == nil || f.Reason != "InvalidRevokeTime" || !strings.Contains(f.Message, revokeField) || !strings.Contains(f.Message, tt.want) ||
				!strings.Contains(f.Message, "such as") {
				t.Errorf("failure %+v, want InvalidRevokeTime naming %s, saying %q and giving an example", f, revokeField, tt.want)
			}
			if w := e.events.reasons(corev1.EventTypeWarning); !slices.Contains(w, "InvalidRevokeTime") {
				t.Errorf("Warning Events %v, want InvalidRevokeTime", w)
			}
			if got := e.keyIDs(t, knownUser(cr)); !slices.Equal(got, []string{key.ID}) || e.publishedKey(t, cr).ID != key.ID {
				t.Errorf("keys %v after a bad annotation, want %s kept and published", got, key.ID)
			}
			e.actsAs(t, key, cr.Status.Principal)
			if cr.Status.RevokedAt != nil {
				t.Errorf("status.revokedAt %v for a refused annotation", cr.Status.RevokedAt)
			}
		})
	}
}

func revokeRoleLackingPermission(t *testing.T, e *env) {
	cr, _ := roleRequest(t, e, "ccm")
	if err := e.admin.DeleteRolePolicy(e.ctx, "ccm", "use"); err != nil {
		t.Fatal(err)
	}
	cutoff := e.clock.Now().Truncate(time.Second)
	annotateRevoke(cr, formatTime(cutoff))
	e.clock.advance(time.Minute)
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	if f := out.Failure; f == nil || f.Reason != "RoleLacksPermissions" {
		t.Errorf("failure %+v, want the role's lack reported", f)
	}
	doc, err := e.admin.RolePolicy(e.ctx, "ccm", revoke.PolicyName)
	if err != nil {
		t.Fatalf("role ccm has no %s: %v", revoke.PolicyName, err)
	}
	if got, _ := denyCutoff(doc); !got.Equal(cutoff) || cr.Status.RevokedAt == nil {
		t.Errorf("the deny cuts off at %v, status.revokedAt %v; want %v in both", got, cr.Status.RevokedAt, cutoff)
	}
}

// denyCutoff is the cutoff of a session deny document.
func denyCutoff(doc string) (time.Time, error) {
	d, err := revoke.ReadDeny(doc)
	return d.Cutoff, err
}

// The role's own session, allowed to write the role's policies, plants a
// policy under the deny's name that refuses nothing (an Allow with the
// deny's condition) before the revocation: the operator replaces it,
// proves the deny it wrote, and the session is refused.
func revokeReplacesDecoy(t *testing.T, e *env) {
	cr, role := roleRequest(t, e, "ccm")
	e.ready(t, cr)
	if err := e.admin.PutRolePolicy(e.ctx, "ccm", "self", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:PutRolePolicy","iam:ListUsers"],"Resource":"*"}]}`); err != nil {
		t.Fatal(err)
	}
	session := e.session(t, role)
	decoy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"DateLessThan":{"aws:TokenIssueTime":"2099-01-01T00:00:00Z"}}}]}`
	if err := e.admin.WithKey(session).PutRolePolicy(e.ctx, "ccm", revoke.PolicyName, decoy); err != nil {
		t.Fatalf("the session's own decoy: %v", err)
	}
	e.clock.advance(time.Minute)
	cutoff := e.clock.Now().Truncate(time.Second)
	annotateRevoke(cr, formatTime(cutoff))
	e.ready(t, cr)
	doc, err := e.admin.RolePolicy(e.ctx, "ccm", revoke.PolicyName)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := denyCutoff(doc); err != nil || !got.Equal(cutoff) {
		t.Errorf("the role's deny: %v (%v), want the decoy replaced by a deny cutting off at %v", got, err, cutoff)
	}
	if !strings.Contains(cr.Status.Revocation, "replaced an inline policy of that name that was not a session deny") {
		t.Errorf("status.revocation %q, want it to say the decoy was replaced", cr.Status.Revocation)
	}
	if err := e.listUsers(session); !iamclient.IsAccessDenied(err) {
		t.Errorf("the session that planted the decoy: %v, want AccessDenied", err)
	}
}
