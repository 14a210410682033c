package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

const (
	iamAllPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"}]}`
	s3Boundary   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`
	fullAccess   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`
	denyIAMSCP   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`
)

// escalationIDs are the LEASH-ESC-* IDs among check's findings.
func escalationIDs(ids []string) []string {
	var out []string
	for _, id := range ids {
		if strings.HasPrefix(id, "LEASH-ESC-") {
			out = append(out, id)
		}
	}
	return out
}

// TestCheckCapsFromFiles pins --boundary and --scp: a role holding iam:*
// escalates; a boundary of s3:* or an SCP denying iam:* (as one level or
// below a full-access root) closes every path.
func TestCheckCapsFromFiles(t *testing.T) {
	dir := t.TempDir()
	role := writePolicy(t, dir, "role.json", iamAllPolicy)
	boundary := writePolicy(t, dir, "boundary.json", s3Boundary)
	root := writePolicy(t, dir, "full-access.json", fullAccess)
	deny := writePolicy(t, dir, "deny-iam.json", denyIAMSCP)
	const principal = "arn:aws:iam::111122223333:role/app"
	cases := []struct {
		name     string
		args     []string
		escalate bool
	}{
		{"without caps the IAM paths are reported", nil, true},
		{"a boundary of s3:* refuses them", []string{"--boundary", boundary}, false},
		{"an SCP denying iam:* refuses them", []string{"--scp", deny}, false},
		{"an SCP level denying iam:* below a full-access root refuses them", []string{"--scp", root, "--scp", deny}, false},
		{"one level of two SCPs, one denying iam:*, refuses them", []string{"--scp", root + "," + deny}, false},
		{"a full-access SCP refuses nothing", []string{"--scp", root}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--principal", principal, "--fail-on", "critical"}, c.args...)
			out, stderr, code := run(t, append(args, role)...)
			esc := escalationIDs(findingIDs(out))
			if got := len(esc) > 0; got != c.escalate {
				t.Fatalf("escalation findings %v, want some: %v (exit %d)\n%s%s", esc, c.escalate, code, out, stderr)
			}
			if c.escalate && code != 1 || !c.escalate && code != 0 {
				t.Errorf("exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestCheckCapsBadInput pins the errors of --boundary and --scp: exit 2,
// naming the flag or file and the fix.
func TestCheckCapsBadInput(t *testing.T) {
	dir := t.TempDir()
	role := writePolicy(t, dir, "role.json", iamAllPolicy)
	broken := writePolicy(t, dir, "broken.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*"}]}`)
	boundary := writePolicy(t, dir, "boundary.json", s3Boundary)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"a missing boundary file", []string{"--boundary", dir + "/none.json", role}, []string{"none.json", "no such file (given to --boundary)"}},
		{"a missing SCP file", []string{"--scp", dir + "/none.json", role}, []string{"none.json", "no such file (given to --scp)"}},
		{"an SCP level with an empty name", []string{"--scp", boundary + ",", role}, []string{"--scp", "empty file name", "separated by commas"}},
		{"an SCP that does not parse", []string{"--scp", broken, role}, []string{"broken.json", "given to --scp"}},
		{"--boundary beside --user", []string{"--boundary", boundary, "--user", "alice", "--endpoint", "http://127.0.0.1:1"}, []string{"--boundary", "--user reads the principal's permissions boundary from IAM"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"check"}, c.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
		})
	}
}

// TestCheckRoleBoundaryFromIAM pins that check --role applies the boundary
// IAM holds: a role with iam:* inline escalates without a boundary and not
// with a boundary of s3:*.
func TestCheckRoleBoundaryFromIAM(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{})
	admin := l.IAM(nil)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	bp, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("s3-only"), PolicyDocument: aws.String(s3Boundary)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		role     string
		boundary *string
		escalate bool
	}{
		{"unbounded", nil, true},
		{"bounded", bp.Policy.Arn, false},
	} {
		t.Run(c.role, func(t *testing.T) {
			if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(c.role), AssumeRolePolicyDocument: aws.String(trust),
				PermissionsBoundary: c.boundary}); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(c.role), PolicyName: aws.String("iam-all"),
				PolicyDocument: aws.String(iamAllPolicy)}); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := run(t, "check", "--role", c.role, "--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath(), "--output", "json")
			if code == 2 {
				t.Fatalf("exit 2\n%s%s", out, stderr)
			}
			var got struct {
				Findings []struct{ ID string } `json:"findings"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			var esc []string
			for _, f := range got.Findings {
				if strings.HasPrefix(f.ID, "LEASH-ESC-") {
					esc = append(esc, f.ID)
				}
			}
			if (len(esc) > 0) != c.escalate {
				t.Errorf("escalation findings %v, want some: %v\n%s", esc, c.escalate, out)
			}
		})
	}
}

// TestCheckEscalationCases runs leash check over the escalation cases of
// analyze/testdata/escalation: each path as the suites deploy it fails the
// check with its ID; each statement whose condition leash decides (an
// iam:PolicyARN naming read-only policies, a date passed, a Deny of the
// Auto Scaling group actions whenever a launch configuration is named) has no
// escalation finding (the least-privilege ones about its shape remain).
func TestCheckEscalationCases(t *testing.T) {
	const dir = "../../analyze/testdata/escalation/"
	cases := []struct {
		file string
		id   string // the escalation finding; "" for none
	}{
		{"esc-034-sagemaker-presigned-url.json", "LEASH-ESC-034"},
		{"esc-035-sagemaker-lifecycle-config.json", "LEASH-ESC-035"},
		{"esc-036-agentcore-existing-interpreter.json", "LEASH-ESC-036"},
		{"esc-037-agentcore-new-interpreter.json", "LEASH-ESC-037"},
		{"esc-038-autoscaling-create-group.json", "LEASH-ESC-038"},
		{"esc-039-codebuild-start-build.json", "LEASH-ESC-039"},
		{"esc-040-codebuild-update-project.json", "LEASH-ESC-040"},
		{"esc-041-apprunner-update-service.json", "LEASH-ESC-041"},
		{"esc-042-autoscaling-existing-launch-configuration.json", "LEASH-ESC-042"},
		{"clean-autoscaling-require-launch-templates.json", ""},
		{"clean-attach-user-policy-readonly.json", "LEASH-ESC-ATTACH-GUARD"},
		{"clean-attach-group-policy-stringequals.json", "LEASH-ESC-ATTACH-GUARD"},
		{"clean-attach-role-policy-arnlike.json", "LEASH-ESC-ATTACH-GUARD"},
		{"clean-token-issued-before-past-date.json", ""},
		{"clean-current-time-before-past-date.json", ""},
		{"clean-epoch-time-before-past-date.json", ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			out, stderr, code := run(t, "check", "--fail-on", "critical", dir+c.file)
			esc := escalationIDs(findingIDs(out))
			want := []string{}
			if c.id != "" {
				want = []string{c.id}
			}
			// A path whose actions include a shorter path's reports both
			// (ESC-040 holds ESC-039's StartBuild).
			if c.id != "" && !hasID(esc, c.id) || c.id == "" && len(esc) > 0 ||
				strings.HasPrefix(c.file, "clean-") && len(esc) > len(want) {
				t.Fatalf("escalation findings %v, want %v\n%s%s", esc, want, out, stderr)
			}
			// The paths are critical; the guard is info.
			if wantCode := map[bool]int{true: 1, false: 0}[strings.HasPrefix(c.file, "esc-")]; code != wantCode {
				t.Errorf("exit %d, want %d\n%s%s", code, wantCode, out, stderr)
			}
		})
	}
}
