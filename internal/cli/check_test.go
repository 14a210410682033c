package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// writePolicy writes a policy document into dir and returns its path.
func writePolicy(t *testing.T, dir, name, doc string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// findingIDs are the IDs of check's text output, one finding a line.
func findingIDs(out string) []string {
	var ids []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[1], "LEASH-") {
			ids = append(ids, f[1])
		}
	}
	return ids
}

func hasID(ids []string, id string) bool {
	for _, i := range ids {
		if i == id {
			return true
		}
	}
	return false
}

// The first seed's master node role, pruned to what remains once the cloud
// controller manager has credentials of its own.
const prunedNodeRole = `{"Version":"2012-10-17","Statement":[
  {"Sid":"Describe","Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}]}`

// TestCheckOnlyPrunedNodeRole is the first seed's assertion: the pruned node
// role passes --only 'ec2:Describe*', and the same role with a second
// statement fails it.
func TestCheckOnlyPrunedNodeRole(t *testing.T) {
	dir := t.TempDir()
	pruned := writePolicy(t, dir, "node-role.json", prunedNodeRole)
	out, stderr, code := run(t, "check", "--only", "ec2:Describe*", pruned)
	if code != 0 || !strings.Contains(out, "no findings in 1 policy") {
		t.Errorf("pruned role: exit %d\n%s%s", code, out, stderr)
	}

	wider := writePolicy(t, dir, "node-role-wider.json", `{"Version":"2012-10-17","Statement":[
  {"Sid":"Describe","Effect":"Allow","Action":"ec2:Describe*","Resource":"*"},
  {"Sid":"Bootstrap","Effect":"Allow","Action":["s3:GetObject","ec2:DescribeTags"],"Resource":"arn:aws:s3:::cluster-bootstrap/*"}]}`)
	// The second statement is no finding by itself: the exit status is the
	// assertion's.
	if out, stderr, code := run(t, "check", wider); code != 0 {
		t.Fatalf("without --only: exit %d\n%s%s", code, out, stderr)
	}
	out, stderr, code = run(t, "check", "--only", "ec2:Describe*", wider)
	if code != 1 || !hasID(findingIDs(out), "LEASH-ONLY-001") {
		t.Fatalf("second statement: exit %d, want 1 with LEASH-ONLY-001\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "high LEASH-ONLY-001 "+wider+" Statement[1]") || !strings.Contains(out, "s3:GetObject") {
		t.Errorf("the finding does not name the second statement and s3:GetObject:\n%s", out)
	}
	// Patterns may be repeated or separated with commas.
	if out, stderr, code := run(t, "check", "--only", "ec2:Describe*,s3:GetObject", wider); code != 0 {
		t.Errorf("--only ec2:Describe*,s3:GetObject: exit %d\n%s%s", code, out, stderr)
	}
}

// TestCheckKropsCISelfEscalation is the second seed's CI role: without its
// self-deny guard it can widen itself (critical); with the guard it cannot,
// and the guard is reported as working.
func TestCheckKropsCISelfEscalation(t *testing.T) {
	dir := filepath.Join("..", "..", "analyze", "testdata", "krops-ci-e2e")
	mgmt, guard := filepath.Join(dir, "ack-mgmt.json"), filepath.Join(dir, "self-deny.json")
	principal := "--principal=arn:aws:iam::120392301094:role/krops-ci-e2e"

	out, stderr, code := run(t, "check", principal, "--fail-on", "critical", mgmt)
	ids := findingIDs(out)
	if code != 1 || !hasID(ids, "LEASH-ESC-SELF") {
		t.Fatalf("without the guard: exit %d, want 1 with LEASH-ESC-SELF\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "critical LEASH-ESC-SELF "+mgmt+" Statement[0]: iam:PutRolePolicy") {
		t.Errorf("want iam:PutRolePolicy on itself as critical, from the role-management statement:\n%s", out)
	}

	out, stderr, code = run(t, "check", principal, "--fail-on", "critical", mgmt, guard)
	ids = findingIDs(out)
	if code != 0 || hasID(ids, "LEASH-ESC-SELF") || !hasID(ids, "LEASH-ESC-SELF-GUARD") {
		t.Errorf("with the guard: exit %d, want 0, no LEASH-ESC-SELF and the guard reported\n%s%s", code, out, stderr)
	}
	// What remains is the name-scoped role and user management the seed
	// accepts: high, so the default --fail-on high still fails.
	if _, _, code := run(t, "check", principal, mgmt, guard); code != 1 {
		t.Errorf("with the guard and --fail-on high: exit %d, want 1 for the krops-* role lifecycle findings", code)
	}
	// Without a principal there is no "itself" to escalate to.
	if out, _, _ := run(t, "check", mgmt); hasID(findingIDs(out), "LEASH-ESC-SELF") {
		t.Errorf("self-escalation reported with no principal:\n%s", out)
	}
}

// TestCheckAssertions pins the flags' wiring and exit status; what the
// assertions find is pinned in analyze's TestCheckAssertions.
func TestCheckAssertions(t *testing.T) {
	dir := t.TempDir()
	createUser := writePolicy(t, dir, "create-user.json", `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"iam:CreateUser","Resource":"*"}]}`)
	kropsUsers := writePolicy(t, dir, "krops-users.json", `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"},
  {"Sid":"Users","Effect":"Allow","Action":["iam:CreateUser","iam:GetUser"],"Resource":"arn:aws:iam::*:user/krops-*"}]}`)

	tests := []struct {
		name   string
		args   []string
		code   int
		want   []string // lines of the output start with these
		wantIn []string // and it holds these
	}{
		{"a failed --must-deny exits 1", []string{"--must-deny", "iam:CreateUser", createUser}, 1,
			[]string{"high LEASH-ASSERT-DENY " + createUser + " Statement[0]: --must-deny iam:CreateUser fails"}, nil},
		{"a failed --must-allow exits 1", []string{"--must-allow", "iam:GetUser", kropsUsers}, 1,
			[]string{"high LEASH-ASSERT-ALLOW " + kropsUsers + ": --must-allow iam:GetUser fails"}, nil},
		{"--must-allow and --must-deny that hold exit 0", []string{"--must-allow", "iam:CreateUser@arn:aws:iam::123456789012:user/krops-ci",
			"--must-deny", "iam:CreateUser@arn:aws:iam::123456789012:user/alice", kropsUsers}, 0, nil, nil},
		{"assertions are about --principal", []string{"--principal", "arn:aws:iam::123456789012:user/krops-ci", "--must-allow", "ec2:DescribeInstances", kropsUsers}, 0, nil, nil},
		{"a failed assertion below --fail-on does not fail the run", []string{"--fail-on", "critical", "--must-deny", "iam:CreateUser", createUser}, 0,
			[]string{"high LEASH-ASSERT-DENY"}, []string{"0 at or above --fail-on critical"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"check"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, stderr)
			}
			for _, w := range tt.want {
				if !strings.HasPrefix(out, w) && !strings.Contains(out, "\n"+w) {
					t.Errorf("no line starts with %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestCheckBadInput(t *testing.T) {
	dir := t.TempDir()
	p := writePolicy(t, dir, "p.json", prunedNodeRole)
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no policies", nil, "give policy files or folders to check, or a principal"},
		{"a missing file", []string{filepath.Join(dir, "missing.json")}, "missing.json"},
		{"an unknown output", []string{"--output", "xml", p}, `--output "xml": use text, json or sarif`},
		{"an unknown severity", []string{"--fail-on", "severe", p}, `--fail-on: severity "severe"`},
		{"an --only pattern that matches nothing", []string{"--only", "ec2:Descibe*", p}, `--only: no action matches "ec2:Descibe*"`},
		{"a misspelt --must-deny action", []string{"--must-deny", "iam:CreateUsr", p}, "did you mean iam:CreateUser?"},
		{"nothing after @", []string{"--must-allow", "s3:GetObject@", p}, "nothing after @"},
		{"both --user and --role", []string{"--user", "a", "--role", "b"}, "give one principal"},
		{"--endpoint without a principal", []string{"--endpoint", "http://127.0.0.1:1", p}, "--endpoint, --credentials-file and --profile read IAM for --user or --role"},
		{"--user without credentials", []string{"--user", "alice"}, "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"},
		{"a credentials file without a key", []string{"--user", "alice", "--credentials-file", writePolicy(t, dir, "creds", "[default]\nregion = eu-north-1\n")}, "no [default] profile with aws_access_key_id"},
		{"a role ARN for --user", []string{"--user", "arn:aws:iam::123456789012:role/ci"}, "not an IAM user ARN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"check"}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) || out != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want 2 and %q", code, stderr, out, tt.want)
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	p := writePolicy(t, dir, "p.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:CreateUser","Resource":"*"}]}`)
	out, stderr, code := run(t, "check", "--output", "json", "--must-deny", "iam:CreateUser", p)
	var got struct {
		Findings []struct{ ID, Severity, Policy, Path, Message, Fix string }
		Summary  struct {
			Policies, Findings, Failing int
			FailOn                      string
			BySeverity                  map[string]int
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", code, err, out, stderr)
	}
	if code != 1 || got.Summary.Policies != 1 || got.Summary.FailOn != "high" || got.Summary.Findings != len(got.Findings) || got.Summary.Failing < 1 {
		t.Errorf("exit %d, summary %+v", code, got.Summary)
	}
	found := false
	for _, f := range got.Findings {
		if f.ID == "LEASH-ASSERT-DENY" {
			found = f.Severity == "high" && f.Policy == p && f.Path == "Statement[0]" && f.Message != "" && f.Fix != ""
		}
	}
	if !found {
		t.Errorf("no complete LEASH-ASSERT-DENY finding in %+v", got.Findings)
	}

	clean := writePolicy(t, dir, "clean.json", prunedNodeRole)
	out, _, code = run(t, "check", "--output", "json", clean)
	if code != 0 || !strings.Contains(out, `"findings": []`) {
		t.Errorf("a clean policy: exit %d, want an empty list:\n%s", code, out)
	}
}

// TestCheckSARIF pins --output sarif's wiring: the policy files are the
// results' locations, relative to the current folder. The format itself is
// pinned in analyze's TestWriteSARIF.
func TestCheckSARIF(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.MkdirAll("policies", 0o755); err != nil {
		t.Fatal(err)
	}
	writePolicy(t, "policies", "p.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:CreateUser","Resource":"*"}]}`)
	out, stderr, code := run(t, "check", "--output", "sarif", "--must-deny", "iam:CreateUser", "policies")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	found := false
	for _, r := range log.Runs[0].Results {
		if r.RuleID == "LEASH-ASSERT-DENY" {
			found = len(r.Locations) == 1 && r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "policies/p.json"
		}
	}
	if log.Version != "2.1.0" || !found {
		t.Errorf("want SARIF 2.1.0 with LEASH-ASSERT-DENY at policies/p.json:\n%s", out)
	}
}

// TestCheckLivePrincipal reads a user's and a role's policies from leash
// local, as from IAM, and finds each able to widen itself.
func TestCheckLivePrincipal(t *testing.T) {
	ctx := context.Background()
	l, err := localaws.StartLoopback(localaws.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	creds := l.AdminCredentialsPath()
	key, err := iamclient.KeyFromFile(creds)
	if err != nil {
		t.Fatal(err)
	}
	admin := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(l.URL), Credentials: key.Provider()})
	account := l.AccountID()

	// A user whose inline policy lets it write policies on itself and read
	// artifacts, with a read-only managed policy attached and a boundary
	// that leaves out the artifacts.
	user := "ci-bot"
	userARN := "arn:aws:iam::" + account + ":user/" + user
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(user)}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String("self-service"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Sid":"OwnPolicies","Effect":"Allow","Action":"iam:PutUserPolicy","Resource":"` + userARN + `"},
  {"Sid":"Artifacts","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::ci-artifacts/*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	readOnly, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("describe"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String(user), PolicyArn: readOnly.Policy.Arn}); err != nil {
		t.Fatal(err)
	}
	boundary, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("reads-only"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:Describe*","iam:Get*","iam:PutUserPolicy"],"Resource":"*"}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String(user), PermissionsBoundary: boundary.Policy.Arn}); err != nil {
		t.Fatal(err)
	}

	live := []string{"check", "--endpoint", l.URL, "--credentials-file", creds}
	out, stderr, code := run(t, append(live, "--user", user)...)
	if code != 1 || !strings.Contains(out, "critical LEASH-ESC-SELF self-service Statement[0]: iam:PutUserPolicy") || !strings.Contains(out, userARN) {
		t.Fatalf("--user %s: exit %d, want 1 and self-escalation through iam:PutUserPolicy on %s\n%s%s", user, code, userARN, out, stderr)
	}
	if !strings.Contains(out, "in 3 policies") {
		t.Errorf("want the inline, the attached and the boundary policy reviewed:\n%s", out)
	}
	// The boundary caps the assertions as it caps IAM: the describe
	// actions pass it, the artifacts do not.
	artifact := "s3:GetObject@arn:aws:s3:::ci-artifacts/build.tgz"
	out, stderr, code = run(t, append(live, "--user", userARN, "--fail-on", "critical", "--must-allow", "ec2:DescribeInstances",
		"--must-allow", artifact)...)
	if code != 1 || strings.Contains(out, "--must-allow ec2:DescribeInstances fails") ||
		!strings.Contains(out, "--must-allow "+artifact+" fails") || !strings.Contains(out, "permissions boundary does not allow") {
		t.Errorf("assertions through the boundary: exit %d\n%s%s", code, out, stderr)
	}

	// A role may write its own inline policies; its ARN is built from the
	// caller's account.
	role := "deployer"
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(role),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:root"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String("roles"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:PutRolePolicy","Resource":"arn:aws:iam::*:role/deploy*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run(t, append(live, "--role", role)...)
	roleARN := "arn:aws:iam::" + account + ":role/" + role
	if code != 1 || !regexp.MustCompile(`(?m)^critical LEASH-ESC-SELF roles Statement\[0\]: iam:PutRolePolicy .*`+regexp.QuoteMeta(roleARN)).MatchString(out) {
		t.Errorf("--role %s: exit %d, want self-escalation on %s\n%s%s", role, code, roleARN, out, stderr)
	}

	if _, stderr, code := run(t, append(live, "--user", "nobody")...); code != 2 || !strings.Contains(stderr, "--user nobody: IAM has no such user") {
		t.Errorf("an unknown user: exit %d, %q", code, stderr)
	}
}
