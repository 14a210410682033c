package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	whoCanOrg    = "../whocan/testdata/org-cross"
	whoCanSecret = "arn:aws:secretsmanager:us-east-1:333333333333:secret:db-password-AbCdEf"
)

func TestWhoCanOrg(t *testing.T) {
	// An organization whose data account has no snapshot: its principals
	// are not asked, and a warning says so.
	partial := t.TempDir()
	err := filepath.WalkDir(whoCanOrg, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "333333333333.json") && strings.Contains(path, "snapshots") {
			return err
		}
		rel, _ := filepath.Rel(whoCanOrg, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(partial, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(partial, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		args     []string
		wantCode int
		want     []string
		refuse   []string
	}{
		{"--escalation lists alice of account A with her path into account B",
			[]string{"secretsmanager:GetSecretValue", whoCanSecret, "--org", whoCanOrg, "--escalation"}, ExitOK,
			[]string{
				"arn:aws:iam::222222222222:user/alice\tuser\tvia 1 step(s)\n  user/alice may sts:AssumeRole role/reader (trust: Statement[0] \"AliceOfDev\") → role/reader is allowed secretsmanager:GetSecretValue",
				"arn:aws:iam::333333333333:role/reader\trole\tAllowed",
			},
			[]string{"user/ops", "user/bob"}},
		{"without --escalation, only B's own principals",
			[]string{"secretsmanager:GetSecretValue", whoCanSecret, "--org", whoCanOrg}, ExitOK,
			[]string{"arn:aws:iam::333333333333:user/carol\tuser\tAllowed"},
			[]string{"user/alice"}},
		{"the root's SCP stops A's admin",
			[]string{"iam:CreateUser", "arn:aws:iam::222222222222:user/new", "--org", whoCanOrg, "--all"}, ExitNo,
			[]string{"arn:aws:iam::222222222222:user/dev-admin\tuser\tExplicitDeny by scp policy DenyCreateUser (p-rootguard1) Statement[0] \"NoNewUsers\""}, nil},
		{"no SCP applies to the management account",
			[]string{"iam:CreateUser", "arn:aws:iam::111111111111:user/new", "--org", whoCanOrg}, ExitOK,
			[]string{"arn:aws:iam::111111111111:user/ops\tuser\tAllowed by inline policy admin of user ops Statement[0] \"Everything\""}, nil},
		{"an S3 ARN names no account: a warning asks for --resource-account",
			[]string{"s3:GetObject", "arn:aws:s3:::data-of-b/report.csv", "--org", whoCanOrg}, ExitOK,
			[]string{"arn:aws:s3:::data-of-b/report.csv names no account", "give --resource-account ID"}, nil},
		{"with --resource-account, the bucket is B's, and A's admin is not B's",
			[]string{"s3:GetObject", "arn:aws:s3:::data-of-b/report.csv", "--org", whoCanOrg, "--resource-account", "333333333333"}, ExitNo,
			[]string{"no principal can s3:GetObject"}, []string{"user/dev-admin", "names no account"}},
		{"a missing snapshot is a warning, and the others are asked",
			[]string{"iam:DeleteRole", "arn:aws:iam::333333333333:role/reader", "--org", partial}, ExitNo,
			[]string{"account 333333333333 (data) has no snapshot"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"who-can"}, c.args...)...)
			if code != c.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.wantCode, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(out+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, stderr)
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

func TestWhoCanOrgBadInput(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"--org with --account", []string{"--org", whoCanOrg, "--account", whoCanSnapshot}, "--org: reads every account's snapshot from DIR/snapshots; --account reads one account: give one or the other"},
		{"--org with --scp", []string{"--org", whoCanOrg, "--scp", "../whocan/testdata/scp-deny-s3.json"}, "--org: reads the SCPs and RCPs attached in the organization from DIR/scps and DIR/rcps; leave out --scp and --rcp"},
		{"--org with --endpoint", []string{"--org", whoCanOrg, "--endpoint", "http://127.0.0.1:1"}, "--org: reads snapshots from DIR"},
		{"--resource-account that is not an account ID", []string{"--org", whoCanOrg, "--resource-account", "3333"}, `--resource-account: "3333": give the 12-digit ID of the account owning the resource`},
		{"--org of a folder that is not one", []string{"--org", t.TempDir()}, "organization.json: missing: write it with `aws organizations describe-organization > organization.json`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"who-can", "s3:GetObject"}, c.args...)...)
			if code != ExitBadInput {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitBadInput, out, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q lacks %q", stderr, c.want)
			}
		})
	}
}
