package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperatorWebhookFlagsRefuseBadInput pins that a bad webhook setting
// stops the operator before it reaches a cluster, naming the flag and the
// fix.
func TestOperatorWebhookFlagsRefuseBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "role.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a port out of range", []string{"--webhook-port", "70000"}, "--webhook-port: 70000 is not a port"},
		{"a severity that is none", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--webhook-refuse-at", "severe"}, "--webhook-refuse-at"},
		{"a node role policy that is not JSON", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--node-role-policy", bad}, "--node-role-policy"},
		{"an allow-list pattern no action matches", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--node-role-only", "ec2:Descrbe*"}, "--node-role-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, append([]string{"operator", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestCheckWorkloadWiresAnnotatedPods pins that check workload judges a pod
// naming its request as admission stores it: clean once wired, and the
// same LEASH-WL-012 admission refuses when the request is missing.
func TestCheckWorkloadWiresAnnotatedPods(t *testing.T) {
	const manifests = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: app, namespace: apps}
spec:
  secretRef: {name: app-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: apps}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress: [{ports: [{protocol: TCP, port: 443}], to: [{ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: apps}
spec:
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}, annotations: {leash.dev/credentials: REQUEST}}
    spec:
      containers: [{name: app, image: app:1}]
`
	dir := t.TempDir()
	for name, req := range map[string]string{"wired.yaml": "app", "missing.yaml": "gone"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Replace(manifests, "REQUEST", req, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Checked unwired, the pod would receive no credentials and be skipped.
	if out, stderr, code := run(t, "check", "workload", filepath.Join(dir, "wired.yaml")); code != 0 || !strings.Contains(out, "no findings in 1 pod") || strings.Contains(out, "skipped") {
		t.Errorf("a pod naming its request: exit %d\n%s%s", code, out, stderr)
	}
	if out, _, code := run(t, "check", "workload", filepath.Join(dir, "missing.yaml")); code != 1 || !strings.Contains(out, "LEASH-WL-012") {
		t.Errorf("a pod naming a missing request: exit %d\n%s", code, out)
	}
}
