package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run runs leash with args and returns its output and exit status.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// TestUnionThenDiff is the seed runbook's union: the three ACK controllers'
// requests merged for one principal grant nothing the requests did not, and
// the union grants what each of them does.
func TestUnionThenDiff(t *testing.T) {
	ex := filepath.Join("..", "..", "examples")
	inputs := []string{filepath.Join(ex, "ack-s3"), filepath.Join(ex, "ack-rds"), filepath.Join(ex, "ack-iam")}
	union, stderr, code := run(t, append([]string{"union"}, inputs...)...)
	if code != 0 {
		t.Fatalf("union: exit %d: %s", code, stderr)
	}
	path := filepath.Join(t.TempDir(), "union.json")
	if err := os.WriteFile(path, []byte(union), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, append(append([]string{"diff"}, inputs...), path)...)
	if code != 0 || !strings.Contains(out, "grants nothing the others do not") {
		t.Errorf("diff requests → union: exit %d\n%s%s", code, out, stderr)
	}
	for _, in := range inputs {
		if out, stderr, code := run(t, "diff", path, in); code != 0 {
			t.Errorf("diff union → %s: exit %d, the union lacks:\n%s%s", in, code, out, stderr)
		}
	}
}

func TestDiffListsNewAccess(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("old.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::krops-*/*"},
	  {"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"eu-north-1"}}}]}`)
	tests := []struct {
		name, doc string
		code      int
		want      []string
	}{
		{"the same grant is nothing new", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::krops-a/*"}]}`, 0, nil},
		{"a new action is new access", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:DeleteObject"],"Resource":"arn:aws:s3:::krops-a/*"}]}`, 1, []string{"s3:DeleteObject on arn:aws:s3:::krops-a/*"}},
		{"a wider resource is new access", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::*"}]}`, 1, []string{"s3:GetObject on arn:aws:s3:::*"}},
		{"a second region is new access", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":["eu-north-1","eu-west-1"]}}}]}`, 1,
			[]string{"ec2:RunInstances on * when aws:RequestedRegion=eu-west-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, "diff", old, write("new.json", tt.doc))
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.code, out, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w+"\n") {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if tt.code == 1 && strings.Count(out, "\n") != len(tt.want) {
				t.Errorf("want exactly %d lines:\n%s", len(tt.want), out)
			}
		})
	}
	if _, stderr, code := run(t, "diff", old, filepath.Join(dir, "missing.json")); code != 2 || !strings.Contains(stderr, "missing.json") {
		t.Errorf("missing file: exit %d, %q", code, stderr)
	}
}

// TestDiffExpandsPatternsWithTheCatalog pins that a pattern in NEW is new
// access for each catalog action OLD does not allow, and that NotAction
// counts everything it does not name.
func TestDiffExpandsPatternsWithTheCatalog(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	news := filepath.Join(dir, "new.json")
	if err := os.WriteFile(old, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(news, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject*","Resource":"*"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "diff", old, news)
	if code != 1 || !strings.Contains(out, "s3:GetObjectAcl on *\n") || strings.Contains(out, "s3:GetObject on *\n") {
		t.Errorf("exit %d; want s3:GetObjectAcl and not s3:GetObject:\n%s", code, out)
	}
	if err := os.WriteFile(news, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = run(t, "diff", old, news)
	if code != 1 || !strings.Contains(out, "ec2:RunInstances on *\n") || strings.Contains(out, "iam:") || strings.Contains(out, "s3:GetObject on *\n") {
		t.Errorf("NotAction: exit %d; want every non-IAM action but s3:GetObject (%d lines)", code, strings.Count(out, "\n"))
	}
}

// TestCheckReadsTrustPoliciesInAFolder pins that a trust policy beside
// identity policies is read as one (it names principals and no resources)
// and gets the trust checks: the seed role's StringLike subject.
func TestCheckReadsTrustPoliciesInAFolder(t *testing.T) {
	out, stderr, code := run(t, "check", filepath.Join("..", "..", "analyze", "testdata", "krops-ci-e2e"),
		"--principal", "arn:aws:iam::120392301094:role/krops-ci-e2e", "--fail-on", "critical")
	if code != 0 || !strings.Contains(out, "LEASH-TRUST-002") || strings.Contains(out, "LEASH-ESC-SELF ") {
		t.Errorf("exit %d; want the trust finding and no self-escalation (the guard is in the folder):\n%s%s", code, out, stderr)
	}
}
