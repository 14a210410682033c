package admission

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/realcontrollers"
	"leash.dev/leash/internal/workload"
	"leash.dev/leash/policy"
)

// exampleNodeRole are the node role's policies of examples/node-role, which
// grant ec2:Describe* only.
func exampleNodeRole(t *testing.T) []policy.Named {
	t.Helper()
	const file = "../../examples/node-role/ccm-node-role-policy.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := policy.Parse(data, policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	return []policy.Named{{Name: file, Document: doc}}
}

// controllersDir holds real controllers' manifests, unchanged, with the
// overlay and the request a platform engineer adds (its README).
const controllersDir = "../../test/e2e/testdata/controllers"

// controllerManifests are the manifests of one folder of controllersDir,
// with its overlay applied and its request.
func controllerManifests(t *testing.T, dir, route string) string {
	t.Helper()
	m, err := realcontrollers.Manifests(dir, route)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// findingID is a finding's ID at the start of one of Lines.
var findingID = regexp.MustCompile(`(?m)^(LEASH-[A-Z]+-\d+) \(`)

// webhookVerdict is what the pod webhooks make of pod p created in a
// cluster holding the objects of cluster, the operator given the node
// role's policies nodeRole (none: nil): mutated as the mutating webhook
// patches it, then judged by the validating one. admitted is the
// validating webhook's answer (false too when the mutating one refuses);
// ids are the finding IDs of the refusal and the warnings, sorted.
func webhookVerdict(t *testing.T, cluster string, p workload.Pod, nodeRole []policy.Named) (admitted bool, ids []string, stored *corev1.Pod) {
	t.Helper()
	h := testHooks(t, cluster)
	h.o.NodeRole = nodeRole
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels, Annotations: p.Annotations}, Spec: p.Spec}
	ctx := context.Background()
	req := create(t, pod)
	req.Namespace = p.Namespace
	resp := h.mutate(ctx, req)
	read := func(msg string, warnings []string) {
		for _, m := range findingID.FindAllStringSubmatch(msg+"\n"+strings.Join(warnings, "\n"), -1) {
			ids = append(ids, m[1])
		}
		slices.Sort(ids)
	}
	if !resp.Allowed {
		read(resp.Result.Message, resp.Warnings)
		return false, ids, nil
	}
	raw := req.Object.Raw
	if len(resp.Patches) > 0 {
		ops, err := json.Marshal(resp.Patches)
		if err != nil {
			t.Fatal(err)
		}
		patch, err := jsonpatch.DecodePatch(ops)
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = patch.Apply(raw); err != nil {
			t.Fatal(err)
		}
	}
	stored = &corev1.Pod{}
	if err := json.Unmarshal(raw, stored); err != nil {
		t.Fatal(err)
	}
	req = create(t, stored)
	req.Namespace = p.Namespace
	resp = h.validate(false)(ctx, req)
	msg := ""
	if resp.Result != nil {
		msg = resp.Result.Message
	}
	read(msg, resp.Warnings)
	return resp.Allowed, ids, stored
}

// checkVerdict is what leash check workload reports of pod p among the
// objects of cluster, given the node role's policies nodeRole: the findings of the pod wired as admission stores it
// (the CLI's --mode default, Manual), and their IDs, sorted.
func checkVerdict(t *testing.T, cluster string, p workload.Pod, nodeRole []policy.Named) ([]analyze.Finding, []string) {
	t.Helper()
	s, err := workload.Parse("cluster.yaml", []byte(cluster))
	if err != nil {
		t.Fatal(err)
	}
	s.Pods, s.NodeRole = []workload.Pod{p}, nodeRole
	s.Mode = leashv1.ModeManual
	if err := WireSet(s, Wiring{Mode: s.Mode}); err != nil {
		t.Fatal(err)
	}
	fs := workload.CheckPod(s, s.Pods[0])
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	slices.Sort(ids)
	return fs, ids
}

// TestRealControllers takes real controllers' manifests, unchanged, with
// the overlay and request a platform engineer adds, and creates each pod
// through the webhooks: it is admitted, or refused with findings; then each
// finding's fix, applied as its text says, until the pod is admitted with
// no finding at all. check workload and the webhooks agree at every step.
func TestRealControllers(t *testing.T) {
	ccmNodeRole := exampleNodeRole(t)
	tests := []struct {
		name, dir, pod string
		// route names the overlay (overlay-ROUTE.yaml; "" is overlay.yaml),
		// and nodeRole the node role's policies the operator is given.
		route    string
		nodeRole []policy.Named
		// first are the finding IDs of the first verdict, sorted; refused
		// says whether it refuses the pod.
		first   []string
		refused bool
		// rounds is how many rounds of fixes lead to a clean admission; -1
		// when the fix is the operator's, not the manifest's.
		rounds int
	}{
		{"the EBS CSI controller's optional aws-secret key pair is refused; dropping the two variables admits it",
			"aws-ebs-csi-driver", "ebs-csi-controller", "", nil,
			[]string{"LEASH-WL-004", "LEASH-WL-004", "LEASH-WL-006", "LEASH-WL-007", "LEASH-WL-007"}, true, 1},
		{"the EBS CSI node plugin, given no credentials, is left alone",
			"aws-ebs-csi-driver", "ebs-csi-node", "", nil, nil, false, 0},
		{"the load balancer controller is wired and admitted, warned of its egress until it has a policy",
			"aws-load-balancer-controller", "controller", "", nil, []string{"LEASH-WL-006"}, false, 1},
		{"the cloud controller manager in the host network is refused; leaving it and a policy admit it",
			"aws-cloud-controller-manager", "aws-cloud-controller-manager", "", nil, []string{"LEASH-WL-001", "LEASH-WL-006"}, true, 1},
		{"the cloud controller manager under the metadata profile stays in the host network and is admitted wired once the operator has the node role's policies",
			"aws-cloud-controller-manager", "aws-cloud-controller-manager", "metadata", ccmNodeRole, nil, false, 0},
		{"the cloud controller manager under the metadata profile, the operator without the node role's policies, is refused with the flag to give them",
			"aws-cloud-controller-manager", "aws-cloud-controller-manager", "metadata", nil, []string{"LEASH-WL-011"}, true, -1},
		{"the ACK S3 controller is wired and admitted, warned of its egress until it has a policy",
			"ack-s3-controller", "ack-s3-controller", "", nil, []string{"LEASH-WL-006"}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster := controllerManifests(t, filepath.Join(controllersDir, tt.dir), tt.route)
			s, err := workload.Parse(tt.dir, []byte(cluster))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(s.Pods, func(p workload.Pod) bool { return p.Name == tt.pod })
			if i < 0 {
				t.Fatalf("no workload %s in %s", tt.pod, tt.dir)
			}
			p := s.Pods[i]
			for round := 0; ; round++ {
				admitted, ids, stored := webhookVerdict(t, cluster, p, tt.nodeRole)
				findings, checked := checkVerdict(t, cluster, p, tt.nodeRole)
				if !slices.Equal(ids, checked) {
					t.Fatalf("round %d: the webhooks report %v, check workload %v", round, ids, checked)
				}
				if round == 0 {
					if !slices.Equal(ids, tt.first) || admitted == tt.refused {
						t.Fatalf("first verdict: admitted %v with %v, want refused %v with %v", admitted, ids, tt.refused, tt.first)
					}
					if tt.rounds < 0 {
						return
					}
				}
				if len(ids) == 0 {
					if !admitted {
						t.Fatalf("round %d: refused with no finding", round)
					}
					if round != tt.rounds {
						t.Errorf("admitted clean after %d rounds of fixes, want %d", round, tt.rounds)
					}
					if _, named := p.Annotations[workload.AnnotationCredentials]; named != (stored.Annotations[workload.AnnotationCredentialsInjected] != "") {
						t.Errorf("stored annotations %v: a pod naming its request is wired, another is not", stored.Annotations)
					}
					return
				}
				if round == 4 {
					t.Fatalf("still %v after %d rounds of fixes", ids, round)
				}
				if err := realcontrollers.FixAll(&cluster, &p, findings); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// agreementFiles are the manifests both suites hold, each set as one
// cluster: workload's fixtures and the e2e fixtures file by file, each
// folder of examples/ whole (as leash check workload examples/DIR reads
// it), and each real controller as its overlay leaves it.
func agreementFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	read := func(key string, files ...string) {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out[key] += "\n---\n" + string(data)
		}
	}
	for _, pattern := range []string{"../workload/testdata/*.yaml", "../workload/testdata/*/*.yaml", "../../test/e2e/testdata/*.yaml", "../../test/e2e/testdata/openshift/*.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			read(f, f)
		}
	}
	examples, err := filepath.Glob("../../examples/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range examples {
		files, err := filepath.Glob(filepath.Join(d, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		read(d, files...)
	}
	overlays, err := filepath.Glob(filepath.Join(controllersDir, "*", "overlay*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range overlays {
		route := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(filepath.Base(o), "overlay"), "-"), ".yaml")
		out[o] = controllerManifests(t, filepath.Dir(o), route)
	}
	return out
}

// TestCheckWorkloadAgreesWithTheWebhooks: for every pod of every fixture
// that a leash credential reaches, the findings leash check workload
// reports are the ones the webhooks refuse or warn of, by ID. A pod no
// leash credential reaches (a key pair of its own, from a Secret no request
// writes) has no verdict in admission, which leaves it alone (Judge), while
// check workload reports what it finds: the pods where the two differ so
// are listed here, so that one more is a change to explain.
func TestCheckWorkloadAgreesWithTheWebhooks(t *testing.T) {
	notLeash := []string{
		"../workload/testdata/controllers/ack-s3-controller.yaml: Deployment ack-system/ack-s3-controller",
		"../workload/testdata/controllers/aws-ebs-csi-driver.yaml: Deployment kube-system/ebs-csi-controller",
	}
	var alone []string
	pods := 0
	for name, manifests := range agreementFiles(t) {
		s, err := workload.Parse(name, []byte(manifests))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, p := range s.Pods {
			pods++
			admitted, webhook, stored := webhookVerdict(t, manifests, p, nil)
			_, checked := checkVerdict(t, manifests, p, nil)
			if !workload.ReceivesLeash(s, p) {
				if len(checked) > 0 {
					alone = append(alone, p.Source)
				}
				if !admitted || len(webhook) > 0 || stored == nil || stored.Annotations[workload.AnnotationCredentialsInjected] != "" {
					t.Errorf("%s, which no leash credential reaches: admitted %v with %v, want admitted unwired with none", p.Source, admitted, webhook)
				}
				continue
			}
			if !slices.Equal(webhook, checked) {
				t.Errorf("%s: the webhooks report %v, check workload %v", p.Source, webhook, checked)
			}
		}
	}
	slices.Sort(alone)
	if !slices.Equal(alone, notLeash) {
		t.Errorf("pods no leash credential reaches that check workload reports %v, want %v", alone, notLeash)
	}
	if pods < 16 {
		t.Errorf("%d pods in the fixtures, want at least 16", pods)
	}
}
