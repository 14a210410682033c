package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The JSON summary counts pods as pods, and both reports name the pods
// skipped because no credentials reach them.
func TestCheckWorkloadReportsPodsAndSkipped(t *testing.T) {
	dir := filepath.Join("..", "workload", "testdata", "controllers")
	out, stderr, code := run(t, "check", "workload", dir, "--output", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, stderr)
	}
	var got struct {
		Findings []struct{ ID string }
		Summary  map[string]any
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Summary["pods"] != float64(4) || got.Summary["policies"] != nil {
		t.Errorf("summary %v, want pods: 4 and no policies", got.Summary)
	}
	skipped, _ := got.Summary["skipped"].([]any)
	if len(skipped) != 1 || !strings.Contains(skipped[0].(string), "aws-load-balancer-controller") {
		t.Errorf("skipped %v, want the load balancer controller only", got.Summary["skipped"])
	}
	out, _, _ = run(t, "check", "workload", dir)
	if !strings.Contains(out, "skipped 1 pod that receives no AWS credentials:\n  ") || !strings.Contains(out, "Deployment kube-system/aws-load-balancer-controller") {
		t.Errorf("text report names no skipped pod:\n%s", out)
	}
}

// --suggest names each pod's policy after its workload, keeps its ports,
// and says a host-network pod's policy waits for hostNetwork to go.
func TestCheckWorkloadSuggestPerPod(t *testing.T) {
	dir := filepath.Join("..", "workload", "testdata", "controllers")
	out, _, _ := run(t, "check", "workload", dir, "--suggest")
	for _, want := range []string{
		"name: daemonset-aws-cloud-controller-manager-deny-instance-metadata",
		"name: deployment-ebs-csi-controller-deny-instance-metadata",
		"name: deployment-ack-s3-controller-deny-instance-metadata",
		"port: 6443", "port: 9808",
		"governs the pod only once hostNetwork is removed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "aws-load-balancer-controller-deny") {
		t.Errorf("a policy for a pod no credentials reach:\n%s", out)
	}
}
