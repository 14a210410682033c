package localaws_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"leash.dev/leash/localaws"
)

const stsAccount = "111122223333"

// clock is a server clock that tests move forward. It stays within minutes
// of the real time, so that the SDK's signatures stay inside SigV4's
// fifteen-minute window.
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// stsEnv is a running server, its clock and its administrator's IAM client.
type stsEnv struct {
	*endpoint
	clock *clock
	admin *iam.Client
}

func startSTS(t *testing.T, cfg localaws.Config) *stsEnv {
	t.Helper()
	clk := &clock{}
	cfg.AccountID, cfg.Now = stsAccount, clk.now
	e := startWith(t, cfg)
	return &stsEnv{endpoint: e, clock: clk, admin: e.iam(e.adminKeys(t))}
}

// user creates a user with an inline policy (none when "") and a key.
func (e *stsEnv) user(t *testing.T, name, doc string) aws.CredentialsProvider {
	t.Helper()
	ctx := context.Background()
	if _, err := e.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatalf("CreateUser %s: %v", name, err)
	}
	if doc != "" {
		if _, err := e.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatalf("PutUserPolicy %s: %v", name, err)
		}
	}
	key, err := e.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateAccessKey %s: %v", name, err)
	}
	return credentials.NewStaticCredentialsProvider(*key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey, "")
}

// role creates a role with a trust policy and an inline policy (none when
// ""); maxSession 0 leaves IAM's default of an hour.
func (e *stsEnv) role(t *testing.T, name, trust, doc string, maxSession int32) string {
	t.Helper()
	ctx := context.Background()
	in := &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}
	if maxSession != 0 {
		in.MaxSessionDuration = aws.Int32(maxSession)
	}
	out, err := e.admin.CreateRole(ctx, in)
	if err != nil {
		t.Fatalf("CreateRole %s: %v", name, err)
	}
	if doc != "" {
		e.putRolePolicy(t, name, "p", doc)
	}
	return *out.Role.Arn
}

func (e *stsEnv) putRolePolicy(t *testing.T, role, name, doc string) {
	t.Helper()
	_, err := e.admin.PutRolePolicy(context.Background(), &iam.PutRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name), PolicyDocument: aws.String(doc)})
	if err != nil {
		t.Fatalf("PutRolePolicy %s: %v", role, err)
	}
}

func (e *stsEnv) stsAs(p aws.CredentialsProvider) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), Credentials: p})
}

func (e *stsEnv) iamAs(p aws.CredentialsProvider) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), Credentials: p})
}

// session is a provider of temporary credentials STS returned.
func session(c *ststypes.Credentials) aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken)
}

// trustPrincipal is a trust policy that lets one principal assume the role
// (with sts:AssumeRole, or the actions given).
func trustPrincipal(principal string, actions ...string) string {
	if len(actions) == 0 {
		actions = []string{"sts:AssumeRole"}
	}
	return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"` + principal + `"},"Action":["` + strings.Join(actions, `","`) + `"]}}`
}

// allow is an identity policy allowing actions on every resource.
func allow(actions ...string) string {
	return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["` + strings.Join(actions, `","`) + `"],"Resource":"*"}}`
}

func wantError(t *testing.T, what string, err error, code, message string) {
	t.Helper()
	if apiCode(err) != code || !strings.Contains(errText(err), message) {
		t.Errorf("%s: %v; want %s with %q", what, err, code, message)
	}
}

// packedPolicySize is the result's PackedPolicySize, which leash local
// reports as AWS does; the SDK marks it deprecated in favour of
// SessionTokenUtilization, which leash local does not report.
func packedPolicySize(out *sts.AssumeRoleOutput) *int32 {
	return out.PackedPolicySize //nolint:staticcheck // the field under test
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestGetSessionToken(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	// A deny of everything does not stop GetSessionToken: no policy
	// controls it.
	alice := e.user(t, "alice", `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"sts:GetSessionToken","Resource":"*"}}`)

	out, err := e.stsAs(alice).GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
	if err != nil {
		t.Fatalf("GetSessionToken: %v", err)
	}
	c := out.Credentials
	if !strings.HasPrefix(*c.AccessKeyId, "ASIA") || *c.SecretAccessKey == "" || *c.SessionToken == "" {
		t.Errorf("credentials are not temporary ones: key ID %s", *c.AccessKeyId)
	}
	if d := c.Expiration.Sub(e.clock.now()); d < 890*time.Second || d > 910*time.Second {
		t.Errorf("expiration in %v, want 900s", d)
	}
	temp := e.stsAs(session(c))
	id, err := temp.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Arn != "arn:aws:iam::"+stsAccount+":user/alice" {
		t.Errorf("GetCallerIdentity with the session: %v, %v", id, err)
	}

	def, err := e.stsAs(alice).GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	if err != nil {
		t.Fatalf("GetSessionToken without a duration: %v", err)
	}
	if d := def.Credentials.Expiration.Sub(e.clock.now()); d < 12*time.Hour-time.Minute || d > 12*time.Hour+time.Minute {
		t.Errorf("default expiration in %v, want 12h", d)
	}

	_, err = e.stsAs(alice).GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(129601)})
	wantError(t, "DurationSeconds above 36 hours", err, "ValidationError", "Member must have value less than or equal to 129600")
	_, err = temp.GetSessionToken(ctx, &sts.GetSessionTokenInput{})
	wantError(t, "GetSessionToken with session credentials", err, "AccessDenied", "Cannot call GetSessionToken with session credentials")
}

func TestAssumeRole(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	bob := e.user(t, "bob", "")
	carol := e.user(t, "carol", allow("sts:AssumeRole"))
	app := e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("iam:ListUsers"), 0)
	acct := e.role(t, "acct", trustPrincipal("arn:aws:iam::"+stsAccount+":root"), "", 0)

	out, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(app), RoleSessionName: aws.String("deploy")})
	if err != nil {
		t.Fatalf("AssumeRole by the user the trust policy names: %v", err)
	}
	u := out.AssumedRoleUser
	if *u.Arn != "arn:aws:sts::"+stsAccount+":assumed-role/app/deploy" || !strings.HasPrefix(*u.AssumedRoleId, "AROA") || !strings.HasSuffix(*u.AssumedRoleId, ":deploy") {
		t.Errorf("AssumedRoleUser = %s, %s", *u.Arn, *u.AssumedRoleId)
	}
	if d := out.Credentials.Expiration.Sub(e.clock.now()); d < time.Hour-time.Minute || d > time.Hour+time.Minute {
		t.Errorf("default expiration in %v, want 1h", d)
	}
	if packed := packedPolicySize(out); packed != nil {
		t.Errorf("PackedPolicySize = %d without session policies or tags", *packed)
	}
	role := session(out.Credentials)
	id, err := e.stsAs(role).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Arn != *u.Arn || *id.UserId != *u.AssumedRoleId {
		t.Errorf("GetCallerIdentity as the role session: %v, %v", id, err)
	}
	if _, err := e.iamAs(role).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Errorf("ListUsers, which the role allows: %v", err)
	}

	tests := []struct {
		name        string
		as          aws.CredentialsProvider
		in          sts.AssumeRoleInput
		code, words string
	}{
		{"a trust policy naming another user refuses", bob, sts.AssumeRoleInput{RoleArn: aws.String(app)},
			"AccessDenied", "User: arn:aws:iam::" + stsAccount + ":user/bob is not authorized to perform: sts:AssumeRole on resource: " + app},
		{"a trust policy naming the account needs an identity policy too", alice, sts.AssumeRoleInput{RoleArn: aws.String(acct)},
			"AccessDenied", "sts:AssumeRole on resource: " + acct},
		{"a role that does not exist is refused like one that does not trust", alice, sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + stsAccount + ":role/nope")},
			"AccessDenied", "sts:AssumeRole on resource: arn:aws:iam::" + stsAccount + ":role/nope"},
		{"DurationSeconds above the role's maximum", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), DurationSeconds: aws.Int32(7200)},
			"ValidationError", "The requested DurationSeconds exceeds the MaxSessionDuration set for this role."},
		{"DurationSeconds under 15 minutes", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), DurationSeconds: aws.Int32(899)},
			"ValidationError", "Member must have value greater than or equal to 900"},
		{"a session name with a space", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), RoleSessionName: aws.String("my session")},
			"ValidationError", "at 'roleSessionName' failed to satisfy constraint"},
		{"a session policy that does not parse", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), Policy: aws.String(`{"Statement":`)},
			"MalformedPolicyDocument", ""},
		{"a session policy over 2,048 characters", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), Policy: aws.String(allow("iam:ListUsers") + strings.Repeat(" ", 2048))},
			"ValidationError", "Member must have length less than or equal to 2048"},
		{"session tags need sts:TagSession in the trust policy", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), Tags: []ststypes.Tag{{Key: aws.String("team"), Value: aws.String("a")}}},
			"AccessDenied", "sts:TagSession on resource: " + app},
		{"a source identity needs sts:SetSourceIdentity in the trust policy", alice, sts.AssumeRoleInput{RoleArn: aws.String(app), SourceIdentity: aws.String("alice")},
			"AccessDenied", "sts:SetSourceIdentity on resource: " + app},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			if in.RoleSessionName == nil {
				in.RoleSessionName = aws.String("s1")
			}
			_, err := e.stsAs(tt.as).AssumeRole(ctx, &in)
			wantError(t, "AssumeRole", err, tt.code, tt.words)
		})
	}

	if _, err := e.stsAs(carol).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(acct), RoleSessionName: aws.String("s1")}); err != nil {
		t.Errorf("AssumeRole by a user whose policy allows it, of a role that trusts the account: %v", err)
	}
}

func TestAssumeRoleChainingIsLimitedToAnHour(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	first := e.role(t, "first", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("sts:AssumeRole"), 43200)
	second := e.role(t, "second", trustPrincipal("arn:aws:iam::"+stsAccount+":role/first"), "", 43200)
	out, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(first), RoleSessionName: aws.String("first"), DurationSeconds: aws.Int32(43200)})
	if err != nil {
		t.Fatalf("AssumeRole first for 12 hours: %v", err)
	}
	chained := e.stsAs(session(out.Credentials))
	_, err = chained.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(second), RoleSessionName: aws.String("second"), DurationSeconds: aws.Int32(7200)})
	wantError(t, "chained AssumeRole for 2 hours", err, "ValidationError", "1 hour session limit for roles assumed by role chaining")
	if _, err := chained.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(second), RoleSessionName: aws.String("second")}); err != nil {
		t.Errorf("chained AssumeRole for the default hour: %v", err)
	}
}

func TestSessionPolicyNarrowsTheRole(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	app := e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("iam:ListUsers", "iam:GetUser"), 0)
	out, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{
		RoleArn: aws.String(app), RoleSessionName: aws.String("narrow"),
		Policy: aws.String(`{
			"Version": "2012-10-17",
			"Statement": {"Effect": "Allow", "Action": "iam:GetUser", "Resource": "*"}
		}`),
	})
	if err != nil {
		t.Fatalf("AssumeRole with a session policy: %v", err)
	}
	if packed := packedPolicySize(out); packed == nil || *packed <= 0 || *packed > 100 {
		t.Errorf("PackedPolicySize = %v, want a percentage", packed)
	}
	narrow := e.iamAs(session(out.Credentials))
	if _, err := narrow.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}); err != nil {
		t.Errorf("GetUser, which both the role and the session policy allow: %v", err)
	}
	_, err = narrow.ListUsers(ctx, &iam.ListUsersInput{})
	wantError(t, "ListUsers, which the role allows and the session policy does not", err, "AccessDenied",
		"User: arn:aws:sts::"+stsAccount+":assumed-role/app/narrow is not authorized to perform: iam:ListUsers on resource: arn:aws:iam::"+stsAccount+":user/ because no session policy allows the iam:ListUsers action")
}

func TestSessionTagsAreThePrincipalsTags(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	app := e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice", "sts:AssumeRole", "sts:TagSession"),
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*","Condition":{"StringEquals":{"aws:PrincipalTag/team":"payments"}}}}`, 0)
	for _, team := range []string{"payments", "search"} {
		out, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(app), RoleSessionName: aws.String(team),
			Tags: []ststypes.Tag{{Key: aws.String("team"), Value: aws.String(team)}}})
		if err != nil {
			t.Fatalf("AssumeRole tagged %s: %v", team, err)
		}
		_, err = e.iamAs(session(out.Credentials)).ListUsers(ctx, &iam.ListUsersInput{})
		if allowed := err == nil; allowed != (team == "payments") {
			t.Errorf("ListUsers by the session tagged team=%s: %v", team, err)
		}
	}
}

// TestSessionTagReplacesTheRolesTagInAnyCase: a session tag overrides the
// role's tag of the same key ("the value of the session tag overrides the
// role tag with the same key",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html),
// and a role's tag keys are not case sensitive
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_tags.html#id_tags_rules_creating),
// so a session tagged team=blue has aws:PrincipalTag/team blue even when
// its role is tagged Team=red, on every request.
func TestSessionTagReplacesTheRolesTagInAnyCase(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	app := e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice", "sts:AssumeRole", "sts:TagSession"),
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*","Condition":{"StringEquals":{"aws:PrincipalTag/team":"blue"}}}}`, 0)
	if _, err := e.admin.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String("app"), Tags: []iamtypes.Tag{{Key: aws.String("Team"), Value: aws.String("red")}}}); err != nil {
		t.Fatal(err)
	}
	out, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(app), RoleSessionName: aws.String("tagged"),
		Tags: []ststypes.Tag{{Key: aws.String("team"), Value: aws.String("blue")}}})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if _, err := e.iamAs(session(out.Credentials)).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
			t.Fatalf("ListUsers by the session tagged team=blue, its role tagged Team=red: %v", err)
		}
	}
}

// TestTokenIssueTimeRevokesEarlierSessions is the revocation recipe: a deny
// of sessions issued before a cutoff ends the sessions issued until then,
// and not the ones issued after.
func TestTokenIssueTimeRevokesEarlierSessions(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	app := e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("iam:ListUsers"), 0)
	assume := func(name string) *iam.Client {
		t.Helper()
		out, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(app), RoleSessionName: aws.String(name)})
		if err != nil {
			t.Fatalf("AssumeRole %s: %v", name, err)
		}
		return e.iamAs(session(out.Credentials))
	}

	before := assume("before")
	cutoff := e.clock.now().Add(time.Minute).UTC().Format(time.RFC3339)
	e.clock.advance(2 * time.Minute)
	e.putRolePolicy(t, "app", "revoke", `{"Version":"2012-10-17","Statement":{"Effect":"Deny","Action":"*","Resource":"*",
		"Condition":{"DateLessThan":{"aws:TokenIssueTime":"`+cutoff+`"}}}}`)
	after := assume("after")

	_, err := before.ListUsers(ctx, &iam.ListUsersInput{})
	wantError(t, "a session issued before the cutoff", err, "AccessDenied", "with an explicit deny in an identity-based policy")
	if _, err := after.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Errorf("a session issued after the cutoff: %v", err)
	}
}

func TestAssumeRoleWithSAMLIsRefused(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	_, err := e.stsAs(nil).AssumeRoleWithSAML(context.Background(), &sts.AssumeRoleWithSAMLInput{
		RoleArn: aws.String("arn:aws:iam::" + stsAccount + ":role/app"), PrincipalArn: aws.String("arn:aws:iam::" + stsAccount + ":saml-provider/idp"),
		SAMLAssertion: aws.String(strings.Repeat("A", 8)),
	})
	wantError(t, "AssumeRoleWithSAML", err, "InvalidAction", "does not serve AssumeRoleWithSAML")
}
