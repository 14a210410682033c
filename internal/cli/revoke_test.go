package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
)

// revokeReport reads --output json.
func revokeReport(t *testing.T, stdout string) (r struct {
	DryRun bool `json:"dryRun"`
	revoke.Report
}) {
	t.Helper()
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("--output json: %v\n%s", err, stdout)
	}
	return r
}

// TestRevokeRunbookIncident is the runbook's incident in leash local: the
// CI role trusted through GitHub's OIDC and a user with a key both leak.
// Sessions issued before the revocation are refused after it, sessions
// issued after it work, the user's keys and console password are gone,
// and the deny is lifted only when every older session has expired.
func TestRevokeRunbookIncident(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	in.ciRole(t, "krops-ci-e2e", "")
	aliceKey := in.user(t, "alice", "sts:AssumeRole", "*")
	if _, err := in.admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: aws.String("alice"), Password: aws.String("Leaked-Passw0rd!" + time.Now().Format("150405"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := in.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("target"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + incidentAccount + `:user/alice"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}

	oldCI, err := in.ciSession("krops-ci-e2e", in.githubToken(t, mainRef))
	if err != nil {
		t.Fatal(err)
	}
	oldAlice := in.userSession(t, aliceKey)
	for what, code := range map[string]string{
		"the CI session": in.listUsers(oldCI), "alice's session": in.assumeTarget(oldAlice), "alice's key": in.assumeTarget(aliceKey),
	} {
		if code != "OK" {
			t.Fatalf("before revoking, %s got %s", what, code)
		}
	}

	// A dry run prints the plan and changes nothing.
	users, roles := []string{"alice"}, []string{"krops-ci-e2e"}
	before := in.state(t, users, roles)
	out, stderr, code := in.revoke(t, "--user", "alice", "--dry-run")
	if code != 0 || !strings.Contains(out, "iam:UpdateAccessKey alice") || !strings.Contains(out, "iam:DeleteAccessKey alice") ||
		!strings.Contains(out, "iam:DeleteLoginProfile alice") || !strings.Contains(out, "iam:PutUserPolicy alice "+revoke.PolicyName) ||
		!strings.Contains(out, "Dry run: no call was made.") {
		t.Fatalf("--dry-run: exit %d\n%s%s", code, out, stderr)
	}
	if _, _, code := in.revoke(t, "--role", "krops-ci-e2e", "--dry-run"); code != 0 {
		t.Fatalf("--role --dry-run: exit %d", code)
	}
	if after := in.state(t, users, roles); after != before {
		t.Fatalf("--dry-run changed state:\nbefore\n%s\nafter\n%s", before, after)
	}

	// Revoke the user.
	out, stderr, code = in.revoke(t, "--user", "alice")
	if code != 0 {
		t.Fatalf("revoke --user alice: exit %d\n%s%s", code, out, stderr)
	}
	lift := regexp.MustCompile(`The deny may be lifted at (\S+) \(cutoff (\S+) \+ longest session 36h0m0s\)`).FindStringSubmatch(out)
	if lift == nil {
		t.Fatalf("no lift time for a user's 36 hours in:\n%s", out)
	}
	cutoff, _ := time.Parse(time.RFC3339, lift[2])
	if got, _ := time.Parse(time.RFC3339, lift[1]); !got.Equal(cutoff.Add(36 * time.Hour)) {
		t.Errorf("lift time %s is not cutoff %s + 36h", lift[1], lift[2])
	}
	// The printed --lift command is the one to run: it names the endpoint and
	// the credentials file the revocation ran with, and, run as printed, it
	// reaches the same IAM and refuses before the lift time.
	hint := regexp.MustCompile(`\): leash (revoke .*--lift)\n`).FindStringSubmatch(out)
	if hint == nil || !strings.Contains(hint[1], " --endpoint "+in.l.URL+" ") || !strings.Contains(hint[1], " --credentials-file "+in.adminFile+" ") {
		t.Errorf("the --lift hint lacks --endpoint %s or --credentials-file %s:\n%s", in.l.URL, in.adminFile, out)
	} else if _, stderr, code := run(t, strings.Fields(hint[1])...); code != 1 || !strings.Contains(stderr, "may be lifted at "+lift[1]) {
		t.Errorf("the printed --lift command, run before the lift time: exit %d, want 1 saying when\n%s", code, stderr)
	}
	if c := in.assumeTarget(oldAlice); c != "AccessDenied" {
		t.Errorf("alice's session issued before the revocation: %s, want AccessDenied", c)
	}
	if c := in.assumeTarget(aliceKey); c != "InvalidClientTokenId" {
		t.Errorf("alice's key after the revocation: %s, want InvalidClientTokenId", c)
	}
	if got := in.state(t, users, nil); !strings.Contains(got, "alice login NoSuchEntity") || strings.Contains(got, " key ") ||
		!strings.Contains(got, "alice policies "+revoke.PolicyName+",work") && !strings.Contains(got, "alice policies work,"+revoke.PolicyName) {
		t.Errorf("alice after the revocation:\n%s", got)
	}

	// Revoke the role: the old CI session is refused, a new one works.
	out, stderr, code = in.revoke(t, "--role", "krops-ci-e2e", "--output", "json")
	if code != 0 {
		t.Fatalf("revoke --role: exit %d\n%s%s", code, out, stderr)
	}
	rep := revokeReport(t, out)
	if rep.LongestSession.Duration() != 4*time.Hour || !rep.LiftAfter.Equal(rep.Cutoff.Add(4*time.Hour)) || len(rep.Steps) != 2 || !rep.Steps[0].Done || !rep.Steps[1].Done {
		t.Errorf("role report: %+v", rep.Report)
	}
	if c := in.listUsers(oldCI); c != "AccessDenied" {
		t.Errorf("the CI session issued before the revocation: %s, want AccessDenied", c)
	}
	waitPast(rep.Cutoff)
	between, err := in.ciSession("krops-ci-e2e", in.githubToken(t, mainRef))
	if err != nil {
		t.Fatal(err)
	}
	if c := in.listUsers(between); c != "OK" {
		t.Errorf("a CI session issued after the revocation: %s, want OK", c)
	}

	// A second run finds nothing but the deny, renews it, and says that
	// this ends the sessions issued in between.
	waitPast(rep.Cutoff.Add(time.Second))
	out, stderr, code = in.revoke(t, "--role", "krops-ci-e2e")
	if code != 0 || !strings.Contains(out, "renewed, which also ends every session issued since then") {
		t.Fatalf("second revoke --role: exit %d\n%s%s", code, out, stderr)
	}
	if c := in.listUsers(between); c != "AccessDenied" {
		t.Errorf("a session issued between two revocations: %s, want AccessDenied after the second", c)
	}
	out, stderr, code = in.revoke(t, "--user", "alice")
	if code != 0 || strings.Contains(out, "iam:DeleteAccessKey") || !strings.Contains(out, "the user has no access key") {
		t.Errorf("second revoke --user: exit %d\n%s%s", code, out, stderr)
	}

	// Lifting: refused before the lift time, done with --force.
	out, stderr, code = in.revoke(t, "--role", "krops-ci-e2e", "--lift")
	if code != 1 || !strings.Contains(stderr, "may be lifted at") || !strings.Contains(stderr, "--force") {
		t.Errorf("--lift before the lift time: exit %d, want 1 and when\n%s%s", code, out, stderr)
	}
	if _, err := in.admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("krops-ci-e2e"), PolicyName: aws.String(revoke.PolicyName)}); err != nil {
		t.Errorf("a refused lift removed the deny: %v", err)
	}
	out, stderr, code = in.revoke(t, "--role", "krops-ci-e2e", "--lift", "--force")
	if code != 0 || !strings.Contains(out, "Lifted") {
		t.Errorf("--lift --force: exit %d\n%s%s", code, out, stderr)
	}
	if _, err := in.admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("krops-ci-e2e"), PolicyName: aws.String(revoke.PolicyName)}); err == nil {
		t.Error("the deny is still on the role after --lift --force")
	}
	if c := in.listUsers(between); c != "OK" {
		t.Errorf("after the lift, a session the deny refused: %s, want OK", c)
	}
	if out, stderr, code = in.revoke(t, "--role", "krops-ci-e2e", "--lift"); code != 0 || !strings.Contains(out, "nothing to lift") {
		t.Errorf("--lift with no deny: exit %d\n%s%s", code, out, stderr)
	}
}

// TestRevokeRefusesAndRejects pins each refusal (exit 1) and each bad input
// (exit 2) to its message, and checks none of them changed anything.
func TestRevokeRefusesAndRejects(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	in.ciRole(t, "ci", "")
	in.user(t, "bob", "sts:AssumeRole", "*")
	// ops may do everything to users and read roles, but not write role
	// policies: revoking a role is refused naming iam:PutRolePolicy.
	opsKey := in.user(t, "ops", "iam:*User*", "*")
	if _, err := in.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("ops"), PolicyName: aws.String("more"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:*AccessKey*","iam:*LoginProfile","iam:GetRole","iam:GetRolePolicy"],"Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	opsFile := credentialsFile(t, "incident", opsKey)
	asOps := func(args ...string) (string, string, int) {
		return run(t, append([]string{"revoke", "--endpoint", in.l.URL, "--credentials-file", opsFile, "--profile", "incident"}, args...)...)
	}
	// A CI session of the role may write its own policies; it is still
	// not allowed to revoke its own role without --self.
	in.allow(t, "role", "ci", "*", "*")
	ciSession, err := in.ciSession("ci", in.githubToken(t, mainRef))
	if err != nil {
		t.Fatal(err)
	}
	ciFile := credentialsFile(t, "default", ciSession)
	before := in.state(t, []string{"bob", "ops"}, []string{"ci"})
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, tt := range []struct {
		name   string
		run    func() (string, string, int)
		code   int
		stderr string
	}{
		{"an unknown user is bad input naming NoSuchEntity", func() (string, string, int) { return in.revoke(t, "--user", "nobody") },
			2, "--user: IAM has no user nobody"},
		{"an unknown role is bad input", func() (string, string, int) { return in.revoke(t, "--role", "nobody") },
			2, "NoSuchEntity"},
		{"an ARN of another account is bad input", func() (string, string, int) {
			return in.revoke(t, "--user", "arn:aws:iam::111122223333:user/bob")
		}, 2, "is in account 111122223333, but the credentials are of account " + incidentAccount},
		{"a role ARN given to --user is bad input", func() (string, string, int) {
			return in.revoke(t, "--user", "arn:aws:iam::"+incidentAccount+":role/ci")
		}, 2, "is not an IAM user ARN"},
		{"a cutoff in the future is bad input", func() (string, string, int) { return in.revoke(t, "--user", "bob", "--issued-before", future) },
			2, "--issued-before: " + future + " is in the future"},
		{"a cutoff that is not RFC 3339 is bad input", func() (string, string, int) { return in.revoke(t, "--user", "bob", "--issued-before", "yesterday") },
			2, "is not an RFC 3339 time"},
		{"two principals are bad input", func() (string, string, int) { return in.revoke(t, "--user", "bob", "--role", "ci") },
			2, "give one principal to revoke"},
		{"--trust on a user is bad input", func() (string, string, int) { return in.revoke(t, "--user", "bob", "--trust", mainRef) },
			2, "--trust: removes principals from a role's trust policy"},
		{"--force without --lift is bad input", func() (string, string, int) { return in.revoke(t, "--user", "bob", "--force") },
			2, "--force: only lifts a deny"},
		{"a --trust value the trust policy lacks is bad input listing what it holds", func() (string, string, int) {
			return in.revoke(t, "--role", "ci", "--trust", "repo:polarsquad/krops:ref:refs/heads/dev")
		}, 2, `"repo:polarsquad/krops:ref:refs/heads/dev" is not in the role's trust policy; it names ` + mainRef},
		{"a caller lacking iam:PutRolePolicy is refused, naming the action and itself", func() (string, string, int) { return asOps("--role", "ci") },
			1, "iam:PutRolePolicy on arn:aws:iam::" + incidentAccount + ":role/ci was denied to arn:aws:iam::" + incidentAccount + ":user/ops"},
		{"revoking the caller's own user is refused", func() (string, string, int) { return asOps("--user", "ops") },
			1, "the credentials in use belong to it (arn:aws:iam::" + incidentAccount + ":user/ops)"},
		{"revoking the role the caller's session is of is refused", func() (string, string, int) {
			return run(t, "revoke", "--endpoint", in.l.URL, "--credentials-file", ciFile, "--role", "ci")
		}, 1, "the credentials in use belong to it (arn:aws:sts::" + incidentAccount + ":assumed-role/ci/gha)"},
		{"a profile that does not exist is bad input naming it", func() (string, string, int) {
			return run(t, "revoke", "--endpoint", in.l.URL, "--credentials-file", opsFile, "--profile", "nope", "--user", "bob")
		}, 2, "--profile nope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := tt.run()
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, want %d and %q in stderr\n%s%s", code, tt.code, tt.stderr, out, stderr)
			}
		})
	}
	if after := in.state(t, []string{"bob", "ops"}, []string{"ci"}); after != before {
		t.Errorf("a refused or rejected revocation changed state:\nbefore\n%s\nafter\n%s", before, after)
	}

	// --keep-keys-inactive keeps bob's key, inactive, as evidence.
	if out, stderr, code := in.revoke(t, "--user", "bob", "--keep-keys-inactive"); code != 0 {
		t.Fatalf("--keep-keys-inactive: exit %d\n%s%s", code, out, stderr)
	}
	if got := in.state(t, []string{"bob"}, nil); !strings.Contains(got, "bob key ") || !strings.Contains(got, " Inactive") || strings.Contains(got, " Active") {
		t.Errorf("bob after --keep-keys-inactive:\n%s", got)
	}

	// With --self, ops revokes itself through the profile, keeping its
	// keys inactive: the run completes and the keys stay, inactive.
	out, stderr, code := asOps("--user", "ops", "--self", "--keep-keys-inactive")
	if code != 0 {
		t.Fatalf("--self: exit %d\n%s%s", code, out, stderr)
	}
	got := in.state(t, []string{"ops"}, nil)
	if !strings.Contains(got, " Inactive") || strings.Contains(got, " Active") || !strings.Contains(got, revoke.PolicyName) {
		t.Errorf("ops after --self --keep-keys-inactive:\n%s", got)
	}
	if c := in.assumeTarget(opsKey); c != "InvalidClientTokenId" {
		t.Errorf("an inactive key: %s, want InvalidClientTokenId", c)
	}
}

// TestRevokeTrust narrows the CI role's trust to one ref: the removed ref
// can no longer assume the role, its old session is refused, and the ref
// kept still assumes it once the cutoff has passed.
func TestRevokeTrust(t *testing.T) {
	in := startIncident(t)
	devRef := "repo:polarsquad/krops:ref:refs/heads/dev"
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + incidentAccount + `:oidc-provider/token.actions.githubusercontent.com"},
"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"token.actions.githubusercontent.com:aud":"sts.amazonaws.com"},
"StringLike":{"token.actions.githubusercontent.com:sub":["` + mainRef + `","` + devRef + `"]}}}]}`
	in.ciRole(t, "ci", trust)
	oldDev, err := in.ciSession("ci", in.githubToken(t, devRef))
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := in.revoke(t, "--role", "ci", "--trust", devRef, "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	rep := revokeReport(t, out)
	if !strings.Contains(rep.Trust, `"token.actions.githubusercontent.com:sub":"`+mainRef+`"`) || strings.Contains(rep.Trust, devRef) {
		t.Errorf("trust after: %s", rep.Trust)
	}
	var calls []string
	for _, s := range rep.Steps {
		calls = append(calls, s.Call)
	}
	if got := strings.Join(calls, " "); got != "iam:TagRole iam:UpdateAssumeRolePolicy iam:GetRole sts:GetCallerIdentity iam:PutRolePolicy iam:GetRolePolicy" {
		t.Errorf("steps %s; want the intent, the trust and its proof, then the cutoff, then the deny and its proof", got)
	}
	if c := in.listUsers(oldDev); c != "AccessDenied" {
		t.Errorf("the dev ref's old session: %s, want AccessDenied", c)
	}
	if _, err := in.ciSession("ci", in.githubToken(t, devRef)); iamclient.ResultCode(err) != "AccessDenied" {
		t.Errorf("the dev ref assuming the role after: %v, want AccessDenied", err)
	}
	waitPast(rep.Cutoff)
	main, err := in.ciSession("ci", in.githubToken(t, mainRef))
	if err != nil {
		t.Fatalf("the main ref assuming the role after the cutoff: %v", err)
	}
	if c := in.listUsers(main); c != "OK" {
		t.Errorf("a new session of the main ref: %s, want OK", c)
	}

	// The same command again finds the ref removed by the first run, and
	// succeeds; a ref the trust never held is still refused.
	if out, stderr, code := in.revoke(t, "--role", "ci", "--trust", devRef); code != 0 || !strings.Contains(out, "was removed from the trust policy by an earlier run") {
		t.Errorf("second run: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := in.revoke(t, "--role", "ci", "--trust", "repo:polarsquad/krops:ref:refs/heads/other"); code != 2 || !strings.Contains(stderr, "it names "+mainRef) {
		t.Errorf("a ref never trusted: exit %d, %s", code, stderr)
	}
}

// TestRevokeRequestInFolder revokes the user leash apply minted for a
// request of a folder, then leash apply mints a fresh key that works.
func TestRevokeRequestInFolder(t *testing.T) {
	in := startIncident(t)
	data := filepath.Dir(in.adminFile)
	out := filepath.Join(t.TempDir(), "secrets")
	apply := []string{"apply", "-f", filepath.Join("..", "..", "examples", "ack-s3"), "--endpoint", in.l.URL, "--data", data, "--out", out}
	if stdout, stderr, code := run(t, apply...); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	users, err := in.admin.ListUsers(context.Background(), &iam.ListUsersInput{PathPrefix: aws.String("/leash/")})
	if err != nil || len(users.Users) != 1 {
		t.Fatalf("users minted: %v, %v", users, err)
	}
	minted := *users.Users[0].UserName
	keysBefore := in.state(t, []string{minted}, nil)

	stdout, stderr, code := in.revoke(t, "--request", "ack-system/ack-s3-controller", "-f", filepath.Join("..", "..", "examples", "ack-s3"))
	if code != 0 || !strings.Contains(stdout, "Plan: revoke user "+*users.Users[0].Arn) || !strings.Contains(stdout, "Fresh credential: run leash apply -f") {
		t.Fatalf("revoke --request -f: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := in.state(t, []string{minted}, nil); strings.Contains(got, " key ") || !strings.Contains(got, revoke.PolicyName) {
		t.Errorf("the minted user after revoke (before: %s):\n%s", keysBefore, got)
	}
	if stdout, stderr, code := run(t, apply...); code != 0 {
		t.Fatalf("apply after revoke: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := in.state(t, []string{minted}, nil); !strings.Contains(got, " Active") {
		t.Errorf("apply minted no fresh key:\n%s", got)
	}

	for _, tt := range []struct{ name, request, stderr string }{
		{"a request the folder lacks is bad input", "ack-system/nope", "no CredentialsRequest ack-system/nope in"},
		{"a request not NAMESPACE/NAME is bad input", "nope", `--request: "nope": give NAMESPACE/NAME`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, stderr, code := in.revoke(t, "--request", tt.request, "-f", filepath.Join("..", "..", "examples", "ack-s3")); code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, %s", code, stderr)
			}
		})
	}
}

// TestRevokeBrokerRequestInFolder: `leash revoke --request` on a request of
// a folder in Broker mode puts the session deny on the role leash apply
// made for it, as for a role STS mode makes.
func TestRevokeBrokerRequestInFolder(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	data := filepath.Dir(in.adminFile)
	broker, err := in.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("the-broker")})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "examples", "broker")
	apply := []string{"apply", "-f", dir, "--endpoint", in.l.URL, "--data", data, "--out", filepath.Join(t.TempDir(), "secrets"),
		"--broker-principal", aws.ToString(broker.User.Arn)}
	stdout, stderr, code := run(t, apply...)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	roles, err := in.admin.ListRoles(ctx, &iam.ListRolesInput{PathPrefix: aws.String("/leash/")})
	if err != nil || len(roles.Roles) != 1 {
		t.Fatalf("roles made: %v, %v", roles, err)
	}
	role := aws.ToString(roles.Roles[0].RoleName)
	stdout, stderr, code = in.revoke(t, "--request", "reports/report-exporter", "-f", dir)
	if code != 0 || !strings.Contains(stdout, aws.ToString(roles.Roles[0].Arn)) {
		t.Fatalf("revoke --request -f: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := in.state(t, nil, []string{role}); !strings.Contains(got, revoke.PolicyName) {
		t.Errorf("the Broker request's role after revoke has no %s:\n%s", revoke.PolicyName, got)
	}
}
