package simulate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"leash.dev/leash/internal/cli"
	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/policy"
)

// leash runs the leash command line in-process, as main does.
func leash(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

const td = "testdata/"

func TestSimulateExitStatusAndOutput(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout []string
	}{
		{
			name:     "an action the identity policy allows exits 0",
			args:     []string{"--identity", td + "allow-reports-read.json", "--action", "s3:GetObject", "--resource", "arn:aws:s3:::reports/q1.csv"},
			wantCode: 0, wantStdout: []string{"DECISION", "ACTION", "RESOURCE", "Allowed", "s3:GetObject", "arn:aws:s3:::reports/q1.csv"},
		},
		{
			name:     "an action no policy allows exits 1 with ImplicitDeny",
			args:     []string{"--identity", td + "allow-reports-read.json", "--action", "s3:PutObject", "--resource", "arn:aws:s3:::reports/q1.csv"},
			wantCode: 1, wantStdout: []string{"ImplicitDeny", "s3:PutObject"},
		},
		{
			name:     "a matching Deny statement exits 1 with ExplicitDeny",
			args:     []string{"--identity", td + "allow-reports-read.json", "--identity", td + "deny-delete.json", "--action", "s3:DeleteObject", "--resource", "arn:aws:s3:::reports/q1.csv"},
			wantCode: 1, wantStdout: []string{"ExplicitDeny", "s3:DeleteObject"},
		},
		{
			name:     "one request per action, in the order given, and any denial exits 1",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--action", "ec2:DescribeVpcs", "--action", "ec2:TerminateInstances"},
			wantCode: 1, wantStdout: []string{"Allowed       ec2:DescribeVpcs", "ImplicitDeny  ec2:TerminateInstances"},
		},
		{
			name:     "the resource defaults to *",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--action", "ec2:DescribeVpcs"},
			wantCode: 0, wantStdout: []string{"ec2:DescribeVpcs  *"},
		},
		{
			name:     "the principal column appears when a principal is given",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--action", "ec2:DescribeVpcs", "--principal", "arn:aws:iam::111122223333:user/alice"},
			wantCode: 0, wantStdout: []string{"PRINCIPAL", "arn:aws:iam::111122223333:user/alice"},
		},
		{
			name:     "--explain names the allowing statement under the row",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--action", "ec2:DescribeVpcs", "--explain"},
			wantCode: 0, wantStdout: []string{"\n    allowed by identity policy \"allow-ec2-describe\" Statement[0] (Sid \"Describe\")\n"},
		},
		{
			name:     "--explain names the denying statement under the row",
			args:     []string{"--identity", td + "allow-reports-read.json", "--identity", td + "deny-delete.json", "--action", "s3:DeleteObject", "--resource", "arn:aws:s3:::reports/q1.csv", "--explain"},
			wantCode: 1, wantStdout: []string{"\n    explicitly denied by identity policy \"deny-delete\" Statement[0] (Sid \"NeverDelete\")\n"},
		},
		{
			name:     "--explain says what is missing for an implicit deny",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--action", "iam:CreateUser", "--explain"},
			wantCode: 1, wantStdout: []string{"\n    no identity-based policy statement allows the action on the resource\n"},
		},
		{
			name:     "an SCP Deny at the second level is an explicit deny",
			args:     []string{"--identity", td + "allow-reports-read.json", "--scp", td + "full-access.json", "--scp", td + "full-access.json," + td + "deny-s3-delete-scp.json", "--action", "s3:DeleteObject", "--resource", "arn:aws:s3:::reports/q1.csv", "--explain"},
			wantCode: 1, wantStdout: []string{"ExplicitDeny", `scp policy "deny-s3-delete-scp"`},
		},
		{
			name:     "an SCP level without an allow denies implicitly",
			args:     []string{"--identity", td + "allow-reports-read.json", "--scp", td + "full-access.json", "--scp", td + "deny-s3-delete-scp.json", "--action", "s3:GetObject", "--resource", "arn:aws:s3:::reports/q1.csv", "--explain"},
			wantCode: 1, wantStdout: []string{"ImplicitDeny", "organization level 1", `"deny-s3-delete-scp"`},
		},
		{
			name:     "an RCP Deny is an explicit deny",
			args:     []string{"--identity", td + "allow-reports-read.json", "--rcp", td + "rcp-deny-delete.json", "--action", "s3:DeleteObject", "--resource", "arn:aws:s3:::reports/q1.csv", "--explain"},
			wantCode: 1, wantStdout: []string{"ExplicitDeny", `rcp policy "rcp-deny-delete"`},
		},
		{
			name:     "the permissions boundary limits what the identity policy allows",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--boundary", td + "s3-only-boundary.json", "--action", "ec2:DescribeVpcs", "--explain"},
			wantCode: 1, wantStdout: []string{"ImplicitDeny", "permissions boundary does not allow"},
		},
		{
			name:     "the session policy limits what the identity policy allows",
			args:     []string{"--identity", td + "allow-ec2-describe.json", "--session", td + "s3-only-boundary.json", "--action", "ec2:DescribeVpcs", "--explain"},
			wantCode: 1, wantStdout: []string{"ImplicitDeny", "session policy does not allow"},
		},
		{
			name: "a resource policy in the same account that names the caller allows on its own",
			args: []string{"--resource-policy", td + "reports-bucket-policy.json", "--action", "s3:GetObject", "--resource", "arn:aws:s3:::reports/q1.csv",
				"--resource-account", "444455556666", "--principal", "arn:aws:iam::444455556666:role/auditor"},
			wantCode: 0, wantStdout: []string{"Allowed"},
		},
		{
			name: "a trust policy needs no Resource element for sts:AssumeRole",
			args: []string{"--resource-policy", td + "role-trust.json", "--action", "sts:AssumeRole", "--resource", "arn:aws:iam::111122223333:role/deploy",
				"--principal", "arn:aws:sts::111122223333:assumed-role/ci/run-1"},
			wantCode: 0, wantStdout: []string{"Allowed", "sts:AssumeRole"},
		},
		{
			name:     "--request reads one request object",
			args:     []string{"--request", td + "request-one.json"},
			wantCode: 0, wantStdout: []string{"Allowed", "s3:GetObject", "arn:aws:iam::111122223333:user/alice"},
		},
		{
			name:     "--request reads an array of requests",
			args:     []string{"--request", td + "requests-array.json"},
			wantCode: 1, wantStdout: []string{"Allowed       s3:GetObject", "ExplicitDeny  s3:DeleteObject"},
		},
		{
			name:     "--request reads JSON Lines",
			args:     []string{"--request", td + "requests.jsonl"},
			wantCode: 1, wantStdout: []string{"Allowed       ec2:DescribeInstances", "ImplicitDeny  ec2:TerminateInstances", "Allowed       ec2:DescribeVpcs"},
		},
		{
			name:     "--request - reads stdin",
			args:     []string{"--request", "-"},
			stdin:    `{"action": "ec2:DescribeVpcs", "identityPolicies": [{"name": "d", "document": {"Statement": {"Effect": "Allow", "Action": "ec2:Describe*", "Resource": "*"}}}]}`,
			wantCode: 0, wantStdout: []string{"Allowed", "ec2:DescribeVpcs"},
		},
		{
			name:     "--request combines with --explain and --output",
			args:     []string{"--request", td + "request-one.json", "--explain", "--output", "table"},
			wantCode: 0, wantStdout: []string{`allowed by identity policy "reports-read" Statement[0]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := leash(t, tt.stdin, append([]string{"simulate"}, tt.args...)...)
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.wantCode, stdout, stderr)
			}
			if stderr != "" {
				t.Errorf("stderr is not empty: %q", stderr)
			}
			for _, want := range tt.wantStdout {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}

func TestSimulateBadInputExits2AndPrintsNothing(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantStderr []string
	}{
		{
			name:       "an unknown flag names the flag and the help",
			args:       []string{"--nope"},
			wantStderr: []string{"leash simulate: unknown flag: --nope", `see "leash simulate --help"`},
		},
		{
			name:       "a positional argument says to use flags",
			args:       []string{"policy.json"},
			wantStderr: []string{`leash simulate: unexpected argument "policy.json"`, "--identity FILE"},
		},
		{
			name:       "a missing policy file names the file and the flag",
			args:       []string{"--identity", td + "missing.json", "--action", "s3:GetObject"},
			wantStderr: []string{"leash simulate: testdata/missing.json: no such file (given to --identity); check the path"},
		},
		{
			name:       "a policy that is not JSON names the file, line and column",
			args:       []string{"--identity", td + "invalid-json.json", "--action", "s3:GetObject"},
			wantStderr: []string{"leash simulate: testdata/invalid-json.json: not valid JSON", "line 5, column"},
		},
		{
			name:       "an invalid Effect names the file, the JSON path and the accepted values",
			args:       []string{"--identity", td + "bad-effect.json", "--action", "s3:GetObject"},
			wantStderr: []string{`leash simulate: testdata/bad-effect.json: Statement[2].Effect: must be "Allow" or "Deny", got "allow "`},
		},
		{
			name:       "a condition value of the wrong type names the file and the statement",
			args:       []string{"--identity", td + "bad-condition-value.json", "--action", "s3:GetObject"},
			wantStderr: []string{"leash simulate: testdata/bad-condition-value.json: ", "Statement[0]", "must be a number", `"soon"`},
		},
		{
			name:       "a bad policy is reported even when it comes after good ones",
			args:       []string{"--identity", td + "allow-ec2-describe.json", "--scp", td + "full-access.json", "--scp", td + "full-access.json," + td + "bad-effect.json", "--action", "s3:GetObject"},
			wantStderr: []string{"testdata/bad-effect.json: Statement[2].Effect"},
		},
		{
			name:       "a resource policy without Principal names the file and the statement",
			args:       []string{"--resource-policy", td + "allow-ec2-describe.json", "--action", "ec2:DescribeVpcs"},
			wantStderr: []string{"testdata/allow-ec2-describe.json: Statement[0]: missing Principal"},
		},
		{
			name:       "a trust policy used for a non-STS action needs a Resource",
			args:       []string{"--resource-policy", td + "role-trust.json", "--action", "s3:GetObject"},
			wantStderr: []string{"testdata/role-trust.json: Statement[0]: missing Resource"},
		},
		{
			name:       "an SCP level with an empty file name names --scp",
			args:       []string{"--scp", td + "full-access.json,", "--action", "s3:GetObject"},
			wantStderr: []string{"leash simulate: --scp: ", "has an empty file name"},
		},
		{
			name:       "no --action says to give one",
			args:       []string{"--identity", td + "allow-ec2-describe.json"},
			wantStderr: []string{"leash simulate: --action: missing; give the action to check, such as --action s3:GetObject"},
		},
		{
			name:       "an action without a service prefix names --action",
			args:       []string{"--action", "GetObject"},
			wantStderr: []string{"leash simulate: --action: must be one action as \"service:Action\"", `got "GetObject"`},
		},
		{
			name:       "a resource that is not an ARN names --resource",
			args:       []string{"--action", "s3:GetObject", "--resource", "reports/q1.csv"},
			wantStderr: []string{"leash simulate: --resource: must be \"*\" or an ARN"},
		},
		{
			name:       "a resource account that is not 12 digits names --resource-account",
			args:       []string{"--action", "s3:GetObject", "--resource-account", "1234"},
			wantStderr: []string{"leash simulate: --resource-account: must be a 12-digit account ID"},
		},
		{
			name:       "a principal that is a malformed ARN names --principal",
			args:       []string{"--action", "s3:GetObject", "--principal", "arn:aws:iam"},
			wantStderr: []string{"leash simulate: --principal: must be an ARN"},
		},
		{
			name:       "--context without = shows the key=value form",
			args:       []string{"--action", "s3:GetObject", "--context", "aws:SourceIp"},
			wantStderr: []string{`leash simulate: --context: "aws:SourceIp" has no "="; write key=value`},
		},
		{
			name:       "--context without a key name shows the key=value form",
			args:       []string{"--action", "s3:GetObject", "--context", "=203.0.113.7"},
			wantStderr: []string{`leash simulate: --context: "=203.0.113.7" has no key name`},
		},
		{
			name:       "an unknown --output value lists the formats",
			args:       []string{"--action", "s3:GetObject", "--output", "yaml"},
			wantStderr: []string{`leash simulate: --output: must be "table" or "json", got "yaml"`},
		},
		{
			name:       "--request with policy or action flags names them",
			args:       []string{"--request", td + "request-one.json", "--identity", td + "allow-ec2-describe.json", "--action", "s3:GetObject"},
			wantStderr: []string{"leash simulate: --request: cannot be combined with --identity, --action"},
		},
		{
			name:       "--request with --resource * is still a combination",
			args:       []string{"--request", td + "request-one.json", "--resource", "*"},
			wantStderr: []string{"leash simulate: --request: cannot be combined with --resource"},
		},
		{
			name:       "a missing request file names the file",
			args:       []string{"--request", td + "missing.json"},
			wantStderr: []string{"leash simulate: testdata/missing.json: no such file (given to --request)"},
		},
		{
			name:       "a request file with no requests says what to give",
			args:       []string{"--request", td + "requests-empty.json"},
			wantStderr: []string{"leash simulate: testdata/requests-empty.json: has no requests"},
		},
		{
			name:       "a request that is not JSON names stdin",
			args:       []string{"--request", "-"},
			stdin:      `{"action": `,
			wantStderr: []string{"leash simulate: stdin: ", "not valid JSON"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := leash(t, tt.stdin, append([]string{"simulate"}, tt.args...)...)
			if code != 2 {
				t.Errorf("exit status %d, want 2\nstderr:\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("printed to stdout on bad input:\n%s", stdout)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line:\n%s", stderr)
			}
			for _, want := range tt.wantStderr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

// decodeOutcomes runs leash simulate --output json and decodes its answer.
func decodeOutcomes(t *testing.T, wantCode int, args ...string) []simulate.Outcome {
	t.Helper()
	code, stdout, stderr := leash(t, "", append(append([]string{"simulate"}, args...), "--output", "json")...)
	if code != wantCode {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, wantCode, stdout, stderr)
	}
	var out []simulate.Outcome
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("stdout is not a JSON array of outcomes: %v\n%s", err, stdout)
	}
	return out
}

func decisions(out []simulate.Outcome) []string {
	var d []string
	for _, o := range out {
		d = append(d, o.Decision)
	}
	return d
}

func TestSimulateJSONOutput(t *testing.T) {
	t.Run("one outcome per request in input order, with statements and reasons", func(t *testing.T) {
		out := decodeOutcomes(t, 1, "--identity", td+"allow-reports-read.json", "--identity", td+"deny-delete.json",
			"--action", "s3:GetObject", "--action", "s3:DeleteObject", "--action", "s3:PutObject", "--resource", "arn:aws:s3:::reports/q1.csv")
		if got, want := strings.Join(decisions(out), ","), "Allowed,ExplicitDeny,ImplicitDeny"; got != want {
			t.Fatalf("decisions %s, want %s", got, want)
		}
		if got := out[0].Statements; len(got) != 1 || got[0].Policy != "allow-reports-read" || got[0].Sid != "ReadReports" {
			t.Errorf("allowed outcome's statements = %+v, want the ReadReports statement of allow-reports-read", got)
		}
		if got := out[1].Reasons; len(got) != 1 || got[0].Code != "ExplicitDeny" || got[0].Statement == nil || got[0].Statement.Policy != "deny-delete" {
			t.Errorf("denied outcome's reasons = %+v, want ExplicitDeny by deny-delete", got)
		}
		if got := out[2].Reasons; len(got) == 0 || got[0].Code != "NoAllow" {
			t.Errorf("implicitly denied outcome's reasons = %+v, want NoAllow", got)
		}
	})
	t.Run("every outcome has decision, statements and reasons keys, indented by two spaces", func(t *testing.T) {
		_, stdout, _ := leash(t, "", "simulate", "--identity", td+"allow-ec2-describe.json", "--action", "ec2:DescribeVpcs", "--output", "json")
		var raw []map[string]json.RawMessage
		if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"decision", "action", "resource", "statements", "reasons"} {
			if _, ok := raw[0][key]; !ok {
				t.Errorf("outcome lacks %q: %s", key, stdout)
			}
		}
		if !strings.HasPrefix(stdout, "[\n  {\n    \"") {
			t.Errorf("not indented by two spaces:\n%s", stdout)
		}
	})
	t.Run("--request JSON Lines answers every line in order", func(t *testing.T) {
		out := decodeOutcomes(t, 1, "--request", td+"requests.jsonl")
		if got, want := strings.Join(decisions(out), ","), "Allowed,ImplicitDeny,Allowed"; got != want {
			t.Fatalf("decisions %s, want %s", got, want)
		}
	})
}

func TestSimulateContextFlag(t *testing.T) {
	anyTeam := []string{"--identity", td + "tag-keys-any-team.json", "--action", "ec2:CreateTags"}
	platformOnly := []string{"--identity", td + "team-equals-platform.json", "--action", "s3:GetObject"}
	tests := []struct {
		name         string
		args         []string
		wantDecision string
		// wantValues are the context values the failing condition saw.
		wantValues []string
		wantMulti  bool
	}{
		{
			name:         "ForAnyValue matches when the second of two values matches",
			args:         slices.Concat(anyTeam, []string{"--context", "aws:TagKeys=env", "--context", "aws:TagKeys=team"}),
			wantDecision: "Allowed",
		},
		{
			name:         "ForAnyValue matches when the first of two values matches",
			args:         slices.Concat(anyTeam, []string{"--context", "aws:TagKeys=team", "--context", "aws:TagKeys=env"}),
			wantDecision: "Allowed",
		},
		{
			name:         "ForAnyValue fails when no value matches, and sees every value",
			args:         slices.Concat(anyTeam, []string{"--context", "aws:TagKeys=env", "--context", "aws:TagKeys=owner"}),
			wantDecision: "ImplicitDeny", wantValues: []string{"env", "owner"},
		},
		{
			name:         "key names are case-insensitive, so differently spelled repeats are one key",
			args:         slices.Concat(anyTeam, []string{"--context", "aws:TagKeys=env", "--context", "AWS:tagkeys=team"}),
			wantDecision: "Allowed",
		},
		{
			name:         "StringEquals matches a key given once",
			args:         slices.Concat(platformOnly, []string{"--context", "aws:PrincipalTag/team=platform"}),
			wantDecision: "Allowed",
		},
		{
			name:         "StringEquals fails on a key given twice, which is multivalued",
			args:         slices.Concat(platformOnly, []string{"--context", "aws:PrincipalTag/team=platform", "--context", "aws:PrincipalTag/team=ops"}),
			wantDecision: "ImplicitDeny", wantValues: []string{"platform", "ops"}, wantMulti: true,
		},
		{
			name:         "key= is a single empty value",
			args:         slices.Concat(platformOnly, []string{"--context", "aws:PrincipalTag/team="}),
			wantDecision: "ImplicitDeny", wantValues: []string{""},
		},
		{
			name:         "a value may hold =",
			args:         slices.Concat(platformOnly, []string{"--context", "aws:PrincipalTag/team=platform=x"}),
			wantDecision: "ImplicitDeny", wantValues: []string{"platform=x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode := 1
			if tt.wantDecision == "Allowed" {
				wantCode = 0
			}
			out := decodeOutcomes(t, wantCode, tt.args...)
			if len(out) != 1 || out[0].Decision != tt.wantDecision {
				t.Fatalf("decisions %v, want [%s]", decisions(out), tt.wantDecision)
			}
			if tt.wantValues == nil {
				return
			}
			var cond *policy.ConditionFailure
			for _, r := range out[0].Reasons {
				if r.Condition != nil {
					cond = r.Condition
				}
			}
			if cond == nil {
				t.Fatalf("no condition failure among the reasons: %+v", out[0].Reasons)
			}
			if !slices.Equal(cond.ContextValues, tt.wantValues) {
				t.Errorf("condition saw %q, want %q", cond.ContextValues, tt.wantValues)
			}
			if cond.Multivalued != tt.wantMulti {
				t.Errorf("condition multivalued = %v, want %v", cond.Multivalued, tt.wantMulti)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	t.Run("simulate --help documents every flag with an example", func(t *testing.T) {
		code, stdout, stderr := leash(t, "", "simulate", "--help")
		if code != 0 || stderr != "" {
			t.Fatalf("exit status %d, stderr %q", code, stderr)
		}
		for _, flag := range []string{"--identity", "--scp", "--rcp", "--resource-policy", "--boundary", "--session",
			"--action", "--resource", "--resource-account", "--principal", "--context", "--explain", "--output", "--request"} {
			var line string
			for _, l := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), flag+" ") {
					line = l
				}
			}
			if line == "" {
				t.Errorf("--help does not list %s", flag)
			} else if !strings.Contains(line, "(e.g. "+flag) {
				t.Errorf("%s has no example in --help: %q", flag, line)
			}
		}
		for _, want := range []string{"Answer offline whether AWS would allow a request", "Examples:", "Exit status: 0", "leash simulate --request"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("--help lacks %q", want)
			}
		}
	})
	t.Run("leash with no arguments prints help and exits 0", func(t *testing.T) {
		code, stdout, _ := leash(t, "")
		if code != 0 || !strings.Contains(stdout, "simulate") || !strings.Contains(stdout, "Examples:") {
			t.Errorf("exit status %d, stdout:\n%s", code, stdout)
		}
	})
	t.Run("an unknown command exits 2 and points to --help", func(t *testing.T) {
		code, stdout, stderr := leash(t, "", "simulat")
		if code != 2 || stdout != "" || !strings.Contains(stderr, `leash: unknown command "simulat" for "leash"`) || !strings.Contains(stderr, `see "leash --help"`) {
			t.Errorf("exit status %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
}
