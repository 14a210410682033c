package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/localaws"
)

const stsRequestYAML = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: ccm
  namespace: openshift-cloud-credential-operator
spec:
  secretRef:
    namespace: kube-system
    name: ccm-creds
  serviceAccountNames: [cloud-controller-manager]
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - effect: Allow
      action: [ec2:DescribeInstances]
      resource: "*"
`

// TestApplySTSProvesTheMadeRole: apply in STS mode with the issuer folder
// makes the role, proves it with a token the folder's key signs, and
// writes the Secret only once STS takes the token: with no IAM provider for
// the issuer yet it writes none and names the missing provider.
func TestApplySTSProvesTheMadeRole(t *testing.T) {
	dir, data, issuerDir := t.TempDir(), filepath.Join(t.TempDir(), "data"), filepath.Join(t.TempDir(), "issuer")
	if err := os.WriteFile(filepath.Join(dir, "ccm.yaml"), []byte(stsRequestYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	const issuer = "https://issuer.apply.example/cluster"
	if _, _, err := oidcissuer.Create(issuerDir, oidcissuer.CreateOptions{URL: issuer, Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	args := []string{"apply", "-f", dir, "--data", data, "--mode", "STS", "--oidc-issuer-dir", issuerDir, "--cluster-name", "c1"}
	secretFile := filepath.Join(data, "secrets", "kube-system", "ccm-creds.yaml")

	out, stderr, code := run(t, args...)
	if code != 1 || !strings.Contains(out+stderr, "OIDCProviderNotFound") {
		t.Fatalf("apply without the provider: exit %d; want 1 naming OIDCProviderNotFound\n%s%s", code, out, stderr)
	}
	if _, err := os.Stat(secretFile); !os.IsNotExist(err) {
		t.Fatalf("Secret written before the role was proven: %v", err)
	}

	local, err := localaws.StartLoopback(localaws.Config{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	key, err := iamclient.KeyFromFile(local.AdminCredentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	admin := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(local.URL), Credentials: key.Provider()})
	_, err = admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(issuer), ClientIDList: []string{"sts.amazonaws.com"}, ThumbprintList: []string{strings.Repeat("0", 40)}})
	if stopErr := local.Stop(); err != nil || stopErr != nil {
		t.Fatalf("create provider: %v; stop: %v", err, stopErr)
	}

	out, stderr, code = run(t, args...)
	if code != 0 {
		t.Fatalf("apply with the provider: exit %d\n%s%s", code, out, stderr)
	}
	if strings.Contains(stderr, "ProofSkipped") || !strings.Contains(stderr, "WebIdentityWritten") {
		t.Errorf("events %q: want the Secret written and no skipped proof", stderr)
	}
	secret, err := os.ReadFile(secretFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(secret), "credentials:") {
		t.Errorf("Secret %s has no credentials file:\n%s", secretFile, secret)
	}
	if !strings.Contains(out, ":role/leash/c1/c1-openshift-cloud-credential-operator-ccm-") {
		t.Errorf("table does not name the made role:\n%s", out)
	}
}
