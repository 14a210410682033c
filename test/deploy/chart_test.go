package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/apiserver"
)

// chartDir is the Helm chart under test, from this folder.
const chartDir = "../../deploy/helm/leash"

// helmOnlyLabels are the labels Helm's conventions add to every object,
// which deploy/ has no use for; they are all that may differ.
var helmOnlyLabels = []string{"helm.sh/chart", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by"}

// helmPath is the helm that hack/helm.sh builds from the Go module proxy
// into the same cache as the API server. The test fails, rather than
// skips, when it is missing.
func helmPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HELM"); p != "" {
		return p
	}
	p := filepath.Join(filepath.Dir(filepath.Dir(apiserver.AssetsDir())), "bin", "helm")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("helm is missing (%v); build it (about 3 minutes the first time) with\n\texport HELM=\"$(hack/helm.sh)\"\nfrom the repository root, as make test and .ci/run do", err)
	}
	return p
}

// helmTemplate renders the chart as `helm install` would in leash-system,
// with the CRD, and returns the objects, or helm's error output.
func helmTemplate(t *testing.T, args ...string) ([]*unstructured.Unstructured, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, helmPath(t), append([]string{"template", "leash", chartDir, "--namespace", namespace, "--include-crds"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, errOut.String(), err
	}
	return decodeObjects(t, "helm template", out.String()), errOut.String(), nil
}

// TestChartMatchesDeploy keeps the chart and deploy/ from drifting: with
// the values that match deploy/'s settings (the image tag deploy/ sets),
// the chart renders the same objects, field for field, but for Helm's own
// labels and the pod template's config checksum. The Namespace is
// deploy/'s alone: helm install --create-namespace makes it.
func TestChartMatchesDeploy(t *testing.T) {
	chart, stderr, err := helmTemplate(t, "--set", "image.tag=latest")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	kustomized := byKey(t, render(t, kubectlPath(t), deployDir))
	delete(kustomized, "Namespace/"+namespace)
	charted := byKey(t, chart)
	for k, want := range kustomized {
		got, ok := charted[k]
		if !ok {
			t.Errorf("%s is in deploy/ but not in the chart", k)
			continue
		}
		normalize(got)
		normalize(want)
		if d := diffFields(got.Object, want.Object); d != "" {
			t.Errorf("%s differs between the chart and deploy/ (- chart, + deploy/):\n%s", k, d)
		}
	}
	for k := range charted {
		if _, ok := kustomized[k]; !ok {
			t.Errorf("%s is in the chart but not in deploy/", k)
		}
	}
}

// normalize drops what only Helm adds.
func normalize(u *unstructured.Unstructured) {
	strip := func(labels map[string]string) map[string]string {
		for _, l := range helmOnlyLabels {
			delete(labels, l)
		}
		return labels
	}
	if l := strip(u.GetLabels()); len(l) > 0 {
		u.SetLabels(l)
	}
	if u.GetKind() == "Deployment" {
		unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "annotations", "checksum/config")
		if a, _, _ := unstructured.NestedMap(u.Object, "spec", "template", "metadata", "annotations"); len(a) == 0 {
			unstructured.RemoveNestedField(u.Object, "spec", "template", "metadata", "annotations")
		}
	}
}

// TestChartValues pins that the values reach the operator's settings, and
// that a bad value fails at render time with a message naming it (the
// chart's values.schema.json), before anything is installed.
func TestChartValues(t *testing.T) {
	ceiling := filepath.Join(t.TempDir(), "ceiling.json")
	if err := os.WriteFile(ceiling, []byte(`{"Version":"2012-10-17","Statement":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, stderr, err := helmTemplate(t, "--set", "mode=STS", "--set", "clusterName=prod-eu1", "--set", "rotateAfter=2160h",
		"--set-file", "ceiling="+ceiling, "--set", "escalationNamespaces={ops,platform}",
		"--set", "image.repository=registry.example.com/leash", "--set", "image.tag=v0.3.0")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	m := byKey(t, objs)
	data, _, _ := unstructured.NestedStringMap(m["ConfigMap/leash-config"].Object, "data")
	for k, want := range map[string]string{"mode": "STS", "clusterName": "prod-eu1", "rotateAfter": "2160h", "escalationNamespaces": "ops,platform", "ceiling": `{"Version":"2012-10-17","Statement":[]}`} {
		if data[k] != want {
			t.Errorf("ConfigMap %s = %q, want %q", k, data[k], want)
		}
	}
	if c := container(as[appsv1.Deployment](t, m["Deployment/leash-operator"]), "operator"); c == nil || c.Image != "registry.example.com/leash:v0.3.0" {
		t.Errorf("operator container %+v; want image registry.example.com/leash:v0.3.0", c)
	}

	// Without the webhook: no configurations, no Service, no port or flag.
	objs, stderr, err = helmTemplate(t, "--set", "webhook.enabled=false")
	if err != nil {
		t.Fatalf("helm template --set webhook.enabled=false: %v\n%s", err, stderr)
	}
	m = byKey(t, objs)
	for _, k := range []string{"MutatingWebhookConfiguration/leash", "ValidatingWebhookConfiguration/leash", "Service/leash-webhook"} {
		if m[k] != nil {
			t.Errorf("webhook.enabled=false still renders %s", k)
		}
	}
	if c := container(as[appsv1.Deployment](t, m["Deployment/leash-operator"]), "operator"); c == nil || slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--webhook") }) || len(c.Ports) != 2 {
		t.Errorf("webhook.enabled=false: operator container %+v still serves the webhook", c)
	}

	for _, tt := range []struct {
		name string
		set  []string
		want string
	}{
		{"an unknown mode", []string{"--set", "mode=Mintt"}, "mode"},
		{"a misspelt key", []string{"--set", "clustername=prod"}, "clustername"},
		{"a duration that is not one", []string{"--set", "rotateAfter=30 days"}, "rotateAfter"},
		{"a cluster name IAM refuses", []string{"--set", "clusterName=prod/eu"}, "clusterName"},
		{"an unknown severity", []string{"--set", "refuseEscalation=severe"}, "refuseEscalation"},
		{"an unknown webhook severity", []string{"--set", "webhook.refuseAt=never"}, "refuseAt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := helmTemplate(t, tt.set...)
			if err == nil || !strings.Contains(stderr, "values don't meet the specifications of the schema") || !strings.Contains(stderr, tt.want) {
				t.Errorf("helm template %v: %v\n%s\nwant a schema error naming %s", tt.set, err, stderr, tt.want)
			}
		})
	}
}

// operatorRules are the grants of the operator, webhook aside;
// webhookRules are those the admission webhook alone needs: its
// configurations (read, watched, and the caBundle of leash's own written),
// what it judges a pod by, the author checks of the CredentialsRequest
// webhook, and the Secret its certificate is kept in. checkRules reads
// them; TestRendered pins deploy/ to both.
var (
	operatorRules = struct{ cluster, namespaced []string }{
		cluster: []string{
			"cloudcredential.openshift.io credentialsrequests get list watch update patch",
			"cloudcredential.openshift.io credentialsrequests/status get update patch",
			"cloudcredential.openshift.io credentialsrequests/finalizers update",
			"leash.dev credentialsupgradechecks create",
			"leash.dev credentialsupgradechecks get @cluster",
			"leash.dev credentialsupgradechecks/status update @cluster",
			" secrets get list watch create update patch delete",
			" namespaces get list watch",
			" serviceaccounts/token create",
			" events create patch",
			"events.k8s.io events create patch",
		},
		namespaced: []string{
			" configmaps get list watch",
			"coordination.k8s.io leases get list watch create update patch delete",
		},
	}
	webhookRules = struct{ cluster, namespaced []string }{
		cluster: []string{
			"admissionregistration.k8s.io mutatingwebhookconfigurations get list watch",
			"admissionregistration.k8s.io validatingwebhookconfigurations get list watch",
			"admissionregistration.k8s.io mutatingwebhookconfigurations update patch @leash",
			"admissionregistration.k8s.io validatingwebhookconfigurations update patch @leash",
			" serviceaccounts get list watch",
			"networking.k8s.io networkpolicies get list watch",
			"authorization.k8s.io subjectaccessreviews create",
		},
		namespaced: []string{
			" secrets create",
			" secrets get update @leash-webhook-tls",
		},
	}
)

// TestChartWebhookRBAC pins that the chart grants the webhook's rights
// exactly when it installs the webhook, and the operator's others either
// way.
func TestChartWebhookRBAC(t *testing.T) {
	for _, tt := range []struct {
		name    string
		enabled bool
	}{
		{"webhook.enabled=true grants the webhook's rules", true},
		{"webhook.enabled=false grants none of the webhook's rules", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs, stderr, err := helmTemplate(t, "--set", fmt.Sprintf("webhook.enabled=%v", tt.enabled))
			if err != nil {
				t.Fatalf("helm template: %v\n%s", err, stderr)
			}
			m := byKey(t, objs)
			wantCluster, wantNamespaced := slices.Clone(operatorRules.cluster), slices.Clone(operatorRules.namespaced)
			if tt.enabled {
				wantCluster = append(wantCluster, webhookRules.cluster...)
				wantNamespaced = append(wantNamespaced, webhookRules.namespaced...)
			}
			checkRules(t, "ClusterRole", as[rbacv1.ClusterRole](t, m["ClusterRole/leash-operator"]).Rules, wantCluster)
			checkRules(t, "Role", as[rbacv1.Role](t, m["Role/leash-operator"]).Rules, wantNamespaced)
		})
	}
}

// diffFields lists the leaves that differ between two objects, one per
// line, as JSON paths with their values.
func diffFields(a, b map[string]any) string {
	fa, fb := map[string]string{}, map[string]string{}
	flatten("", a, fa)
	flatten("", b, fb)
	var lines []string
	for k, v := range fa {
		if w, ok := fb[k]; !ok || w != v {
			lines = append(lines, "- "+k+" = "+v)
		}
	}
	for k, w := range fb {
		if v, ok := fa[k]; !ok || v != w {
			lines = append(lines, "+ "+k+" = "+w)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func flatten(prefix string, v any, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			flatten(prefix+"."+k, e, out)
		}
	case []any:
		for i, e := range v {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
	default:
		j, _ := json.Marshal(v)
		out[prefix] = string(j)
	}
}

// TestHelmInstall runs README's Helm step, helm install into a new
// namespace, against a real API server: the release installs the CRD, the
// operator's Deployment with the webhook, and the webhook configurations,
// and helm uninstall removes what it installed but the CRD (Helm never
// deletes crds/, so the requests survive).
func TestHelmInstall(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{Scheme: newScheme(t)})
	kubeconfig := srv.Kubeconfig(t, "leash-installer")
	helm := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, helmPath(t), append(args, "--kubeconfig", kubeconfig)...)
		cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	out := helm("install", "leash", chartDir, "--namespace", namespace, "--create-namespace")
	t.Logf("helm install:\n%s", out)
	if !strings.Contains(out, "kubectl create secret generic aws-creds -n kube-system") || !strings.Contains(out, "leash.dev/admission=enforce") {
		t.Errorf("helm install's notes do not say how to give the root credentials and label namespaces:\n%s", out)
	}
	ctx := context.Background()
	c, err := client.New(srv.Config, client.Options{Scheme: newScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []client.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-operator"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-webhook"}},
		&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "leash"}},
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "leash"}},
		crd(),
	} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Errorf("after helm install, %T %s: %v", obj, obj.GetName(), err)
		}
	}
	var d appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "leash-operator"}, &d); err == nil {
		if op := container(&d, "operator"); op == nil || op.Image != "leash:latest" || !slices.Contains(op.Args, "--webhook-port=9443") {
			t.Errorf("installed operator container %+v; want image leash:latest (the chart's appVersion) serving the webhook", op)
		}
	}
	helm("uninstall", "leash", "--namespace", namespace)
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: "leash-operator"}, &appsv1.Deployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("after helm uninstall, the Deployment: %v; want it gone", err)
	}
	if err := c.Get(ctx, client.ObjectKey{Name: crdName}, crd()); err != nil {
		t.Errorf("after helm uninstall, the CRD: %v; want it kept", err)
	}
}

// crd is the CredentialsRequest CRD's key, to read it unstructured.
func crd() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	u.SetName(crdName)
	return u
}
