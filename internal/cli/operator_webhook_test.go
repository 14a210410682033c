package cli

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"leash.dev/leash/internal/operator"
)

// TestOperatorWebhookFlagsRefuseBadInput pins that a bad webhook setting
// stops the operator before it reaches a cluster, naming the flag and the
// fix.
func TestOperatorWebhookFlagsRefuseBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "role.json")
	if err := os.WriteFile(bad, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A CA certificate: the one every httptest TLS server serves.
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
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
		{"a broker URL that is not https", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--broker-url", "http://leash-broker.leash-system.svc:8080", "--broker-ca-file", ca, "--broker-agent-image", "leash:1"}, `--broker-url "http://leash-broker.leash-system.svc:8080": give the broker Service's https base URL`},
		{"a broker CA file that is no certificate", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--broker-url", "https://leash-broker.leash-system.svc:8443", "--broker-ca-file", bad, "--broker-agent-image", "leash:1"}, "--broker-ca-file: holds no PEM certificate"},
		{"a broker URL with no agent image", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--broker-url", "https://leash-broker.leash-system.svc:8443", "--broker-ca-file", ca}, "--broker-agent-image is required"},
		{"a broker URL with no CA", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--broker-url", "https://leash-broker.leash-system.svc:8443", "--broker-agent-image", "leash:1"}, "--broker-ca-file is required"},
		{"a broker CA with no URL", []string{"--webhook-port", "9443", "--webhook-cert-dir", ".", "--broker-ca-file", bad}, "--broker-url: is required"},
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

// TestWebhookFlagsChooseTheCertificate pins where the webhook's serving
// certificate comes from: the operator keeps its own (the Rotator, for the
// Service in the operator's namespace) unless --webhook-cert-dir names
// files, such as cert-manager's; no webhook, no certificate.
func TestWebhookFlagsChooseTheCertificate(t *testing.T) {
	parse := func(t *testing.T, args ...string) *operator.Options {
		t.Helper()
		var w webhookFlags
		f := pflag.NewFlagSet("operator", pflag.ContinueOnError)
		w.register(f)
		if err := f.Parse(args); err != nil {
			t.Fatal(err)
		}
		o := &operator.Options{LeaderElectionNamespace: "leash-system"}
		if err := w.apply(o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := parse(t); o.Webhook != nil {
		t.Errorf("no --webhook-port: webhook %+v, want none", o.Webhook)
	}
	own := parse(t, "--webhook-port", "9443", "--webhook-service", "hooks").Webhook
	if own == nil || own.Rotate == nil || own.CertDir != "" || own.Rotate.Namespace != "leash-system" || own.Rotate.Service != "hooks" {
		t.Errorf("--webhook-port alone: %+v; want the Rotator for Service hooks in leash-system", own)
	}
	files := parse(t, "--webhook-port", "9443", "--webhook-cert-dir", "/certs").Webhook
	if files == nil || files.Rotate != nil || files.CertDir != "/certs" {
		t.Errorf("--webhook-cert-dir: %+v; want the files and no Rotator", files)
	}
}
