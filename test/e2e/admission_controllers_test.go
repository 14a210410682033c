package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/realcontrollers"
	"leash.dev/leash/internal/workload"
	"leash.dev/leash/policy"
)

// admissionFinding is a finding's ID at the start of a line of the
// webhook's refusal or of a warning.
var admissionFinding = regexp.MustCompile(`(?m)(?:^|\n|: )(LEASH-[A-Z]+-\d+) \(`)

// TestAdmissionRealControllers creates the pods of real controllers'
// manifests, unchanged (testdata/controllers/README.md), with the overlay
// and request a platform engineer adds, behind a real API server with the
// default admission plugins that calls the operator's webhooks through
// deploy/base/webhook.yaml, as the ReplicaSet or DaemonSet controller would
// create them. Each is admitted, or refused with findings; each finding's
// fix is then made to the manifest as its text says and the pod created
// again, until it is admitted with no finding. At every step the webhooks'
// findings are the ones leash check workload reports.
func TestAdmissionRealControllers(t *testing.T) {
	cl := newCluster(t, clusterOptions{webhooks: true})
	ctx := context.Background()
	cl.namespace(t, "ack-system")
	wio := cl.api.Env.WebhookInstallOptions
	o := cl.operatorOptions(operator.Config{})
	// The operator is given the node role's policies, as the metadata
	// profile's route asks (docs/check-workload.md, "The metadata profile").
	nodeRole := readNodeRole(t, nodeRoleFile)
	o.Webhook = &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir, RefuseAt: analyze.High, NodeRole: nodeRole}
	cl.runOperator(t, o)
	waitListening(t, wio)
	w := &warnings{}
	cfg := rest.CopyConfig(cl.api.Config)
	cfg.WarningHandler = w
	c, err := client.New(cfg, client.Options{Scheme: operator.Scheme()})
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir, workload string
		// route names the overlay: overlay-ROUTE.yaml, "" for overlay.yaml.
		route string
		// first are the IDs of the first verdict, sorted; refused says
		// whether it refuses the pod; rounds is how many rounds of fixes
		// lead to an admission with no finding.
		first   []string
		refused bool
		rounds  int
	}{
		{"the EBS CSI controller is refused for its optional aws-secret key pair, and admitted wired once the two variables are removed",
			"aws-ebs-csi-driver", "ebs-csi-controller", "", []string{"LEASH-WL-004", "LEASH-WL-004", "LEASH-WL-006", "LEASH-WL-007", "LEASH-WL-007"}, true, 1},
		{"the EBS CSI node plugin, given no credentials, is admitted unwired",
			"aws-ebs-csi-driver", "ebs-csi-node", "", nil, false, 0},
		{"the load balancer controller is admitted wired, warned of its egress until its policy exists",
			"aws-load-balancer-controller", "controller", "", []string{"LEASH-WL-006"}, false, 1},
		{"the cloud controller manager is refused in the host network, and admitted wired off it with its policy",
			"aws-cloud-controller-manager", "aws-cloud-controller-manager", "", []string{"LEASH-WL-001", "LEASH-WL-006"}, true, 1},
		{"the cloud controller manager under the metadata profile stays in the host network and is admitted wired",
			"aws-cloud-controller-manager", "aws-cloud-controller-manager", "metadata", nil, false, 0},
		{"the ACK S3 controller is admitted wired, warned of its egress until its policy exists",
			"ack-s3-controller", "ack-s3-controller", "", []string{"LEASH-WL-006"}, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster, err := realcontrollers.Manifests(filepath.Join("testdata", "controllers", tt.dir), tt.route)
			if err != nil {
				t.Fatal(err)
			}
			s, err := workload.Parse(tt.dir, []byte(cluster))
			if err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(s.Pods, func(p workload.Pod) bool { return p.Name == tt.workload })
			if i < 0 {
				t.Fatalf("no workload %s in %s", tt.workload, tt.dir)
			}
			p := s.Pods[i]
			cl.api.ServiceAccounts(t, p.Namespace, p.Spec.ServiceAccountName)
			for _, r := range s.Requests {
				// Two workloads of one folder share its request.
				if err := cl.c.Get(ctx, client.ObjectKeyFromObject(r), &leashv1.CredentialsRequest{}); apierrors.IsNotFound(err) {
					cl.create(t, r.DeepCopy())
				}
				cl.waitReady(t, r.Namespace, r.Name)
			}
			for round := 0; ; round++ {
				policies(t, cl, cluster)
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: fmt.Sprintf("%s-%d", p.Name, round), Labels: p.Labels, Annotations: p.Annotations},
					Spec: *p.Spec.DeepCopy()}
				w.reset()
				err := c.Create(ctx, pod)
				var said string
				switch {
				case err == nil:
					said = w.all()
				case apierrors.IsForbidden(err):
					said = err.Error() + "\n" + w.all()
				default:
					t.Fatalf("round %d: create: %v", round, err)
				}
				var ids []string
				for _, m := range admissionFinding.FindAllStringSubmatch(said, -1) {
					ids = append(ids, m[1])
				}
				slices.Sort(ids)
				findings := checked(t, cluster, p, nodeRole)
				var want []string
				for _, f := range findings {
					want = append(want, f.ID)
				}
				slices.Sort(want)
				if !slices.Equal(ids, want) {
					t.Fatalf("round %d: the webhooks say %v (%s), leash check workload %v", round, ids, said, want)
				}
				if bin := leashCheck(t, cluster, p, nodeRoleFile); !slices.Equal(bin, want) {
					t.Fatalf("round %d: the leash binary's check workload reports %v, in process %v", round, bin, want)
				}
				if round == 0 && (!slices.Equal(ids, tt.first) || (err != nil) != tt.refused) {
					t.Fatalf("first verdict: %v, findings %v; want refused %v with %v", err, ids, tt.refused, tt.first)
				}
				if len(ids) == 0 {
					if err != nil {
						t.Fatalf("round %d: refused with no finding: %v", round, err)
					}
					if round != tt.rounds {
						t.Errorf("admitted with no finding after %d rounds of fixes, want %d", round, tt.rounds)
					}
					stored := &corev1.Pod{}
					if err := cl.c.Get(ctx, client.ObjectKeyFromObject(pod), stored); err != nil {
						t.Fatal(err)
					}
					req, named := p.Annotations[workload.AnnotationCredentials]
					if got := stored.Annotations[workload.AnnotationCredentialsInjected]; named && got != p.Namespace+"/"+req || !named && got != "" {
						t.Errorf("stored pod's %s = %q; a pod naming its request is wired to it, another is not", workload.AnnotationCredentialsInjected, got)
					}
					if p.Spec.HostNetwork && !stored.Spec.HostNetwork {
						t.Errorf("the stored pod left the host network the manifest asks for")
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

// checked is what leash check workload reports of pod p among the objects
// of cluster, with the operator's defaults (Manual, the default audience)
// and the node role's policies nodeRole: the pod wired as admission stores
// it, then checked.
func checked(t *testing.T, cluster string, p workload.Pod, nodeRole []policy.Named) []analyze.Finding {
	t.Helper()
	s, err := workload.Parse("manifests.yaml", []byte(cluster))
	if err != nil {
		t.Fatal(err)
	}
	s.Pods, s.Mode, s.NodeRole = []workload.Pod{p}, leashv1.ModeManual, nodeRole
	if err := admission.WireSet(s, admission.Wiring{Mode: s.Mode}); err != nil {
		t.Fatal(err)
	}
	return workload.CheckPod(s, s.Pods[0])
}

// leashCheck runs the leash binary's check workload on the pod as a Pod
// manifest with the requests and NetworkPolicies of cluster, given the node
// role's policy file, and returns the IDs it reports, sorted.
func leashCheck(t *testing.T, cluster string, p workload.Pod, nodeRolePolicy string) []string {
	t.Helper()
	s, err := workload.Parse("manifests.yaml", []byte(cluster))
	if err != nil {
		t.Fatal(err)
	}
	objs := []any{&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name, Labels: p.Labels, Annotations: p.Annotations}, Spec: p.Spec}}
	for _, r := range s.Requests {
		objs = append(objs, r)
	}
	for i := range s.Policies {
		objs = append(objs, &s.Policies[i])
	}
	ids := checkWorkloadWith(t, []string{"--node-role-policy", nodeRolePolicy}, objs...)
	slices.Sort(ids)
	return ids
}

// policies creates the NetworkPolicies of cluster the API server does not
// hold yet: the ones a fix added.
func policies(t *testing.T, cl *cluster, cluster string) {
	t.Helper()
	s, err := workload.Parse("manifests.yaml", []byte(cluster))
	if err != nil {
		t.Fatal(err)
	}
	for i := range s.Policies {
		np := s.Policies[i].DeepCopy()
		if err := cl.c.Create(context.Background(), np); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// nodeRoleFile is the node role's policy of examples/node-role, which
// grants ec2:Describe* only.
var nodeRoleFile = filepath.Join("..", "..", "examples", "node-role", "ccm-node-role-policy.json")

// readNodeRole reads a node role policy file as the operator's
// --node-role-policy does.
func readNodeRole(t *testing.T, file string) []policy.Named {
	t.Helper()
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
