package e2e

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/internal/operator"
)

// applyRun runs `leash apply` with args and returns its output and exit
// status.
func applyRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, leashBin, append([]string{"apply"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code = exitStatus(t, cmd.Run(), "leash apply")
	return out.String(), errOut.String(), code
}

// readSecret reads a Secret manifest apply wrote.
func readSecret(t *testing.T, path string) *corev1.Secret {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("%s has mode %v; a file holding a key must be 0600", path, info.Mode().Perm())
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := &corev1.Secret{}
	if err := yaml.UnmarshalStrict(data, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestApplyExamples is the README's first command: every example request is
// minted in the embedded endpoint, the Secrets' keys work as their users, a
// second run changes nothing, and no output carries a secret.
func TestApplyExamples(t *testing.T) {
	data := t.TempDir()
	stdout, stderr, code := applyRun(t, "-f", filepath.Join("..", "..", "examples"), "--data", data)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	requests := map[string]string{
		"kube-system/aws-cloud-controller-manager": "kube-system/cloud-controller-manager-credentials",
		// The STS example, minted: apply runs a request in the mode asked for.
		"kube-system/aws-cloud-controller-manager-sts": "kube-system/cloud-controller-manager-sts-credentials",
		"ack-system/ack-s3-controller":                 "ack-system/ack-s3-controller-credentials",
		"ack-system/ack-rds-controller":                "ack-system/ack-rds-controller-credentials",
		"ack-system/ack-iam-controller":                "ack-system/ack-iam-controller-credentials",
		"ack-system/worker-run-tags":                   "ack-system/worker-run-tags-credentials",
	}
	// The Broker example gets a role trusted by the user apply makes to
	// stand for the broker, and no Secret.
	const brokerReq = "reports/report-exporter"
	if n := countRequests(t, filepath.Join("..", "..", "examples")); n != len(requests)+1 {
		t.Fatalf("examples/ holds %d CredentialsRequests, the test checks %d: add the new one", n, len(requests)+1)
	}
	brokerRow := strings.Fields(lineWith(stdout, brokerReq))
	if len(brokerRow) < 5 || brokerRow[1] != "Broker" || !strings.Contains(brokerRow[2], ":role/leash/leash/") || brokerRow[len(brokerRow)-1] != "Ready" {
		t.Errorf("row for %s = %v, want Broker, a role, Ready", brokerReq, brokerRow)
	}
	if !strings.Contains(stderr, ":user/leash-broker in the embedded endpoint to stand for the credential broker") {
		t.Errorf("apply did not say it made the broker's user:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "secrets", "reports")); !os.IsNotExist(err) {
		t.Errorf("a Secret was written for the Broker request (%v)", err)
	}
	principals := map[string]string{}
	for req := range requests {
		row := lineWith(stdout, req)
		f := strings.Fields(row)
		if len(f) < 5 || f[1] != "Mint" || f[len(f)-1] != "Ready" {
			t.Errorf("row for %s = %q, want Mint ... Ready", req, row)
			continue
		}
		principals[req] = f[2]
	}
	if !strings.Contains(stderr, "managed policy") {
		t.Errorf("the cloud controller manager's policy (over the inline limit) was not made a managed policy:\n%s", stderr)
	}

	// The keys work, as the users the table names: start leash local on the
	// same state and ask STS who each key is.
	local := startLocal(t, data)
	var secrets []string
	for req, ref := range requests {
		ns, name, _ := strings.Cut(ref, "/")
		s := readSecret(t, filepath.Join(data, "secrets", ns, name+".yaml"))
		id, secret := string(s.Data["aws_access_key_id"]), string(s.Data["aws_secret_access_key"])
		secrets = append(secrets, secret)
		out, err := local.sts(id, secret).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Errorf("%s: the Secret's key does not work: %v", req, err)
			continue
		}
		if got := aws.ToString(out.Arn); got != principals[req] {
			t.Errorf("%s: key acts as %s, the table says %s", req, got, principals[req])
		}
	}
	// The cloud controller manager's and the tag writer's users may not
	// create users: neither asked for it.
	for _, ref := range []string{"kube-system/cloud-controller-manager-credentials", "ack-system/worker-run-tags-credentials"} {
		ns, name, _ := strings.Cut(ref, "/")
		s := readSecret(t, filepath.Join(data, "secrets", ns, name+".yaml"))
		c := local.iam(string(s.Data["aws_access_key_id"]), string(s.Data["aws_secret_access_key"]))
		if _, err := c.CreateUser(context.Background(), &iam.CreateUserInput{UserName: aws.String("x")}); apiCode(err) != "AccessDenied" {
			t.Errorf("the key of %s may create users: %v", ref, err)
		}
	}
	if len(brokerRow) > 2 {
		name := brokerRow[2][strings.LastIndex(brokerRow[2], "/")+1:]
		role, err := local.iam(local.adminKey(t)).GetRole(context.Background(), &iam.GetRoleInput{RoleName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		trust, _ := url.QueryUnescape(aws.ToString(role.Role.AssumeRolePolicyDocument))
		if !strings.Contains(trust, ":user/leash-broker") || !strings.Contains(trust, `"aws:RequestTag/kubernetes-namespace":"reports"`) {
			t.Errorf("the Broker role's trust is %s; want the leash-broker user with the reports namespace tag", trust)
		}
	}
	local.stop(t, syscall.SIGTERM)

	again, stderr2, code := applyRun(t, "-f", filepath.Join("..", "..", "examples"), "--data", data)
	if code != 0 || stderr2 != "" {
		t.Errorf("second run: exit %d, changes:\n%s", code, stderr2)
	}
	for _, secret := range secrets {
		for _, out := range []string{stdout, stderr, again, stderr2} {
			if strings.Contains(out, secret) {
				t.Fatal("apply printed a secret access key")
			}
		}
	}
}

// TestApplyBadInput pins the exit statuses and messages of input apply
// cannot use, and that an invalid request creates no IAM user.
func TestApplyBadInput(t *testing.T) {
	empty := t.TempDir()
	if _, stderr, code := applyRun(t, "-f", empty, "--data", t.TempDir()); code != 2 || !strings.Contains(stderr, "holds no CredentialsRequest") {
		t.Errorf("empty folder: exit %d, %q", code, stderr)
	}
	broken := t.TempDir()
	writeFile(t, filepath.Join(broken, "r.yaml"), "apiVersion: cloudcredential.openshift.io/v1\nkind: CredentialsRequest\nmetadata: {name: x}\nspec:\n  secretRef: {name: s, namespace: n}\n  bogus: 1\n")
	if _, stderr, code := applyRun(t, "-f", broken, "--data", t.TempDir()); code != 2 || !strings.Contains(stderr, "r.yaml: document 1") || !strings.Contains(stderr, "bogus") {
		t.Errorf("unknown field: exit %d, %q", code, stderr)
	}
	invalid := t.TempDir()
	writeFile(t, filepath.Join(invalid, "r.yaml"), `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: bad, namespace: apps}
spec:
  secretRef: {name: bad-creds, namespace: apps}
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - {effect: Allow, action: ["s3:GetObject"], resource: "*"}
    - {effect: allow, action: ["s3:PutObject"], resource: "*"}
`)
	data := t.TempDir()
	stdout, _, code := applyRun(t, "-f", invalid, "--data", data)
	if code != 1 || !strings.Contains(stdout, "InvalidRequest") || !strings.Contains(stdout, "statementEntries[1].effect") {
		t.Errorf("invalid request: exit %d\n%s", code, stdout)
	}
	local := startLocal(t, data)
	users, err := local.iam(local.adminKey(t)).ListUsers(context.Background(), &iam.ListUsersInput{PathPrefix: aws.String("/leash/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(users.Users) != 0 {
		t.Errorf("an invalid request created %d IAM users", len(users.Users))
	}
}

// countRequests counts the CredentialsRequest manifests under dir.
func countRequests(t *testing.T, dir string) int {
	t.Helper()
	requests, err := operator.ReadRequests(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(requests)
}

func lineWith(out, prefix string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix+" ") {
			return l
		}
	}
	return ""
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestApplyExamplesPassthrough checks the examples against the embedded
// endpoint's administrator: it covers every request whose resources are in
// its account, including patterns with a wildcard account
// (arn:aws:rds:*:*:*:krops-*), and not the tag writer's, whose ARNs name
// another account.
func TestApplyExamplesPassthrough(t *testing.T) {
	stdout, stderr, code := applyRun(t, "-f", filepath.Join("..", "..", "examples"), "--data", t.TempDir(), "--mode", "Passthrough")
	// The tag writer's resources name the runbook's account, not the
	// endpoint's: the root's own policies cannot reach another account.
	if code != 1 || !strings.Contains(lineWith(stdout, "ack-system/worker-run-tags"), "RootLacksPermissions") ||
		!strings.Contains(stdout, "in another account") {
		t.Fatalf("exit %d, want 1 with the tag writer refused for its account\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, req := range []string{"kube-system/aws-cloud-controller-manager", "ack-system/ack-s3-controller", "ack-system/ack-rds-controller", "ack-system/ack-iam-controller"} {
		if f := strings.Fields(lineWith(stdout, req)); len(f) < 5 || f[1] != "Passthrough" || f[len(f)-1] != "Ready" {
			t.Errorf("row for %s = %v, want Passthrough ... Ready", req, f)
		}
	}
}
