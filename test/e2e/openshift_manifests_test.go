package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/policy"
)

// openshiftDir holds the OpenShift operators' CredentialsRequest manifests,
// unchanged (testdata/openshift/README.md says where each comes from).
const openshiftDir = "testdata/openshift"

// openshiftNS is the namespace every one of those requests lives in.
const openshiftNS = "openshift-cloud-credential-operator"

// openshiftOutcome is what leash makes of one request of the corpus: Ready
// with its Secret, refused with a reason, or Ignored as another cloud's.
type openshiftOutcome struct {
	name string
	// state is the Ready condition's reason in a cluster and the STATE
	// column of leash apply: Ready, Ignored, or the refusal's reason.
	state string
	// failure is the condition a refusal sets True.
	failure leashv1.CredentialsRequestConditionType
	// says is a text the refusal's message holds, naming the field or the
	// finding and the fix.
	says string
}

const ready, ignored = "Ready", "Ignored"

// openshiftOutcomes is each distinct request's outcome, after the later
// file in name order has replaced an earlier one of the same name
// (aws-load-balancer-controller.yaml the -minify one,
// cluster-storage-operator-aws-ebs.yaml the older aws-ebs-csi-driver-operator.yaml).
// It pins how leash reads these real requests today: a change of any row is
// a change of behaviour to explain.
var openshiftOutcomes = []openshiftOutcome{
	// AWS requests leash mints as asked.
	{name: "aws-load-balancer-controller", state: ready},
	{name: "aws-load-balancer-operator", state: ready},
	{name: "cert-manager", state: ready},
	{name: "cloud-credential-operator-iam-ro", state: ready},
	{name: "openshift-image-registry", state: ready},
	{name: "openshift-ingress", state: ready},
	{name: "openshift-cloud-network-config-controller-aws", state: ready},
	{name: "aws-ebs-csi-driver-operator", state: ready},
	{name: "external-dns", state: ready},

	// A template, applied unrendered: refused naming the field.
	{name: "openshift-aws-efs-csi-driver", state: "UnrenderedTemplate", failure: leashv1.CredentialsProvisionFailure,
		says: `spec.secretRef.namespace: "${NAMESPACE}" holds ${NAMESPACE}: the manifest is a template`},
	// iam:PassRole and ec2:RunInstances on "*": a critical escalation path,
	// refused at the default --refuse-escalation.
	{name: "openshift-cluster-api-aws", state: "PrivilegeEscalation", failure: leashv1.CredentialsProvisionFailure,
		says: "critical LEASH-ESC-014 at spec.providerSpec.statementEntries[0]"},
	{name: "openshift-machine-api-aws", state: "PrivilegeEscalation", failure: leashv1.CredentialsProvisionFailure,
		says: "critical LEASH-ESC-014 at spec.providerSpec.statementEntries[0]"},

	// Other clouds' requests, beside the AWS ones in the same files.
	{name: "openshift-cluster-api-azure", state: ignored, says: "AzureProviderSpec"},
	{name: "openshift-cluster-api-gcp", state: ignored, says: "GCPProviderSpec"},
	{name: "openshift-cluster-api-openstack", state: ignored, says: "OpenStackProviderSpec"},
	{name: "openshift-cluster-api-powervs", state: ignored, says: "IBMCloudPowerVSProviderSpec"},
	{name: "openshift-cluster-api-vsphere", state: ignored, says: "VSphereProviderSpec"},
	{name: "openshift-ingress-azure", state: ignored, says: "AzureProviderSpec"},
	{name: "openshift-ingress-gcp", state: ignored, says: "GCPProviderSpec"},
	{name: "openshift-ingress-ibmcloud", state: ignored, says: "IBMCloudProviderSpec"},
	{name: "openshift-ingress-powervs", state: ignored, says: "IBMCloudPowerVSProviderSpec"},
	{name: "openshift-cloud-network-config-controller-gcp", state: ignored, says: "GCPProviderSpec"},
	{name: "openshift-cloud-network-config-controller-azure", state: ignored, says: "AzureProviderSpec"},
	{name: "openshift-cloud-network-config-controller-openstack", state: ignored, says: "OpenStackProviderSpec"},
	{name: "openshift-machine-api-azure", state: ignored, says: "AzureProviderSpec"},
	{name: "openshift-machine-api-openstack", state: ignored, says: "OpenStackProviderSpec"},
	{name: "openshift-machine-api-gcp", state: ignored, says: "GCPProviderSpec"},
	{name: "openshift-machine-api-vsphere", state: ignored, says: "VSphereProviderSpec"},
	{name: "openshift-machine-api-ibmcloud", state: ignored, says: "IBMCloudProviderSpec"},
	{name: "openshift-machine-api-powervs", state: ignored, says: "IBMCloudPowerVSProviderSpec"},
	{name: "openshift-machine-api-nutanix", state: ignored, says: "NutanixProviderSpec"},
}

// openshiftObjects reads every YAML document of the corpus's files, in file
// name order, as the API server takes them.
func openshiftObjects(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(openshiftDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) != 14 {
		t.Fatalf("%s holds %d manifests, want the 14 its README lists", openshiftDir, len(files))
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := k8syaml.NewYAMLOrJSONDecoder(strings.NewReader(string(data)), 4096)
		for {
			u := &unstructured.Unstructured{}
			err := dec.Decode(&u.Object)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(u.Object) == 0 {
				continue
			}
			if u.GetKind() != "CredentialsRequest" || u.GetNamespace() != openshiftNS {
				t.Fatalf("%s holds a %s in %q, want CredentialsRequests in %s", f, u.GetKind(), u.GetNamespace(), openshiftNS)
			}
			out = append(out, u)
		}
	}
	return out
}

// TestOpenShiftManifests applies fourteen OpenShift operators' AWS
// CredentialsRequest manifests, unchanged, to a real API server with `leash
// operator` running against leash local, and pins each request's outcome
// (openshiftOutcomes): a Ready one's minted user holds exactly the requested
// statements and leash's own iam:GetUser on itself; a refused one names the
// field or finding and the fix; another cloud's is Ignored, with no Secret.
// `leash apply` on the same folder refuses it for its duplicate names, and on
// the folder without the replaced files gives the same table.
func TestOpenShiftManifests(t *testing.T) {
	objs := openshiftObjects(t)
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()

	// The namespaces the manifests name, the requests' own and their
	// Secrets'; a template's ${NAMESPACE} names none.
	namespaces := map[string]bool{openshiftNS: true}
	for _, u := range objs {
		ns, _, _ := unstructured.NestedString(u.Object, "spec", "secretRef", "namespace")
		if len(validation.IsDNS1123Label(ns)) == 0 {
			namespaces[ns] = true
		}
	}
	for ns := range namespaces {
		cl.namespace(t, ns)
	}

	runs := newOperatorRuns(t, "operator", "--kubeconfig", cl.api.Kubeconfig(t, "operator"),
		"--iam-endpoint", cl.url, "--root-credentials-file", cl.local.AdminCredentialsPath(),
		"--cluster-name", "openshift", "--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	p := runs.next()
	p.start(t)

	// As `kubectl apply --server-side` does: a later object of the same
	// name replaces the earlier one's fields.
	for _, u := range objs {
		if err := cl.c.Patch(ctx, u, client.Apply, client.FieldOwner("openshift-manifests"), client.ForceOwnership); err != nil {
			t.Fatalf("apply %s/%s: %v", u.GetNamespace(), u.GetName(), err)
		}
	}

	var list leashv1.CredentialsRequestList
	waitFor(t, 90*time.Second, "every request's outcome", func() (bool, string) {
		select {
		case <-p.exited:
			t.Fatalf("the operator exited by itself: %v", p.err)
		default:
		}
		list = leashv1.CredentialsRequestList{}
		if err := cl.c.List(ctx, &list, client.InNamespace(openshiftNS)); err != nil {
			t.Fatal(err)
		}
		var off []string
		for _, cr := range list.Items {
			want, ok := outcomeOf(cr.Name)
			if got := readyReason(&cr); !ok || got != wantReason(want) || cr.Status.LastSyncGeneration != cr.Generation {
				off = append(off, fmt.Sprintf("%s: %s (generation %d synced %d)", cr.Name, got, cr.Generation, cr.Status.LastSyncGeneration))
			}
		}
		return len(off) == 0 && len(list.Items) == len(openshiftOutcomes), fmt.Sprintf("%d requests; not as pinned: %v", len(list.Items), off)
	})

	admin := cl.iamClient(cl.adminKey(t))
	var secrets []string
	for i := range list.Items {
		cr := &list.Items[i]
		want, _ := outcomeOf(cr.Name)
		t.Run(cr.Name, func(t *testing.T) {
			readyCond := conditionOf(cr, leashv1.Ready)
			switch want.state {
			case ready:
				requested, err := operator.RequestedPolicy(cr)
				if err != nil {
					t.Fatal(err)
				}
				user := userOf(t, cr)
				if cr.Status.Principal != "arn:aws:iam::"+account+":user/leash/openshift/"+user {
					t.Errorf("status.principal %q, want the minted user %s", cr.Status.Principal, user)
				}
				got, err := admin.UserPolicies(ctx, user)
				if err != nil {
					t.Fatal(err)
				}
				var held []*policy.Document
				for _, d := range got.Identity {
					doc, err := policy.Parse([]byte(d.Document), policy.Identity)
					if err != nil {
						t.Fatalf("%s: %v", d.Name, err)
					}
					held = append(held, doc)
				}
				if extra := statementsBeyond(held, requested); len(extra) != 1 || extra[0] != statementKey(getUserOn(cr.Status.Principal)) {
					t.Errorf("user %s holds, beyond the requested statements, %q; want exactly leash's own iam:GetUser on itself\nrequested: %v",
						user, extra, keysOf(requested.Statements))
				}
				if missing := statementsBeyond([]*policy.Document{requested}, held...); len(missing) != 0 {
					t.Errorf("user %s lacks the requested statements %q", user, missing)
				}
				ref := cr.Spec.SecretRef
				s := cl.secret(t, ref.Namespace, ref.Name)
				if s == nil || len(s.Data[operator.SecretKeyID]) == 0 {
					t.Fatalf("Ready with no key in Secret %s/%s", ref.Namespace, ref.Name)
				}
				secrets = append(secrets, string(s.Data[operator.SecretKeySecret]))
			case ignored:
				if c := conditionOf(cr, leashv1.Ignored); c == nil || c.Status != corev1.ConditionTrue || !strings.Contains(c.Message, want.says) {
					t.Errorf("Ignored condition %+v, want True naming %s", c, want.says)
				}
				if cr.Status.Principal != "" || cr.Status.Mode != leashv1.ModeIgnored {
					t.Errorf("status mode %q principal %q, want Ignored and no principal", cr.Status.Mode, cr.Status.Principal)
				}
			default:
				c := conditionOf(cr, want.failure)
				if c == nil || c.Status != corev1.ConditionTrue || c.Reason != want.state || !strings.Contains(c.Message, want.says) {
					t.Errorf("%s condition %+v, want True with reason %s naming %q", want.failure, c, want.state, want.says)
				}
				if cr.Status.Principal != "" {
					t.Errorf("status.principal %q for a refused request, want none", cr.Status.Principal)
				}
				if want.state == "PrivilegeEscalation" && !strings.Contains(readyCond.Message, "escalationNamespaces in leash's ConfigMap") {
					t.Errorf("message %q: want the operator's refusal to send the author to leash's ConfigMap", readyCond.Message)
				}
			}
		})
	}
	p.terminate(t)
	runs.checkNoSecrets(t, secrets)

	t.Run("leash apply refuses the folder: two files name the same request", func(t *testing.T) {
		dir := t.TempDir()
		out, stderr, code := applyRun(t, "-f", openshiftDir, "--data", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
		if code != 2 || !strings.Contains(stderr, "CredentialsRequest "+openshiftNS+"/aws-load-balancer-controller is also in") ||
			!strings.Contains(stderr, "names must be unique per namespace") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 2 naming the duplicate aws-load-balancer-controller", code, out, stderr)
		}
	})
	t.Run("leash apply on the folder without the replaced files gives the same outcomes", func(t *testing.T) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in")
		if err := os.Mkdir(in, 0o755); err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(openshiftDir, "*.yaml"))
		for _, f := range files {
			if b := filepath.Base(f); b == "aws-load-balancer-controller-minify.yaml" || b == "aws-ebs-csi-driver-operator.yaml" {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(in, filepath.Base(f)), string(data))
		}
		out, stderr, code := applyRun(t, "-f", in, "--data", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
		if code != 1 {
			t.Errorf("exit %d, want 1: some requests are refused\n%s%s", code, out, stderr)
		}
		rows := map[string]string{}
		for _, line := range strings.Split(out, "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 5 {
				break
			}
			rows[strings.TrimPrefix(f[0], openshiftNS+"/")] = f[len(f)-1]
		}
		for _, want := range openshiftOutcomes {
			if got := rows[want.name]; got != want.state {
				t.Errorf("%s: STATE %q, want %q", want.name, got, want.state)
			}
			if want.failure != "" && !strings.Contains(out, want.says) {
				t.Errorf("%s: the output does not say %q", want.name, want.says)
			}
		}
		if len(rows) != len(openshiftOutcomes) {
			t.Errorf("%d rows, want %d\n%s", len(rows), len(openshiftOutcomes), out)
		}
		if !strings.Contains(out, "run `leash apply` again with --escalation-namespaces "+openshiftNS) {
			t.Errorf("apply's escalation refusal does not name its own --escalation-namespaces:\n%s", out)
		}
	})
}

func outcomeOf(name string) (openshiftOutcome, bool) {
	i := slices.IndexFunc(openshiftOutcomes, func(o openshiftOutcome) bool { return o.name == name })
	if i < 0 {
		return openshiftOutcome{}, false
	}
	return openshiftOutcomes[i], true
}

// wantReason is the Ready condition's reason for an outcome.
func wantReason(o openshiftOutcome) string {
	if o.state == ready {
		return "CredentialsReady"
	}
	return o.state
}

// readyReason is the Ready condition's reason, "" before the first sync.
func readyReason(cr *leashv1.CredentialsRequest) string {
	if c := conditionOf(cr, leashv1.Ready); c != nil {
		return c.Reason
	}
	return ""
}

// getUserOn is leash's own statement in a minted user's policy: the user
// may read itself.
func getUserOn(arn string) *policy.Statement {
	return &policy.Statement{Effect: policy.Allow, Action: []string{"iam:GetUser"}, Resource: []string{arn}}
}

// statementKey is a statement as the comparison sees it: effect, sorted
// actions and resources, and conditions.
func statementKey(st *policy.Statement) string {
	return fmt.Sprintf("%s %v %v %v %v %v", st.Effect, sortedCopy(st.Action), sortedCopy(st.NotAction), sortedCopy(st.Resource), sortedCopy(st.NotResource), st.Conditions)
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func keysOf(sts []policy.Statement) []string {
	out := make([]string, len(sts))
	for i := range sts {
		out[i] = statementKey(&sts[i])
	}
	return out
}

// statementsBeyond lists the statements of docs that are not in any of
// others, each once for each time it is in docs beyond its count there.
func statementsBeyond(docs []*policy.Document, others ...*policy.Document) []string {
	count := map[string]int{}
	for _, d := range others {
		for _, k := range keysOf(d.Statements) {
			count[k]++
		}
	}
	var out []string
	for _, d := range docs {
		for _, k := range keysOf(d.Statements) {
			if count[k] > 0 {
				count[k]--
				continue
			}
			out = append(out, k)
		}
	}
	return out
}
