package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckWorkload(t *testing.T) {
	good := filepath.Join("..", "workload", "testdata", "good.yaml")
	if out, stderr, code := run(t, "check", "workload", good); code != 0 || !strings.Contains(out, "no findings in 1 pod") {
		t.Errorf("good manifests: exit %d\n%s%s", code, out, stderr)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// Without its NetworkPolicy and with the host network.
	bad := strings.Replace(string(data[:strings.Index(string(data), "---\napiVersion: networking.k8s.io/v1")]),
		"      containers:", "      hostNetwork: true\n      containers:", 1)
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, "check", "workload", path, "--suggest")
	if code != 1 || !strings.Contains(out, "critical LEASH-WL-001") || !strings.Contains(out, "medium LEASH-WL-006") {
		t.Errorf("bad manifests: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, "kind: NetworkPolicy") || !strings.Contains(out, "169.254.169.254/32") {
		t.Errorf("--suggest printed no egress policy excluding the metadata service:\n%s", out)
	}
	if _, stderr, code := run(t, "check", "workload", filepath.Join(t.TempDir(), "missing.yaml")); code != 2 || !strings.Contains(stderr, "missing.yaml") {
		t.Errorf("missing file: exit %d %q", code, stderr)
	}
}

// TestExampleWorkloadsPass keeps the examples' controllers consuming their
// credentials the fail-closed way; the cloud controller manager keeps IMDS
// under the metadata profile, with its pruned node role.
func TestExampleWorkloadsPass(t *testing.T) {
	out, stderr, code := run(t, "check", "workload", filepath.Join("..", "..", "examples"), "--fail-on", "info",
		"--node-role-policy", filepath.Join("..", "..", "examples", "node-role", "ccm-node-role-policy.json"))
	if code != 0 || !strings.Contains(out, "no findings in 6 pods") {
		t.Errorf("exit %d\n%s%s", code, out, stderr)
	}
}

// TestExamplesPassCheck reviews each example's policy at the strictest
// threshold it meets, so that a change that makes one worse fails here. The
// cloud controller manager's list (the proposal's) writes on "*" (medium);
// the IAM controller's krops-* role management is the name-scoped
// escalation surface the runbook accepts (high).
func TestExamplesPassCheck(t *testing.T) {
	tests := []struct {
		dir, failOn string
		extra       []string
	}{
		{"ccm", "high", nil},
		{"ccm-sts", "high", nil},
		{"ack-s3", "low", nil},
		{"ack-rds", "low", nil},
		{"ack-iam", "critical", nil},
		{"tag-writer", "low", nil},
		{"ci-role", "low", []string{"--principal", "arn:aws:iam::120392301094:role/krops-ci-e2e"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			args := append([]string{"check", filepath.Join("..", "..", "examples", tt.dir), "--fail-on", tt.failOn}, tt.extra...)
			if out, stderr, code := run(t, args...); code != 0 {
				t.Errorf("exit %d\n%s%s", code, out, stderr)
			}
		})
	}
}

// TestCheckWorkloadNodeRoleInput refuses node role input it cannot check,
// naming the flag, and reports a node role wider than the allow-list.
func TestCheckWorkloadNodeRoleInput(t *testing.T) {
	ccm := filepath.Join("..", "..", "examples", "ccm")
	role := filepath.Join("..", "..", "examples", "node-role", "ccm-node-role-policy.json")
	notPolicy := filepath.Join(t.TempDir(), "role.json")
	if err := os.WriteFile(notPolicy, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Maybe"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a missing node role file", []string{"--node-role-policy", filepath.Join(t.TempDir(), "missing.json")}, 2, "--node-role-policy"},
		{"a node role file that is no policy", []string{"--node-role-policy", notPolicy}, 2, "--node-role-policy"},
		{"an allow-list pattern no action matches", []string{"--node-role-policy", role, "--node-role-only", "ec2:Descrbe*"}, 2, "--node-role-only"},
		{"a node role wider than the allow-list", []string{"--node-role-policy", role, "--node-role-only", "ec2:DescribeInstances"}, 1, "critical LEASH-WL-011"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, stderr, code := run(t, append([]string{"check", "workload", ccm}, tt.args...)...)
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\n%s%s", code, tt.code, tt.want, out, stderr)
			}
		})
	}
}

// TestCheckWorkloadClusterMode pins --mode: the examples, written for a
// Mint cluster, pass there and need projected tokens in an STS cluster
// (LEASH-WL-005), as the operator would give their pods a role and no key;
// a mode that is none is refused with exit 2.
func TestCheckWorkloadClusterMode(t *testing.T) {
	args := []string{"check", "workload", filepath.Join("..", "..", "examples"), "--node-role-policy", filepath.Join("..", "..", "examples", "node-role", "ccm-node-role-policy.json")}
	if out, stderr, code := run(t, append(args, "--mode", "Mint")...); code != 0 {
		t.Errorf("--mode Mint: exit %d\n%s%s", code, out, stderr)
	}
	if out, _, code := run(t, append(args, "--mode", "STS")...); code != 1 || !strings.Contains(out, "LEASH-WL-005") {
		t.Errorf("--mode STS: exit %d, want LEASH-WL-005\n%s", code, out)
	}
	// In a Broker cluster the examples' pods get the broker agent and its
	// token, and no Secret: credentialed, no findings.
	if out, stderr, code := run(t, append(args, "--mode", "Broker")...); code != 0 || !strings.Contains(out, "no findings in") {
		t.Errorf("--mode Broker: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := run(t, append(args, "--mode", "Mintt")...); code != 2 || !strings.Contains(stderr, "--mode") {
		t.Errorf("--mode Mintt: exit %d %q", code, stderr)
	}
}
