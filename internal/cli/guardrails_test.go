package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyRefusesBadGuardrails pins that leash apply refuses to start,
// exit 2 and naming the problem, on a ceiling or severity it cannot use.
func TestApplyRefusesBadGuardrails(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ceiling.json")
	if err := os.WriteFile(bad, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*"`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a ceiling that does not parse", []string{"--ceiling", bad}, "ceiling: "},
		{"a ceiling file that does not exist", []string{"--ceiling", filepath.Join(dir, "none.json")}, "--ceiling: "},
		{"a ceiling with a permissions boundary", []string{"--ceiling", good, "--permissions-boundary", "arn:aws:iam::123456789012:policy/b"}, "give one of them"},
		{"an unknown severity", []string{"--refuse-escalation", "severe"}, "--refuse-escalation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"apply", "-f", filepath.Join("..", "..", "examples"), "--data", filepath.Join(t.TempDir(), "data")}, tt.args...)
			_, stderr, code := run(t, args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestApplyEscalationHintNamesItsFlag pins that leash apply's refusal of a
// request with an escalation finding names what its user can set,
// --escalation-namespaces, and not the ConfigMap of a cluster leash apply
// does not read; and that the flag it names lets the request through.
func TestApplyEscalationHintNamesItsFlag(t *testing.T) {
	dir := t.TempDir()
	const admin = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: admin
  namespace: platform
spec:
  secretRef: {namespace: platform, name: admin-creds}
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - effect: Allow
      action: ["*"]
      resource: "*"
`
	if err := os.WriteFile(filepath.Join(dir, "admin.yaml"), []byte(admin), 0o644); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "data")
	out, stderr, code := run(t, "apply", "-f", dir, "--data", data, "--out", filepath.Join(t.TempDir(), "secrets"))
	if code != 1 || !strings.Contains(out, "PrivilegeEscalation") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and PrivilegeEscalation", code, out, stderr)
	}
	if !strings.Contains(out, "run `leash apply` again with --escalation-namespaces platform") {
		t.Errorf("refusal %q: want it to name leash apply's --escalation-namespaces platform", out)
	}
	if strings.Contains(out, "ConfigMap") || strings.Contains(out, "escalationNamespaces") {
		t.Errorf("refusal %q names the operator's ConfigMap, which leash apply does not read", out)
	}
	out, stderr, code = run(t, "apply", "-f", dir, "--data", data, "--out", filepath.Join(t.TempDir(), "secrets"), "--escalation-namespaces", "platform")
	if code != 0 || !strings.Contains(out, "Ready") {
		t.Errorf("with the flag the hint names: exit %d, stdout %q, stderr %q; want 0 and Ready", code, out, stderr)
	}
}
