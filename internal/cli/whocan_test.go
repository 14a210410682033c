package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

const (
	whoCanSnapshot = "../../examples/check/account.json"
	whoCanObject   = "arn:aws:s3:::reports/q1.csv"
)

func TestWhoCanBadInput(t *testing.T) {
	notSnapshot := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(notSnapshot, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"an unknown action gets a did-you-mean from the catalog",
			[]string{"s3:GetObjekt", "--account", whoCanSnapshot}, []string{`ACTION: "s3:GetObjekt" is not an action AWS knows; did you mean s3:GetObject?`}},
		{"an unknown service too",
			[]string{"s4:GetObject", "--account", whoCanSnapshot}, []string{"is not an action AWS knows", "did you mean s3:GetObject"}},
		{"a pattern is not one action",
			[]string{"s3:Get*", "--account", whoCanSnapshot}, []string{"give one action as service:Action"}},
		{"a resource ARN of another service than the action's",
			[]string{"s3:GetObject", "arn:aws:iam::111122223333:role/x", "--account", whoCanSnapshot}, []string{`RESOURCE: "arn:aws:iam::111122223333:role/x" is not a resource s3:GetObject acts on`, "object (arn:${Partition}:s3:::${BucketName}/${ObjectName})"}},
		{"a resource type the action does not act on",
			[]string{"s3:GetObject", "arn:aws:s3:::reports", "--account", whoCanSnapshot}, []string{"is not a resource s3:GetObject acts on"}},
		{"a resource for an action that takes only *",
			[]string{"iam:ListUsers", "arn:aws:iam::111122223333:user/x", "--account", whoCanSnapshot}, []string{"iam:ListUsers acts on no resource type", "leave RESOURCE out"}},
		{"a resource that is not an ARN",
			[]string{"s3:GetObject", "reports/q1.csv", "--account", whoCanSnapshot}, []string{"is not a resource ARN"}},
		{"a snapshot that is a policy document",
			[]string{"s3:GetObject", "--account", notSnapshot}, []string{"policy.json: is a policy document", "aws iam get-account-authorization-details > account.json"}},
		{"a snapshot file that does not exist",
			[]string{"s3:GetObject", "--account", "no-such.json"}, []string{"no-such.json: cannot read (given to --account)"}},
		{"an unknown output",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--output", "yaml"}, []string{`--output: "yaml": use text, json or dot`}},
		{"a snapshot and live access at once",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--endpoint", "http://127.0.0.1:1"}, []string{"--account: reads a snapshot file", "give one or the other"}},
		{"a context flag without =",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--context", "aws:SourceIp"}, []string{"--context", `has no "="`}},
		{"an SCP file that does not exist",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--scp", "missing-scp.json"}, []string{"missing-scp.json: no such file (given to --scp)"}},
		{"no action",
			[]string{"--account", whoCanSnapshot}, []string{"give the ACTION to ask about"}},
		{"a negative step bound",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--escalation", "--max-steps", "-1"}, []string{"--max-steps: -1: give a number of steps, 1 or more, or 0 for no bound"}},
		{"a negative time limit",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--escalation", "--time-limit", "-5s"}, []string{"--time-limit: -5s: give a duration"}},
		{"a bound without --escalation",
			[]string{"s3:GetObject", "--account", whoCanSnapshot, "--max-steps", "2"}, []string{"bound the escalation search; add --escalation"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"who-can"}, c.args...)...)
			if code != ExitBadInput {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitBadInput, out, stderr)
			}
			if out != "" {
				t.Errorf("printed an answer on bad input: %s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
		})
	}
}

func TestWhoCanExitStatusAndOutputs(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
		refuse   []string
	}{
		{"someone can: exit 0, one principal a line",
			[]string{"s3:GetObject", whoCanObject, "--account", whoCanSnapshot}, ExitOK,
			[]string{"arn:aws:iam::111122223333:user/bob\tuser\tAllowed by group devs's managed policy arn:aws:iam::111122223333:policy/ReportsRead Statement[0] \"Reports\"\n"},
			[]string{"user/carol", "user/alice"}},
		{"an SCP that denies: nobody, exit 1",
			[]string{"s3:GetObject", whoCanObject, "--account", whoCanSnapshot, "--scp", "../whocan/testdata/scp-deny-s3.json", "--escalation"}, ExitNo,
			[]string{"no principal can s3:GetObject on " + whoCanObject}, nil},
		{"the bucket policy's role session is listed",
			[]string{"s3:GetObject", whoCanObject, "--account", whoCanSnapshot, "--resource-policy", "../whocan/testdata/bucket-policy.json"}, ExitOK,
			[]string{"arn:aws:sts::111122223333:assumed-role/reader/build-42\trole-session\tAllowed by resource policy bucket-policy Statement[0] \"BuildReads\""}, nil},
		{"--escalation prints the shortest path of alice",
			[]string{"s3:GetObject", whoCanObject, "--account", whoCanSnapshot, "--escalation"}, ExitOK,
			[]string{"arn:aws:iam::111122223333:user/alice\tuser\tvia 4 step(s)\n  user/alice may sts:AssumeRole role/a (trust: Statement[0]) → role/a may sts:AssumeRole role/b"}, nil},
		{"--output dot draws the paths",
			[]string{"s3:GetObject", whoCanObject, "--account", whoCanSnapshot, "--escalation", "--output", "dot"}, ExitOK,
			[]string{"digraph whocan {", `"arn:aws:iam::111122223333:user/erin" -> "arn:aws:iam::111122223333:user/admin" [label="iam:CreateAccessKey"];`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"who-can"}, c.args...)...)
			if code != c.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.wantCode, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, r := range c.refuse {
				if strings.Contains(out, r) {
					t.Errorf("output names %q, who cannot:\n%s", r, out)
				}
			}
		})
	}
}

// whoCanJSON is the stable JSON shape, as a script reads it.
type whoCanJSON struct {
	Action     string `json:"action"`
	Resource   string `json:"resource"`
	Principals []struct {
		ARN        string   `json:"arn"`
		Kind       string   `json:"kind"`
		Decision   string   `json:"decision"`
		Incomplete []string `json:"incomplete"`
		Statements []struct {
			Type   string `json:"type"`
			Policy string `json:"policy"`
			Via    string `json:"via"`
			Index  int    `json:"statementIndex"`
		} `json:"statements"`
		Path []struct {
			From, To, Action string
		} `json:"path"`
	} `json:"principals"`
}

func TestWhoCanJSONFromStdin(t *testing.T) {
	data, err := os.ReadFile("../whocan/testdata/account-encoded-pages.json")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"who-can", "sts:AssumeRole", "arn:aws:iam::111122223333:role/a", "--account", "-", "--output", "json"}, bytes.NewReader(data), &out, &errOut)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got whoCanJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// frank's group and a managed policy of his are not in the snapshot,
	// but role a's trust policy names alice alone: nothing they say could
	// let him in, and he is not listed.
	if len(got.Principals) != 1 {
		t.Fatalf("principals %+v, want alice alone", got.Principals)
	}
	// iam:CreateUser, which a missing policy could allow: frank is listed,
	// with the two policies the snapshot lacks.
	out.Reset()
	if code := Run(context.Background(), []string{"who-can", "iam:CreateUser", "--account", "-", "--output", "json"}, bytes.NewReader(data), &out, &errOut); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var admins whoCanJSON
	if err := json.Unmarshal(out.Bytes(), &admins); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	frank := admins.Principals[len(admins.Principals)-1]
	if frank.ARN != "arn:aws:iam::111122223333:user/frank" || frank.Decision != "ImplicitDeny" || len(frank.Incomplete) != 2 {
		t.Errorf("last principal %+v, want frank, ImplicitDeny, with his two missing policies", frank)
	}
	p := got.Principals[0]
	if p.ARN != "arn:aws:iam::111122223333:user/alice" || p.Kind != "user" || p.Decision != "Allowed" || len(p.Statements) != 2 ||
		p.Statements[0].Type != "inline" || p.Statements[0].Policy != "assume-a" || p.Statements[0].Via != "user alice" ||
		p.Statements[1].Policy != "trust policy of role a" {
		t.Errorf("alice = %+v", p)
	}
}

func TestCheckAccountChainFindings(t *testing.T) {
	out, stderr, code := run(t, "check", "--account", whoCanSnapshot, "--user", "alice", "--output", "json")
	if code != ExitNo {
		t.Fatalf("exit %d, want %d (critical chain)\n%s%s", code, ExitNo, out, stderr)
	}
	var got struct {
		Findings []struct{ ID, Severity, Policy, Path, Message string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, f := range got.Findings {
		if f.ID == "LEASH-ESC-CHAIN" {
			chain = append(chain, f.Severity+" "+f.Policy+" "+f.Path+" "+f.Message[:strings.Index(f.Message, ": user/alice may")])
		}
	}
	want := []string{
		"critical assume-a Statement[0] reaches any permission in 4 steps through other principals",
		"high assume-a Statement[0] can act as role arn:aws:iam::111122223333:role/a in 1 step(s), with its permissions",
		"high assume-a Statement[0] can act as role arn:aws:iam::111122223333:role/b in 2 step(s), with its permissions",
		"high assume-a Statement[0] can act as role arn:aws:iam::111122223333:role/c in 3 step(s), with its permissions",
	}
	if strings.Join(chain, "\n") != strings.Join(want, "\n") {
		t.Errorf("chain findings:\n%s\nwant:\n%s", strings.Join(chain, "\n"), strings.Join(want, "\n"))
	}
	// An SCP over the account that denies sts:AssumeRole breaks every chain
	// at its first step; the snapshot holds the boundary, so --boundary is
	// refused beside --account.
	dir := t.TempDir()
	denyAssume := filepath.Join(dir, "deny-assume.json")
	if err := os.WriteFile(denyAssume, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"sts:AssumeRole","Resource":"*"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, stderr, code := run(t, "check", "--account", whoCanSnapshot, "--user", "alice", "--scp", denyAssume); strings.Contains(out, "LEASH-ESC-CHAIN") || code == ExitBadInput {
		t.Errorf("--scp denying sts:AssumeRole: exit %d, chain findings remain:\n%s%s", code, out, stderr)
	}
	if _, stderr, code := run(t, "check", "--account", whoCanSnapshot, "--user", "alice", "--boundary", denyAssume); code != ExitBadInput || !strings.Contains(stderr, "drop --boundary") {
		t.Errorf("--boundary beside --account: exit %d %q", code, stderr)
	}
	if _, stderr, code := run(t, "check", "--account", whoCanSnapshot, "--role", "nobody"); code != ExitBadInput || !strings.Contains(stderr, "--role nobody: the snapshot") {
		t.Errorf("unknown role: exit %d %q", code, stderr)
	}
	if _, stderr, code := run(t, "check", "--account", whoCanSnapshot); code != ExitBadInput || !strings.Contains(stderr, "give --principal ARN, --user NAME or --role NAME") {
		t.Errorf("no principal: exit %d %q", code, stderr)
	}
}

// TestWhoCanLiveAccount builds an account in leash local through IAM and
// asks who-can over --endpoint, which reads it with
// iam:GetAccountAuthorizationDetails.
func TestWhoCanLiveAccount(t *testing.T) {
	l := localtest.Start(t, localaws.Config{})
	admin := l.IAM(nil)
	ctx := context.Background()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acct := l.AccountID()
	doc := func(s string) *string { return aws.String(s) }
	must(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("assume-deploy"),
		PolicyDocument: doc(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::` + acct + `:role/deploy"}]}`)}))
	pol, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("ReportsRead"),
		PolicyDocument: doc(`{"Version":"2012-10-17","Statement":[{"Sid":"Reports","Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::reports/*"}]}`)})
	must(pol, err)
	must(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bob")}))
	must(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("bob"), PolicyArn: pol.Policy.Arn}))
	must(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("deploy"),
		AssumeRolePolicyDocument: doc(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + acct + `:user/alice"},"Action":"sts:AssumeRole"}]}`)}))
	must(admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("deploy"), PolicyName: aws.String("read-reports"),
		PolicyDocument: doc(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)}))

	access := []string{"--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath()}
	out, stderr, code := run(t, append([]string{"who-can", "s3:GetObject", whoCanObject, "--escalation", "--output", "json"}, access...)...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	var got whoCanJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, p := range got.Principals {
		var how []string
		for _, s := range p.Statements {
			how = append(how, s.Type+" "+s.Policy+" via "+s.Via)
		}
		for _, s := range p.Path {
			how = append(how, s.Action+" "+s.To)
		}
		rows[p.ARN] = p.Decision + ": " + strings.Join(how, "; ")
	}
	arn := func(s string) string { return "arn:aws:iam::" + acct + ":" + s }
	want := map[string]string{
		arn("user/bob"):    "Allowed: managed " + aws.ToString(pol.Policy.Arn) + " via user bob",
		arn("role/deploy"): "Allowed: inline read-reports via role deploy",
		arn("user/alice"):  "ImplicitDeny: inline read-reports via role deploy; sts:AssumeRole " + arn("role/deploy"),
	}
	for k, w := range want {
		if rows[k] != w {
			t.Errorf("%s: %q, want %q", k, rows[k], w)
		}
	}
	for k, v := range rows {
		if _, ok := want[k]; !ok && !strings.Contains(v, "AdministratorAccess") && !strings.Contains(k, "admin") {
			t.Errorf("unexpected principal %s: %s", k, v)
		}
	}
}
