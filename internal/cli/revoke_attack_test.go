package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
)

// The holder of a role's session, allowed everything, plants a policy
// under the deny's name before the revocation, so that the revocation
// finds a "deny" in place and changes nothing. Each decoy refuses nothing;
// the revocation replaces it, says so, and the old session is refused
// afterwards.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
func TestRevokeReplacesADecoyDenyPutByTheRevokedSession(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	const far = `"Condition":{"DateLessThan":{"aws:TokenIssueTime":"2099-01-01T00:00:00Z"}`
	for _, tt := range []struct{ name, statement string }{
		{"never-matching-condition", `{"Effect":"Deny","Action":"*","Resource":"*",` + far + `,"StringEquals":{"aws:username":"nobody-at-all"}}}`},
		{"wrong-action", `{"Effect":"Deny","Action":"iam:NoSuchAction","Resource":"*",` + far + `}}`},
		{"allow-not-deny", `{"Effect":"Allow","Action":"*","Resource":"*",` + far + `}}`},
		{"resource-matching-nothing", `{"Effect":"Deny","Action":"*","Resource":"arn:aws:s3:::nothing-at-all",` + far + `}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			role := "ci-" + tt.name
			in.ciRole(t, role, "")
			in.allow(t, "role", role, "*", "*")
			old, err := in.ciSession(role, in.githubToken(t, mainRef))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := in.iam(old).PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(revoke.PolicyName),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[` + tt.statement + `]}`)}); err != nil {
				t.Fatalf("the session's own decoy: %v", err)
			}
			out, stderr, code := in.revoke(t, "--role", role)
			if code != 0 || !strings.Contains(out, "is not a session deny") || !strings.Contains(out, "it is replaced") || !strings.Contains(out, "proven:") {
				t.Fatalf("exit %d, want 0 with the decoy replaced and the deny proven\n%s%s", code, out, stderr)
			}
			if c := in.listUsers(old); c != "AccessDenied" {
				t.Errorf("the session that planted the decoy, after the revocation: %s, want AccessDenied", c)
			}
			if _, err := in.iam(old).DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(revoke.PolicyName)}); iamclient.ResultCode(err) != "AccessDenied" {
				t.Errorf("the session deleting the deny: %v, want AccessDenied", err)
			}
		})
	}
}

// --trust says "no new session" only when the engine proves it over the
// whole trust policy: a wildcard statement admitting the same subject
// keeps it open (exit 1, naming the statement), and a fresh token still
// assumes the role; once the wildcard is removed too, it is proven closed
// and a fresh token is refused.
func TestRevokeTrustIsClosedOnlyWhenProven(t *testing.T) {
	in := startIncident(t)
	provider := `"Principal":{"Federated":"arn:aws:iam::` + incidentAccount + `:oidc-provider/token.actions.githubusercontent.com"},"Action":"sts:AssumeRoleWithWebIdentity"`
	const wildcard = "repo:polarsquad/*"
	trust := `{"Version":"2012-10-17","Statement":[` +
		`{"Sid":"Exact","Effect":"Allow",` + provider + `,"Condition":{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com","token.actions.githubusercontent.com:sub":"` + mainRef + `"}}},` +
		`{"Sid":"Wildcard","Effect":"Allow",` + provider + `,"Condition":{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"},"StringLike":{"token.actions.githubusercontent.com:sub":"` + wildcard + `"}}},` +
		`{"Sid":"Other","Effect":"Allow",` + provider + `,"Condition":{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com","token.actions.githubusercontent.com:sub":"repo:other/repo:ref:refs/heads/main"}}}]}`
	in.ciRole(t, "ci", trust)

	out, stderr, code := in.revoke(t, "--role", "ci", "--trust", mainRef)
	if code != 1 || !strings.Contains(stderr, "still admitted by Statement[0] (Wildcard)") || strings.Contains(out, "proven: no new session") {
		t.Fatalf("exact removed, wildcard kept: exit %d, want 1 naming the wildcard statement\n%s%s", code, out, stderr)
	}
	if _, err := in.ciSession("ci", in.githubToken(t, mainRef)); err != nil {
		t.Fatalf("as reported, a fresh token still assumes the role: %v", err)
	}

	out, stderr, code = in.revoke(t, "--role", "ci", "--trust", mainRef, "--trust", wildcard)
	if code != 0 || !strings.Contains(out, "proven: no new session can be issued to "+mainRef+", "+wildcard) {
		t.Fatalf("wildcard removed: exit %d, want 0 and proven closed\n%s%s", code, out, stderr)
	}
	if _, err := in.ciSession("ci", in.githubToken(t, mainRef)); iamclient.ResultCode(err) != "AccessDenied" {
		t.Errorf("a fresh token after the trust is proven closed: %v, want AccessDenied", err)
	}
}

// The runbook's first step, on the trust it links to
// (examples/ci-role/trust.json, whose one statement admits only the leaked
// ref): the statement stays, since IAM refuses a trust policy without one,
// and a Deny for the ref closes it.
func TestRevokeRunbookTrustOfTheExampleRole(t *testing.T) {
	in := startIncident(t)
	in.ciRole(t, "krops-ci-e2e", "")
	out, stderr, code := in.revoke(t, "--role", "krops-ci-e2e", "--trust", mainRef)
	if code != 0 || !strings.Contains(out, "proven: no new session can be issued to "+mainRef) {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if _, err := in.ciSession("krops-ci-e2e", in.githubToken(t, mainRef)); iamclient.ResultCode(err) != "AccessDenied" {
		t.Errorf("a fresh token of the revoked ref: %v, want AccessDenied", err)
	}
	if out, stderr, code := in.revoke(t, "--role", "krops-ci-e2e", "--trust", mainRef); code != 0 || !strings.Contains(out, "removed from the trust policy by an earlier run") {
		t.Errorf("the same command again: exit %d\n%s%s", code, out, stderr)
	}
}

// The lift time comes from the longest session recorded when the deny was
// put, not from the role as it is at lift time: lowering MaxSessionDuration
// from 12 hours to 1 after the revocation does not bring the lift forward.
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_UpdateRole.html
// (a lower MaxSessionDuration does not shorten sessions already issued)
func TestRevokeLiftHonoursTheLongestSessionRecorded(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	in.ciRole(t, "ci", "")
	if _, err := in.admin.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("ci"), MaxSessionDuration: aws.Int32(12 * 3600)}); err != nil {
		t.Fatal(err)
	}
	cutoff := time.Now().Add(-2 * time.Hour).UTC().Truncate(time.Second)
	out, stderr, code := in.revoke(t, "--role", "ci", "--issued-before", cutoff.Format(time.RFC3339), "--output", "json")
	if code != 0 {
		t.Fatalf("revoke: exit %d\n%s%s", code, out, stderr)
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil || raw["longestSessionSeconds"] != float64(12*3600) {
		t.Errorf("longestSessionSeconds = %v (%v), want 43200 seconds", raw["longestSessionSeconds"], err)
	}
	if _, err := in.admin.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("ci"), MaxSessionDuration: aws.Int32(3600)}); err != nil {
		t.Fatal(err)
	}
	liftAt := cutoff.Add(12 * time.Hour).Format(time.RFC3339)
	if out, stderr, code := in.revoke(t, "--role", "ci", "--lift"); code != 1 || !strings.Contains(stderr, "may be lifted at "+liftAt) {
		t.Errorf("--lift two hours after the cutoff, the role now at one hour: exit %d, want 1 and lift time %s\n%s%s", code, liftAt, out, stderr)
	}

	// A deny without a record, as the AWS console writes it, is lifted
	// no earlier than AWS's longest role session, 12 hours.
	console := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":["*"],"Resource":["*"],"Condition":{"DateLessThan":{"aws:TokenIssueTime":"` + cutoff.Format(time.RFC3339) + `"}}}]}`
	if _, err := in.admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("ci"), PolicyName: aws.String(revoke.PolicyName), PolicyDocument: aws.String(console)}); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := in.revoke(t, "--role", "ci", "--lift"); code != 1 || !strings.Contains(stderr, "may be lifted at "+liftAt) {
		t.Errorf("--lift of the console's deny: exit %d, want 1 and lift time %s\n%s%s", code, liftAt, out, stderr)
	}
}

// A cutoff with a fraction of a second is rounded up: aws:TokenIssueTime
// counts whole seconds, and a session issued later in the same second
// must be refused too.
func TestRevokeFractionalCutoffIsRoundedUp(t *testing.T) {
	in := startIncident(t)
	in.ciRole(t, "ci", "")
	at := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	rep := revokeReportOf(t, in, "--role", "ci", "--issued-before", at.Add(500*time.Millisecond).Format(time.RFC3339Nano))
	if want := at.Add(time.Second); !rep.Cutoff.Equal(want) {
		t.Errorf("cutoff %s, want %s", rep.Cutoff, want)
	}
}

// A session of the revoked role assumed another role before the
// revocation: the deny does not end that chained session, as in AWS, and
// it could assume a fresh session of the revoked role and delete the deny.
// leash revoke lists it from the trail; --follow-chained revokes its role
// too, and the chained session is refused.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
func TestRevokeListsAndFollowsChainedSessions(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	in.ciRole(t, "ci", "")
	in.allow(t, "role", "ci", "*", "*")
	if _, err := in.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("next"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + incidentAccount + `:role/ci"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}
	in.allow(t, "role", "next", "iam:ListUsers", "*")
	ci, err := in.ciSession("ci", in.githubToken(t, mainRef))
	if err != nil {
		t.Fatal(err)
	}
	out, err := in.sts(ci).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + incidentAccount + ":role/next"), RoleSessionName: aws.String("chained")})
	if err != nil {
		t.Fatal(err)
	}
	chained := credentials.NewStaticCredentialsProvider(aws.ToString(out.Credentials.AccessKeyId), aws.ToString(out.Credentials.SecretAccessKey), aws.ToString(out.Credentials.SessionToken))

	stdout, stderr, code := in.revoke(t, "--role", "ci")
	want := "arn:aws:iam::" + incidentAccount + ":role/next assumed at "
	if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "by arn:aws:sts::"+incidentAccount+":assumed-role/ci/gha") || !strings.Contains(stdout, "--follow-chained") {
		t.Fatalf("exit %d, want the chained session listed\n%s%s", code, stdout, stderr)
	}
	if c := in.listUsers(chained); c != "OK" {
		t.Fatalf("the chained session after the revocation of ci alone: %s; AWS leaves it working", c)
	}

	stdout, stderr, code = in.revoke(t, "--role", "ci", "--follow-chained")
	if code != 0 || !strings.Contains(stdout, "Chained: revoke role arn:aws:iam::"+incidentAccount+":role/next") {
		t.Fatalf("--follow-chained: exit %d\n%s%s", code, stdout, stderr)
	}
	if c := in.listUsers(chained); c != "AccessDenied" {
		t.Errorf("the chained session after --follow-chained: %s, want AccessDenied", c)
	}
}
