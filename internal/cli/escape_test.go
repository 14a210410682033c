package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// injected is text that, printed raw, ends its line, starts a forged one
// and conceals the rest (SGR 8), then reverses what follows (RLO).
const injected = "\nALLOWED everything\x1b[8m\u202e"

// escapedInjected is injected as every text output shows it.
const escapedInjected = `\nALLOWED everything\x1b[8m\u202e`

// TestTextOutputsShowInjectedControlsEscaped pins, command by command, that
// a name taken from a policy document, a credentials file or a CLI
// argument stays on its own line, escaped, in the text output.
func TestTextOutputsShowInjectedControlsEscaped(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	old := write("old.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::a/*"}]}`)
	forgedResource := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*\nALLOWED everything\u001b[8m\u202e"}]}`
	tests := []struct {
		name  string
		args  []string
		lines []string // the whole stdout, line by line
		err   string   // the whole stderr
	}{
		{"diff: a new grant's resource", []string{"diff", old, write("new.json", forgedResource)},
			[]string{"s3:GetObject on arn:aws:s3:::b/*" + escapedInjected}, ""},
		{"diff: the new file's name when it adds nothing", []string{"diff", old, write("same"+injected+".json", `{"Version":"2012-10-17","Statement":[]}`)},
			[]string{filepath.Join(dir, "same"+escapedInjected+".json") + " grants nothing the others do not"}, ""},
		{"creds inspect: profile and key names", []string{"creds", "inspect", "--format", "file", write("credentials", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nregion\x1b[8m\u202e = x\n[ci\x1b[8m\u202e]\n")},
			[]string{"mode: static keys", `profiles: ci\x1b[8m\u202e, default`, `keys: aws_access_key_id, aws_secret_access_key, region\x1b[8m\u202e`, "key ID: long-term (AKIA)"}, ""},
		{"simulate: a key in the policy file that cannot be parsed", []string{"simulate", "--identity",
			write("bad.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals\n\u001b[8m":{"k":"v"}}}]}`), "--action", "s3:GetObject"},
			nil, "leash simulate: " + filepath.Join(dir, "bad.json") + `: Statement[0].Condition.StringEquals\n\x1b[8m: unknown condition operator "StringEquals\n\x1b[8m"; use one of the String, Numeric, Date, Bool, BinaryEquals, IpAddress, Arn or Null operators (given to --identity)` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, _ := run(t, tt.args...)
			want := ""
			if tt.lines != nil {
				want = strings.Join(tt.lines, "\n") + "\n"
			}
			if out != want {
				t.Errorf("stdout\n%q\nwant\n%q", out, want)
			}
			if errOut != tt.err {
				t.Errorf("stderr\n%q\nwant\n%q", errOut, tt.err)
			}
		})
	}
	t.Run("check: a finding quoting the resource", func(t *testing.T) {
		out, errOut, code := run(t, "check", write("check.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws:iam::111122223333:role/a\nhigh LEASH-FAKE ok.json: fine\u001b[8m"}]}`))
		if code != ExitNo || errOut != "" {
			t.Fatalf("exit %d, stderr %q", code, errOut)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[2], "2 findings") || strings.ContainsRune(out, '\x1b') {
			t.Fatalf("want two finding lines and the summary, no raw ESC:\n%q", out)
		}
		if want := `role/a\nhigh LEASH-FAKE ok.json: fine\x1b[8m with no iam:PassedToService`; !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	})
}

// TestRevokePlanShowsIAMNamesEscaped pins that the plan and the lift hint
// print the names IAM and STS answered with escaped.
func TestRevokePlanShowsIAMNamesEscaped(t *testing.T) {
	cutoff := time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC)
	r := &revoke.Revocation{Report: revoke.Report{Kind: "role", Principal: "arn:aws:iam::111122223333:role/ci" + injected,
		Caller: "arn:aws:iam::111122223333:user/admin" + injected, EndpointTime: cutoff, Cutoff: cutoff, LiftAfter: cutoff.Add(time.Hour), LongestSession: revoke.Seconds(time.Hour),
		Trust: `{"Statement":"` + injected + `"}`, Notes: []string{"key AKIAIOSFODNN7EXAMPLE of" + injected},
		Steps: []*revoke.Step{{Call: "iam:PutRolePolicy", On: "ci" + injected}}}}
	var b bytes.Buffer
	printPlan(&b, r)
	printLift(&b, r, iamAccess{})
	want := "" +
		"Plan: revoke role arn:aws:iam::111122223333:role/ci" + escapedInjected + "\n" +
		"  as arn:aws:iam::111122223333:user/admin" + escapedInjected + "; the endpoint's time is 2026-11-29T13:00:00Z\n" +
		"  cutoff: sessions issued before 2026-11-29T13:00:00Z are refused\n" +
		`  trust policy becomes: {"Statement":"` + escapedInjected + `"}` + "\n" +
		"  note: key AKIAIOSFODNN7EXAMPLE of" + escapedInjected + "\n" +
		"  1. iam:PutRolePolicy ci" + escapedInjected + "\n" +
		"The deny may be lifted at 2026-11-29T14:00:00Z (cutoff 2026-11-29T13:00:00Z + longest session 1h0m0s): leash revoke --role arn:aws:iam::111122223333:role/ci" + escapedInjected + " --lift\n"
	if b.String() != want {
		t.Errorf("plan\n%s\nwant\n%s", b.String(), want)
	}
}

// TestApplyShowsARequestNameEscaped pins that a request's name in a folder
// (which no API server has validated) stays on its row of apply's table and
// on its line of the messages below it.
func TestApplyShowsARequestNameEscaped(t *testing.T) {
	dir, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	yaml := strings.Replace(strings.Replace(otherAccountRequestYAML, "name: app\n", `name: "app\nALLOWED everything\e[8m"`+"\n", 1),
		"arn:aws:iam::111122223333:role/app-role", "arn:aws:iam::12345:role/app-role", 1)
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	local := localtest.Start(t, localaws.Config{DataDir: data})
	stdout, stderr, code := run(t, "apply", "-f", dir, "--endpoint", local.URL, "--data", data, "--out", t.TempDir(), "--mode", "Manual")
	if code != ExitNo {
		t.Fatalf("exit %d, want 1 (the request is not ready)\n%s%s", code, stdout, stderr)
	}
	name := `apps/app\nALLOWED everything\x1b[8m`
	rows := strings.Split(stdout, "\n")
	if len(rows) < 4 || !strings.HasPrefix(rows[1], name+"  ") || !strings.HasPrefix(rows[3], name+": ") {
		t.Errorf("want the row and the failure line to start with %q:\n%s", name, stdout)
	}
	for _, line := range strings.Split(stdout+stderr, "\n") {
		if strings.HasPrefix(line, "ALLOWED") || strings.ContainsRune(line, '\x1b') {
			t.Errorf("line %q is forged or holds a raw ESC", line)
		}
	}
}

// TestCheckWorkloadShowsManifestNamesEscaped pins that a workload's name in
// a manifest stays on its line in the skipped list and in the comment above
// a suggested NetworkPolicy.
func TestCheckWorkloadShowsManifestNamesEscaped(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "workload", "testdata", "controllers")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), "metadata: {name: aws-load-balancer-controller,", `metadata: {name: "aws-load-balancer-controller\nALLOWED\e[8m",`)
		text = strings.ReplaceAll(text, "metadata: {name: ebs-csi-controller,", `metadata: {name: "ebs-csi-controller\nALLOWED\e[8m",`)
		if err := os.WriteFile(filepath.Join(dir, e.Name()), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, stderr, _ := run(t, "check", "workload", dir, "--suggest")
	for _, want := range []string{`kube-system/aws-load-balancer-controller\nALLOWED\x1b[8m` + "\n", `kube-system/ebs-csi-controller\nALLOWED\x1b[8m` + "\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s%s", want, out, stderr)
		}
	}
	for _, line := range strings.Split(out+stderr, "\n") {
		if strings.HasPrefix(line, "ALLOWED") || strings.ContainsRune(line, '\x1b') {
			t.Errorf("line %q is forged or holds a raw ESC", line)
		}
	}
}

// TestCreateProviderShowsIAMClientIDsEscaped pins that the client IDs IAM
// answers with, which whoever made the provider chose, stay on the line.
// (IAM's XML answer cannot carry ESC; a newline, a tab and a bidi control
// it can.)
func TestCreateProviderShowsIAMClientIDsEscaped(t *testing.T) {
	e := newSTSEnv(t)
	const clientID = "sts.amazonaws.com\nMade the OIDC provider\t\u202e"
	if _, err := e.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(testIssuer), ClientIDList: []string{clientID}}); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, append([]string{"sts", "create-provider", "--oidc-issuer", testIssuer, "--audience", clientID}, e.read...)...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, `with the client IDs sts.amazonaws.com\nMade the OIDC provider\t\u202e: nothing changed`) {
		t.Errorf("want one line naming the client ID escaped:\n%q", out)
	}
}
