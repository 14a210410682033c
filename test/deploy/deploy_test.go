// Package deploy tests the installation manifests in deploy/: that kustomize
// renders the objects the operator needs with a pod that meets the
// restricted Pod Security Standard, that `kubectl apply -k` installs them on
// a real API server, and that the operator's RBAC lets it do its work and
// nothing more.
//
// The tests run kubectl (for its built-in kustomize) and kube-apiserver, both
// built by hack/envtest/build.sh at the same version; they
// fail, rather than skip, when either is missing.
package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	leashv1alpha1 "leash.dev/leash/api/v1alpha1"
	"leash.dev/leash/internal/apiserver"
)

const (
	// deployDir is the kustomization under test, from this folder.
	deployDir = "../../deploy"
	// namespace is where every namespaced object of the operator lives.
	namespace = "leash-system"
	// operatorUser is the operator's identity: ServiceAccount leash-system/leash.
	operatorUser = "system:serviceaccount:leash-system:leash"
	crdName      = "credentialsrequests.cloudcredential.openshift.io"
	// upgradeCRDName is the CRD of leash's CredentialsUpgradeCheck.
	upgradeCRDName = "credentialsupgradechecks.leash.dev"
	// nonRootUID is the user the operator runs as.
	nonRootUID = int64(65532)
)

// wantObjects is every object the kustomization renders, as Kind/name.
var wantObjects = []string{
	"ClusterRole/leash-operator",
	"ClusterRoleBinding/leash-operator",
	"ConfigMap/leash-config",
	"CustomResourceDefinition/" + crdName,
	"CustomResourceDefinition/" + upgradeCRDName,
	"Deployment/leash-operator",
	"MutatingWebhookConfiguration/leash",
	"Namespace/leash-system",
	"Role/leash-operator",
	"RoleBinding/leash-operator",
	"Service/leash-operator-metrics",
	"Service/leash-webhook",
	"ServiceAccount/leash",
	"ValidatingWebhookConfiguration/leash",
}

// clusterScoped are the kinds above that have no namespace. TestApplied
// checks this list against the API server's own discovery.
var clusterScoped = map[string]bool{
	"ClusterRole":                    true,
	"ClusterRoleBinding":             true,
	"CustomResourceDefinition":       true,
	"Namespace":                      true,
	"MutatingWebhookConfiguration":   true,
	"ValidatingWebhookConfiguration": true,
}

// kubectlPath is the kubectl built with the API server, whose built-in
// kustomize renders deploy/.
func kubectlPath(t *testing.T) string { return apiserver.Kubectl(t) }

// runKubectl runs kubectl with args and returns its standard output and
// error; it fails the test when kubectl fails.
func runKubectl(t *testing.T, kubectl string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

// render returns the objects `kubectl kustomize dir` renders, in order.
func render(t *testing.T, kubectl, dir string) []*unstructured.Unstructured {
	t.Helper()
	out, _ := runKubectl(t, kubectl, "kustomize", dir)
	return decodeObjects(t, "kubectl kustomize "+dir, out)
}

// decodeObjects decodes a stream of YAML documents, as kubectl kustomize and
// helm template print them; what names the command in errors.
func decodeObjects(t *testing.T, what, out string) []*unstructured.Unstructured {
	t.Helper()
	dec := yaml.NewYAMLOrJSONDecoder(strings.NewReader(out), 4096)
	var objs []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("decoding the output of %s: %v", what, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		objs = append(objs, u)
	}
	if len(objs) == 0 {
		t.Fatalf("%s rendered nothing", what)
	}
	return objs
}

func key(u *unstructured.Unstructured) string { return u.GetKind() + "/" + u.GetName() }

// byKey indexes objs by Kind/name and fails on duplicates.
func byKey(t *testing.T, objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
	t.Helper()
	m := map[string]*unstructured.Unstructured{}
	for _, u := range objs {
		if _, dup := m[key(u)]; dup {
			t.Errorf("%s is rendered twice", key(u))
		}
		m[key(u)] = u
	}
	return m
}

// as converts a rendered object to its Go type.
func as[T any](t *testing.T, u *unstructured.Unstructured) *T {
	t.Helper()
	if u == nil {
		t.Fatalf("the object to convert is missing")
	}
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, out, true); err != nil {
		t.Fatalf("%s: %v", key(u), err)
	}
	return out
}

func TestRendered(t *testing.T) {
	objs := byKey(t, render(t, kubectlPath(t), deployDir))

	t.Run("objects", func(t *testing.T) {
		var got []string
		for k := range objs {
			got = append(got, k)
		}
		sort.Strings(got)
		if !slices.Equal(got, wantObjects) {
			t.Errorf("rendered objects:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(wantObjects, "\n\t"))
		}
	})

	t.Run("namespaces", func(t *testing.T) {
		for k, u := range objs {
			want := namespace
			if clusterScoped[u.GetKind()] {
				want = ""
			}
			if u.GetNamespace() != want {
				t.Errorf("%s is in namespace %q; want %q", k, u.GetNamespace(), want)
			}
		}
		ns := objs["Namespace/"+namespace]
		if ns == nil {
			t.Fatalf("Namespace %s is not rendered", namespace)
		}
		if got := ns.GetLabels()["pod-security.kubernetes.io/enforce"]; got != "restricted" {
			t.Errorf("Namespace %s enforces pod security level %q; want restricted", namespace, got)
		}
	})

	t.Run("CRD", func(t *testing.T) {
		crd := objs["CustomResourceDefinition/"+crdName]
		if crd == nil {
			t.Fatalf("CRD %s is not rendered", crdName)
		}
		if g, _, _ := unstructured.NestedString(crd.Object, "spec", "group"); g != leashv1.GroupVersion.Group {
			t.Errorf("CRD group %q; want %q", g, leashv1.GroupVersion.Group)
		}
		if s, _, _ := unstructured.NestedString(crd.Object, "spec", "scope"); s != "Namespaced" {
			t.Errorf("CRD scope %q; want Namespaced", s)
		}
		up := objs["CustomResourceDefinition/"+upgradeCRDName]
		if up == nil {
			t.Fatalf("CRD %s is not rendered", upgradeCRDName)
		}
		if g, _, _ := unstructured.NestedString(up.Object, "spec", "group"); g != leashv1alpha1.GroupVersion.Group {
			t.Errorf("CRD %s group %q; want %q", upgradeCRDName, g, leashv1alpha1.GroupVersion.Group)
		}
		if s, _, _ := unstructured.NestedString(up.Object, "spec", "scope"); s != "Cluster" {
			t.Errorf("CRD %s scope %q; want Cluster: there is one check per cluster", upgradeCRDName, s)
		}
	})

	t.Run("Deployment", func(t *testing.T) {
		d := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
		checkDeployment(t, d)
	})

	t.Run("Service", func(t *testing.T) {
		d := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
		s := as[corev1.Service](t, objs["Service/leash-operator-metrics"])
		if len(s.Spec.Selector) == 0 {
			t.Errorf("Service %s selects nothing", s.Name)
		}
		for k, v := range s.Spec.Selector {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("Service %s selects %s=%s, which the operator's pods do not carry (%v)", s.Name, k, v, d.Spec.Template.Labels)
			}
		}
		if len(s.Spec.Ports) != 1 {
			t.Fatalf("Service %s has %d ports; want 1 (metrics)", s.Name, len(s.Spec.Ports))
		}
		p := s.Spec.Ports[0]
		if p.Name != "metrics" || p.Port != 8080 {
			t.Errorf("Service port %s %d; want metrics 8080", p.Name, p.Port)
		}
		if c := container(d, "operator"); c != nil {
			if got := containerPort(c, p.TargetPort); got != 8080 {
				t.Errorf("Service targets container port %d (%s); want 8080, the metrics port", got, p.TargetPort.String())
			}
		}
	})

	t.Run("webhook", func(t *testing.T) { checkWebhooks(t, objs) })

	t.Run("ConfigMap", func(t *testing.T) {
		cm := as[corev1.ConfigMap](t, objs["ConfigMap/leash-config"])
		var keys []string
		for k := range cm.Data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if want := []string{"clusterName", "escalationNamespaces", "mode", "oidcAudience", "oidcIssuer", "recheckInterval", "refuseEscalation", "rotateAfter"}; !slices.Equal(keys, want) {
			t.Errorf("ConfigMap keys %v; want %v", keys, want)
		}
		// A cluster where many teams create requests is the default: the
		// escalation gate is on and no namespace is exempt from it.
		if cm.Data["refuseEscalation"] != "critical" || cm.Data["escalationNamespaces"] != "" {
			t.Errorf("refuseEscalation %q, escalationNamespaces %q; want critical and none", cm.Data["refuseEscalation"], cm.Data["escalationNamespaces"])
		}
		if cm.Data["oidcIssuer"] != "" || cm.Data["oidcAudience"] != "sts.amazonaws.com" {
			t.Errorf("oidcIssuer %q, oidcAudience %q; want none (the cluster's to give) and sts.amazonaws.com", cm.Data["oidcIssuer"], cm.Data["oidcAudience"])
		}
		if cm.Data["mode"] != "Mint" {
			t.Errorf("mode %q; want Mint", cm.Data["mode"])
		}
		if d, err := time.ParseDuration(cm.Data["rotateAfter"]); err != nil || d != 720*time.Hour {
			t.Errorf("rotateAfter %q (%v); want 720h", cm.Data["rotateAfter"], err)
		}
		if d, err := time.ParseDuration(cm.Data["recheckInterval"]); err != nil || d != time.Minute {
			t.Errorf("recheckInterval %q (%v); want 1m, the flag's default", cm.Data["recheckInterval"], err)
		}
	})

	t.Run("bindings", func(t *testing.T) {
		want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "leash", Namespace: namespace}}
		crb := as[rbacv1.ClusterRoleBinding](t, objs["ClusterRoleBinding/leash-operator"])
		if !slices.Equal(crb.Subjects, want) || crb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "leash-operator"}) {
			t.Errorf("ClusterRoleBinding binds %+v to %+v; want ClusterRole leash-operator to %+v", crb.RoleRef, crb.Subjects, want)
		}
		rb := as[rbacv1.RoleBinding](t, objs["RoleBinding/leash-operator"])
		if !slices.Equal(rb.Subjects, want) || rb.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "leash-operator"}) {
			t.Errorf("RoleBinding binds %+v to %+v; want Role leash-operator to %+v", rb.RoleRef, rb.Subjects, want)
		}
	})

	// The rules are pinned exactly: a grant added to rbac.yaml must be added
	// here too, on purpose.
	t.Run("rules", func(t *testing.T) {
		cr := as[rbacv1.ClusterRole](t, objs["ClusterRole/leash-operator"])
		checkRules(t, "ClusterRole", cr.Rules, append(slices.Clone(operatorRules.cluster), webhookRules.cluster...))
		if cr.AggregationRule != nil {
			t.Errorf("ClusterRole aggregates other roles: %+v", cr.AggregationRule)
		}
		r := as[rbacv1.Role](t, objs["Role/leash-operator"])
		checkRules(t, "Role", r.Rules, append(slices.Clone(operatorRules.namespaced), webhookRules.namespaced...))
	})
}

// checkRules compares rules, expanded to one (group, resource, verb, name)
// each, with want: lines of "group resource verb... [@name,...]", where a
// rule without names applies to every object.
func checkRules(t *testing.T, what string, rules []rbacv1.PolicyRule, want []string) {
	t.Helper()
	expand := func(groups, resources, verbs, names []string) []string {
		if len(names) == 0 {
			names = []string{"*"}
		}
		var out []string
		for _, g := range groups {
			for _, r := range resources {
				for _, v := range verbs {
					for _, n := range names {
						out = append(out, g+"|"+r+"|"+v+"|"+n)
					}
				}
			}
		}
		return out
	}
	var got, exp []string
	for _, r := range rules {
		if len(r.NonResourceURLs) > 0 {
			t.Errorf("%s rule %+v names URLs; the tests pin rules without them", what, r)
		}
		got = append(got, expand(r.APIGroups, r.Resources, r.Verbs, r.ResourceNames)...)
	}
	for _, line := range want {
		group, rest, _ := strings.Cut(line, " ")
		f := strings.Fields(rest)
		var names []string
		if last := f[len(f)-1]; strings.HasPrefix(last, "@") {
			names, f = strings.Split(last[1:], ","), f[:len(f)-1]
		}
		exp = append(exp, expand([]string{group}, f[:1], f[1:], names)...)
	}
	sort.Strings(got)
	sort.Strings(exp)
	if !slices.Equal(got, exp) {
		t.Errorf("%s grants (group|resource|verb|name):\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(exp, "\n\t"))
	}
}

func container(d *appsv1.Deployment, name string) *corev1.Container {
	for i := range d.Spec.Template.Spec.Containers {
		if c := &d.Spec.Template.Spec.Containers[i]; c.Name == name {
			return c
		}
	}
	return nil
}

// containerPort resolves a port number or name of c; 0 when there is none.
func containerPort(c *corev1.Container, p intstr.IntOrString) int32 {
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	return 0
}

// checkDeployment checks the operator's Deployment as rendered.
func checkDeployment(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas %v; want 2, one of them leader", d.Spec.Replicas)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() {
		t.Errorf("selector %+v (%v); want one that selects the pod template", d.Spec.Selector, err)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != "leash" {
		t.Errorf("serviceAccountName %q; want leash", pod.ServiceAccountName)
	}
	if pod.AutomountServiceAccountToken == nil || !*pod.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken %v; want true: the operator needs its token", pod.AutomountServiceAccountToken)
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
		t.Errorf("%d containers and %d init containers; want the operator container only", len(pod.Containers), len(pod.InitContainers))
	}
	c := container(d, "operator")
	if c == nil {
		t.Fatalf("no container named operator")
	}
	if c.Image != "leash:latest" {
		t.Errorf("image %q; want leash:latest", c.Image)
	}
	wantArgs := []string{
		"--leader-elect", "--leader-election-namespace=leash-system",
		"--config-map=leash-system/leash-config", "--root-credentials-secret=kube-system/aws-creds",
		"--metrics-bind-address=:8080", "--health-probe-bind-address=:8081", "--webhook-port=9443",
	}
	if !slices.Equal(c.Args, wantArgs) || len(c.Command) != 0 {
		t.Errorf("command %q args %q; want the image's entry point with args %q", c.Command, c.Args, wantArgs)
	}
	if !slices.Contains(c.Env, corev1.EnvVar{Name: "AWS_EC2_METADATA_DISABLED", Value: "true"}) {
		t.Errorf("env %+v lacks AWS_EC2_METADATA_DISABLED=true", c.Env)
	}
	for name, port := range map[string]int32{"metrics": 8080, "health": 8081, "webhook": 9443} {
		if got := containerPort(c, intstr.FromString(name)); got != port {
			t.Errorf("container port %s is %d; want %d", name, got, port)
		}
	}
	for _, p := range []struct {
		what  string
		probe *corev1.Probe
		path  string
	}{{"livenessProbe", c.LivenessProbe, "/healthz"}, {"readinessProbe", c.ReadinessProbe, "/readyz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s is not an HTTP GET", p.what)
			continue
		}
		if p.probe.HTTPGet.Path != p.path || containerPort(c, p.probe.HTTPGet.Port) != 8081 {
			t.Errorf("%s gets %s on port %s; want %s on 8081", p.what, p.probe.HTTPGet.Path, p.probe.HTTPGet.Port.String(), p.path)
		}
	}
	for _, q := range []struct {
		what string
		list corev1.ResourceList
		name corev1.ResourceName
		want string
	}{
		{"requests", c.Resources.Requests, corev1.ResourceCPU, "50m"},
		{"requests", c.Resources.Requests, corev1.ResourceMemory, "64Mi"},
		{"limits", c.Resources.Limits, corev1.ResourceMemory, "256Mi"},
	} {
		got, ok := q.list[q.name]
		if !ok || got.Cmp(resource.MustParse(q.want)) != 0 {
			t.Errorf("resources.%s.%s = %s; want %s", q.what, q.name, got.String(), q.want)
		}
	}
	for _, problem := range restrictedProblems(&pod) {
		t.Errorf("pod security: %s", problem)
	}
}

// restrictedProblems lists where a pod falls short of the restricted Pod
// Security Standard, and of the operator's own settings on top of it (a
// fixed non-root user, a read-only root filesystem).
func restrictedProblems(pod *corev1.PodSpec) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	psc := pod.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		bad("the pod shares the host's network, PID or IPC namespace")
	}
	for _, v := range pod.Volumes {
		if v.HostPath != nil {
			bad("volume %s is a hostPath", v.Name)
		}
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		sc := c.SecurityContext
		if sc == nil {
			bad("container %s has no securityContext", c.Name)
			continue
		}
		nonRoot := psc.RunAsNonRoot
		if sc.RunAsNonRoot != nil {
			nonRoot = sc.RunAsNonRoot
		}
		if nonRoot == nil || !*nonRoot {
			bad("container %s: runAsNonRoot is not true", c.Name)
		}
		uid := psc.RunAsUser
		if sc.RunAsUser != nil {
			uid = sc.RunAsUser
		}
		if uid == nil || *uid != nonRootUID {
			bad("container %s: runs as user %v; want %d", c.Name, uid, nonRootUID)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			bad("container %s: allowPrivilegeEscalation is not false", c.Name)
		}
		if sc.Privileged != nil && *sc.Privileged {
			bad("container %s is privileged", c.Name)
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			bad("container %s: readOnlyRootFilesystem is not true", c.Name)
		}
		if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
			bad("container %s: capabilities %+v; want drop ALL and add none", c.Name, sc.Capabilities)
		}
		seccomp := psc.SeccompProfile
		if sc.SeccompProfile != nil {
			seccomp = sc.SeccompProfile
		}
		if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
			bad("container %s: seccomp profile %+v; want RuntimeDefault", c.Name, seccomp)
		}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				bad("container %s: host port %d", c.Name, p.HostPort)
			}
		}
	}
	return out
}

func newScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := leashv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := leashv1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestApplied installs deploy/ with kubectl apply -k, and the Helm chart as
// helm template renders it with kubectl apply --server-side (into the
// namespace deploy/base/namespace.yaml makes, as the chart's docs say), each on
// its own API server, and checks what each installed: the objects, the
// operator's pod under the restricted Pod Security Standard, and its RBAC.
func TestApplied(t *testing.T) {
	kubectl := kubectlPath(t)
	t.Run("kustomize", func(t *testing.T) {
		testApplied(t, kubectl, render(t, kubectl, deployDir), [][]string{{"-k", deployDir}})
	})
	t.Run("helm", func(t *testing.T) {
		chart, stderr, err := helmTemplate(t, "--set", "image.tag=latest")
		if err != nil {
			t.Fatalf("helm template: %v\n%s", err, stderr)
		}
		var docs []string
		for _, u := range chart {
			data, err := u.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(data))
		}
		file := filepath.Join(t.TempDir(), "chart.json")
		if err := os.WriteFile(file, []byte(strings.Join(docs, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		testApplied(t, kubectl, chart, [][]string{{"-f", filepath.Join(deployDir, "base", "namespace.yaml")}, {"-f", file}})
	})
}

// testApplied applies each of installs in turn (kubectl apply arguments) to
// a new API server and checks the result against rendered.
func testApplied(t *testing.T, kubectl string, rendered []*unstructured.Unstructured, installs [][]string) {
	scheme := newScheme(t)
	srv := apiserver.Start(t, apiserver.Options{Scheme: scheme})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// kubectl talks to the API server as an administrator of its own, with
	// a kubeconfig from envtest; its discovery cache stays in the temporary
	// folder too.
	kubeconfig := srv.Kubeconfig(t, "leash-installer")
	dir := filepath.Dir(kubeconfig)
	kubectlArgs := []string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(dir, "cache")}
	versions, skew := runKubectl(t, kubectl, append(kubectlArgs, "version")...)
	t.Logf("kubectl version:\n%s%s", versions, skew)

	for _, install := range installs {
		args := append(append(kubectlArgs, "apply", "--server-side", "--field-manager=leash-deploy-test"), install...)
		applied, warnings := runKubectl(t, kubectl, args...)
		t.Logf("kubectl apply %s:\n%s%s", strings.Join(install, " "), applied, warnings)
		if strings.Contains(warnings, "PodSecurity") {
			t.Errorf("the API server warns that the operator's pods break the namespace's Pod Security level:\n%s", warnings)
		}
	}
	waitEstablished(ctx, t, srv.Client)

	// A new client, so that its REST mapper discovers the CRD's group.
	c, err := client.New(srv.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("objects", func(t *testing.T) {
		for _, want := range rendered {
			gvk := want.GroupVersionKind()
			mapping, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Errorf("%s: the API server does not serve %s: %v", key(want), gvk, err)
				continue
			}
			if isCluster := mapping.Scope.Name() == meta.RESTScopeNameRoot; isCluster != clusterScoped[gvk.Kind] {
				t.Errorf("%s: cluster-scoped is %v on the API server, %v in this test's list", key(want), isCluster, clusterScoped[gvk.Kind])
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(gvk)
			if err := c.Get(ctx, client.ObjectKeyFromObject(want), got); err != nil {
				t.Errorf("%s was not installed: %v", key(want), err)
			}
		}
		var d appsv1.Deployment
		if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-operator"}, &d); err != nil {
			t.Fatalf("Deployment: %v", err)
		}
		if op := container(&d, "operator"); op == nil || op.Image != "leash:latest" {
			t.Errorf("installed Deployment runs %+v; want container operator with image leash:latest", op)
		}
	})

	// The API server's own PodSecurity admission judges the operator's pod:
	// a dry run creates it in leash-system, where restricted is enforced.
	// A pod without any security settings must be refused there, or the
	// namespace enforces nothing and the first check proves nothing.
	t.Run("restricted pod admitted", func(t *testing.T) {
		var d appsv1.Deployment
		if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-operator"}, &d); err != nil {
			t.Fatalf("Deployment: %v", err)
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-operator-dry-run", Labels: d.Spec.Template.Labels},
			Spec:       *d.Spec.Template.Spec.DeepCopy(),
		}
		if err := c.Create(ctx, pod, client.DryRunAll); err != nil {
			t.Errorf("the operator's pod is not admitted to %s: %v", namespace, err)
		}
		// It runs as the namespace's default ServiceAccount, which a
		// cluster's controller makes and the ServiceAccount admission
		// requires before PodSecurity judges the pod.
		srv.ServiceAccounts(t, namespace)
		loose := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "no-security-settings"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "leash:latest"}}},
		}
		err := c.Create(ctx, loose, client.DryRunAll)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "PodSecurity") {
			t.Errorf("a pod without security settings in %s: %v; want it refused by PodSecurity", namespace, err)
		}
	})

	t.Run("RBAC", func(t *testing.T) { testRBAC(ctx, t, srv.Config, c, scheme) })
}

// waitEstablished waits until the API server serves the CRDs.
func waitEstablished(ctx context.Context, t *testing.T, c client.Client) {
	t.Helper()
	for _, name := range []string{crdName, upgradeCRDName} {
		waitCRDEstablished(ctx, t, c, name)
	}
}

func waitCRDEstablished(ctx context.Context, t *testing.T, c client.Client, name string) {
	t.Helper()
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		if err := c.Get(ctx, types.NamespacedName{Name: name}, crd); err != nil {
			last = err.Error()
		} else {
			conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, x := range conds {
				cond, _ := x.(map[string]any)
				if cond["type"] == "Established" && cond["status"] == "True" {
					return
				}
			}
			last = fmt.Sprintf("conditions %v", conds)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("CRD %s was not Established within 30s: %s", name, last)
}

// rbacCase pins one rule, or the absence of one, for the operator's
// identity: an access review must answer allowed, and where call is set a
// real request must succeed (allowed) or be forbidden (not allowed).
type rbacCase struct {
	name    string
	attrs   authorizationv1.ResourceAttributes
	allowed bool
	call    func(ctx context.Context) error
}

// runRBACCases asks, as op (a client impersonating the operator), an access
// review of each case and, where it has one, makes its call.
func runRBACCases(ctx context.Context, t *testing.T, op client.Client, cases []rbacCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			review := &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &tc.attrs},
			}
			if err := op.Create(ctx, review); err != nil {
				t.Fatalf("access review: %v", err)
			}
			if review.Status.Allowed != tc.allowed {
				t.Errorf("access review of %+v: allowed %v (%s); want %v", tc.attrs, review.Status.Allowed, review.Status.Reason, tc.allowed)
			}
			if tc.call == nil {
				return
			}
			err := tc.call(ctx)
			switch {
			case tc.allowed && err != nil:
				t.Errorf("as the impersonated identity: %v", err)
			case !tc.allowed && !apierrors.IsForbidden(err):
				t.Errorf("as the impersonated identity: %v; want Forbidden", err)
			}
		})
	}
}

func testRBAC(ctx context.Context, t *testing.T, cfg *rest.Config, admin client.Client, scheme *runtime.Scheme) {
	const (
		crNamespace     = "team-a" // where the CredentialsRequest is
		secretNamespace = "app"    // where its Secret goes
		group           = "cloudcredential.openshift.io"
	)

	// Fixtures, created as the administrator.
	for _, ns := range []string{crNamespace, secretNamespace} {
		if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatalf("namespace %s: %v", ns, err)
		}
	}
	cr := &leashv1.CredentialsRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: crNamespace, Name: "ccm"},
		Spec: leashv1.CredentialsRequestSpec{
			SecretRef: corev1.ObjectReference{Namespace: secretNamespace, Name: "ccm-creds"},
			ProviderSpec: &runtime.RawExtension{Raw: []byte(`{"apiVersion":"cloudcredential.openshift.io/v1","kind":"AWSProviderSpec",` +
				`"statementEntries":[{"effect":"Allow","action":["ec2:DescribeInstances"],"resource":"*"}]}`)},
		},
	}
	rootCreds := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "aws-creds"},
		StringData: map[string]string{"aws_access_key_id": "placeholder", "aws_secret_access_key": "placeholder"},
	}
	elsewhere := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "not-leash"}}
	workloadSA := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: secretNamespace, Name: "cloud-controller"}}
	// No operator answers the webhooks here, and the CredentialsRequest
	// webhook fails closed: not even an administrator creates a request.
	// The fixture is created with it set to Ignore, then Fail again, so
	// that the finalizer update below passes only because the webhook is
	// not called for it (its matchConditions).
	failClosed := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), `failed calling webhook "credentialsrequests.leash.dev"`) {
			t.Errorf("%s while the webhook is down: %v; want refused, failing closed", what, err)
		}
	}
	failClosed("creating a CredentialsRequest", admin.Create(ctx, cr.DeepCopy()))
	// The API server takes a moment to see a changed configuration.
	eventually := func(what string, try func() error, done func(error) bool) {
		t.Helper()
		var err error
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if err = try(); done(err) {
				return
			}
		}
		t.Fatalf("%s: %v", what, err)
	}
	requestWebhookPolicy(ctx, t, admin, admissionregistrationv1.Ignore)
	eventually("creating the CredentialsRequest with the webhook ignored", func() error { return admin.Create(ctx, cr) },
		func(err error) bool { return err == nil })
	for _, o := range []client.Object{rootCreds, elsewhere, workloadSA} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
	requestWebhookPolicy(ctx, t, admin, admissionregistrationv1.Fail)
	retarget := func() error {
		var got leashv1.CredentialsRequest
		if err := admin.Get(ctx, client.ObjectKeyFromObject(cr), &got); err != nil {
			return err
		}
		got.Spec.SecretRef.Name += "-x" // a new spec each try, until one is refused
		return admin.Update(ctx, &got)
	}
	eventually("retargeting the CredentialsRequest with the webhook failing closed", retarget,
		func(err error) bool {
			return err != nil && strings.Contains(err.Error(), `failed calling webhook "credentialsrequests.leash.dev"`)
		})

	// The operator's identity, as the API server sees a pod of the
	// Deployment: the ServiceAccount's user, with its groups.
	imp := rest.CopyConfig(cfg)
	imp.Impersonate = rest.ImpersonationConfig{UserName: operatorUser}
	op, err := client.NewWithWatch(imp, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	who := &authenticationv1.SelfSubjectReview{}
	if err := op.Create(ctx, who); err != nil {
		t.Fatalf("asking the API server who the impersonating client is: %v", err)
	}
	if who.Status.UserInfo.Username != operatorUser {
		t.Fatalf("the impersonating client is %q; want %q", who.Status.UserInfo.Username, operatorUser)
	}
	t.Logf("acting as %s, groups %v", who.Status.UserInfo.Username, who.Status.UserInfo.Groups)

	const upgradeGroup = "leash.dev"
	upgradeCheck := &leashv1alpha1.CredentialsUpgradeCheck{ObjectMeta: metav1.ObjectMeta{Name: leashv1alpha1.UpgradeCheckName}}
	crKey := client.ObjectKeyFromObject(cr)
	targetSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secretNamespace, Name: "ccm-creds"}}
	regarding := corev1.ObjectReference{APIVersion: leashv1.GroupVersion.String(), Kind: "CredentialsRequest", Namespace: crNamespace, Name: cr.Name}
	attrs := func(verb, grp, res, sub, ns, name string) authorizationv1.ResourceAttributes {
		return authorizationv1.ResourceAttributes{Verb: verb, Group: grp, Resource: res, Subresource: sub, Namespace: ns, Name: name}
	}

	cases := []rbacCase{
		// ClusterRole: CredentialsRequests.
		{name: "credentialsrequests list in all namespaces", attrs: attrs("list", group, "credentialsrequests", "", "", ""), allowed: true,
			call: func(ctx context.Context) error {
				var l leashv1.CredentialsRequestList
				if err := op.List(ctx, &l); err != nil {
					return err
				}
				if len(l.Items) != 1 || l.Items[0].Name != cr.Name {
					return fmt.Errorf("listed %d requests; want %s/%s", len(l.Items), cr.Namespace, cr.Name)
				}
				return nil
			}},
		{name: "credentialsrequests watch in all namespaces", attrs: attrs("watch", group, "credentialsrequests", "", "", ""), allowed: true,
			call: func(ctx context.Context) error {
				w, err := op.Watch(ctx, &leashv1.CredentialsRequestList{})
				if err != nil {
					return err
				}
				defer w.Stop()
				select {
				case ev, ok := <-w.ResultChan():
					if !ok || ev.Type != watch.Added {
						return fmt.Errorf("watch ended or sent %v %v first; want the request, Added", ev.Type, ev.Object)
					}
					return nil
				case <-time.After(10 * time.Second):
					return errors.New("the watch sent nothing in 10s")
				}
			}},
		{name: "credentialsrequests get", attrs: attrs("get", group, "credentialsrequests", "", crNamespace, cr.Name), allowed: true,
			call: func(ctx context.Context) error { return op.Get(ctx, crKey, &leashv1.CredentialsRequest{}) }},
		{name: "credentialsrequests update (finalizer)", attrs: attrs("update", group, "credentialsrequests", "", crNamespace, cr.Name), allowed: true,
			call: func(ctx context.Context) error {
				var got leashv1.CredentialsRequest
				if err := op.Get(ctx, crKey, &got); err != nil {
					return err
				}
				got.Finalizers = append(got.Finalizers, "leash.dev/test")
				return op.Update(ctx, &got)
			}},
		{name: "credentialsrequests patch", attrs: attrs("patch", group, "credentialsrequests", "", crNamespace, cr.Name), allowed: true},
		{name: "credentialsrequests/status update", attrs: attrs("update", group, "credentialsrequests", "status", crNamespace, cr.Name), allowed: true,
			call: func(ctx context.Context) error {
				var got leashv1.CredentialsRequest
				if err := op.Get(ctx, crKey, &got); err != nil {
					return err
				}
				got.Status.Provisioned = true
				got.Status.Mode = leashv1.ModeMint
				got.Status.LastSyncGeneration = got.Generation
				if err := op.Status().Update(ctx, &got); err != nil {
					return err
				}
				var back leashv1.CredentialsRequest
				if err := admin.Get(ctx, crKey, &back); err != nil {
					return err
				}
				if !back.Status.Provisioned || back.Status.Mode != leashv1.ModeMint {
					return fmt.Errorf("status read back %+v; want provisioned in mode Mint", back.Status)
				}
				return nil
			}},
		{name: "credentialsrequests/status patch", attrs: attrs("patch", group, "credentialsrequests", "status", crNamespace, cr.Name), allowed: true},
		{name: "credentialsrequests/finalizers update", attrs: attrs("update", group, "credentialsrequests", "finalizers", crNamespace, cr.Name), allowed: true},

		// ClusterRole: CredentialsUpgradeCheck cluster, and no other.
		{name: "credentialsupgradechecks create", attrs: attrs("create", upgradeGroup, "credentialsupgradechecks", "", "", ""), allowed: true,
			call: func(ctx context.Context) error { return op.Create(ctx, upgradeCheck.DeepCopy()) }},
		{name: "credentialsupgradechecks get cluster", attrs: attrs("get", upgradeGroup, "credentialsupgradechecks", "", "", "cluster"), allowed: true,
			call: func(ctx context.Context) error {
				return op.Get(ctx, client.ObjectKeyFromObject(upgradeCheck), &leashv1alpha1.CredentialsUpgradeCheck{})
			}},
		{name: "credentialsupgradechecks/status update cluster", attrs: attrs("update", upgradeGroup, "credentialsupgradechecks", "status", "", "cluster"), allowed: true,
			call: func(ctx context.Context) error {
				var got leashv1alpha1.CredentialsUpgradeCheck
				if err := op.Get(ctx, client.ObjectKeyFromObject(upgradeCheck), &got); err != nil {
					return err
				}
				got.Status.Source = "--next-requests /next"
				return op.Status().Update(ctx, &got)
			}},
		{name: "credentialsupgradechecks get another", attrs: attrs("get", upgradeGroup, "credentialsupgradechecks", "", "", "other"), allowed: false},
		{name: "credentialsupgradechecks list", attrs: attrs("list", upgradeGroup, "credentialsupgradechecks", "", "", ""), allowed: false},
		{name: "credentialsupgradechecks update (not its status)", attrs: attrs("update", upgradeGroup, "credentialsupgradechecks", "", "", "cluster"), allowed: false},
		{name: "credentialsupgradechecks delete", attrs: attrs("delete", upgradeGroup, "credentialsupgradechecks", "", "", "cluster"), allowed: false},

		// ClusterRole: Secrets in any namespace.
		{name: "secrets create in a target namespace", attrs: attrs("create", "", "secrets", "", secretNamespace, ""), allowed: true,
			call: func(ctx context.Context) error {
				s := targetSecret.DeepCopy()
				s.StringData = map[string]string{"aws_access_key_id": "placeholder", "aws_secret_access_key": "placeholder"}
				return op.Create(ctx, s)
			}},
		{name: "secrets get in a target namespace", attrs: attrs("get", "", "secrets", "", secretNamespace, targetSecret.Name), allowed: true,
			call: func(ctx context.Context) error {
				return op.Get(ctx, client.ObjectKeyFromObject(targetSecret), &corev1.Secret{})
			}},
		{name: "secrets update in a target namespace", attrs: attrs("update", "", "secrets", "", secretNamespace, targetSecret.Name), allowed: true,
			call: func(ctx context.Context) error {
				var s corev1.Secret
				if err := op.Get(ctx, client.ObjectKeyFromObject(targetSecret), &s); err != nil {
					return err
				}
				s.StringData = map[string]string{"aws_access_key_id": "rotated"}
				return op.Update(ctx, &s)
			}},
		{name: "secrets delete in a target namespace", attrs: attrs("delete", "", "secrets", "", secretNamespace, targetSecret.Name), allowed: true,
			call: func(ctx context.Context) error { return op.Delete(ctx, targetSecret.DeepCopy()) }},
		{name: "secrets list in all namespaces", attrs: attrs("list", "", "secrets", "", "", ""), allowed: true,
			call: func(ctx context.Context) error { return op.List(ctx, &corev1.SecretList{}) }},
		{name: "secrets watch in all namespaces", attrs: attrs("watch", "", "secrets", "", "", ""), allowed: true},
		{name: "secrets get root credentials kube-system/aws-creds", attrs: attrs("get", "", "secrets", "", "kube-system", "aws-creds"), allowed: true,
			call: func(ctx context.Context) error {
				return op.Get(ctx, client.ObjectKeyFromObject(rootCreds), &corev1.Secret{})
			}},

		// ClusterRole: namespaces, read only.
		{name: "namespaces get", attrs: attrs("get", "", "namespaces", "", "", secretNamespace), allowed: true,
			call: func(ctx context.Context) error {
				return op.Get(ctx, types.NamespacedName{Name: secretNamespace}, &corev1.Namespace{})
			}},
		{name: "namespaces list", attrs: attrs("list", "", "namespaces", "", "", ""), allowed: true},
		// ClusterRole: the token of a request's ServiceAccount, STS mode's proof.
		{name: "serviceaccounts/token create in a target namespace", attrs: attrs("create", "", "serviceaccounts", "token", secretNamespace, "cloud-controller"), allowed: true,
			call: func(ctx context.Context) error {
				tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"sts.amazonaws.com"}, ExpirationSeconds: ptr(int64(600))}}
				sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: secretNamespace, Name: "cloud-controller"}}
				if err := op.SubResource("token").Create(ctx, sa, tr); err != nil {
					return err
				}
				if tr.Status.Token == "" {
					return errors.New("the TokenRequest returned no token")
				}
				return nil
			}},
		{name: "namespaces watch", attrs: attrs("watch", "", "namespaces", "", "", ""), allowed: true},

		// ClusterRole: Events, both APIs.
		{name: "events create (core)", attrs: attrs("create", "", "events", "", crNamespace, ""), allowed: true,
			call: func(ctx context.Context) error {
				now := metav1.Now()
				return op.Create(ctx, &corev1.Event{
					ObjectMeta:     metav1.ObjectMeta{Namespace: crNamespace, Name: "ccm.core"},
					InvolvedObject: regarding, Reason: "Provisioned", Message: "credentials written", Type: corev1.EventTypeNormal,
					Source: corev1.EventSource{Component: "leash-operator"}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
				})
			}},
		{name: "events patch (core)", attrs: attrs("patch", "", "events", "", crNamespace, "ccm.core"), allowed: true},
		{name: "events create (events.k8s.io)", attrs: attrs("create", "events.k8s.io", "events", "", crNamespace, ""), allowed: true,
			call: func(ctx context.Context) error {
				return op.Create(ctx, &eventsv1.Event{
					ObjectMeta: metav1.ObjectMeta{Namespace: crNamespace, Name: "ccm.events"},
					EventTime:  metav1.NewMicroTime(time.Now()), ReportingController: "leash.dev/operator", ReportingInstance: "leash-operator-0",
					Action: "Provision", Reason: "Provisioned", Regarding: regarding, Note: "credentials written", Type: corev1.EventTypeNormal,
				})
			}},
		{name: "events patch (events.k8s.io)", attrs: attrs("patch", "events.k8s.io", "events", "", crNamespace, "ccm.events"), allowed: true},

		// Role in leash-system: settings and leader election.
		{name: "configmaps get leash-config", attrs: attrs("get", "", "configmaps", "", namespace, "leash-config"), allowed: true,
			call: func(ctx context.Context) error {
				var cm corev1.ConfigMap
				if err := op.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-config"}, &cm); err != nil {
					return err
				}
				if cm.Data["mode"] != "Mint" {
					return fmt.Errorf("leash-config mode %q; want Mint", cm.Data["mode"])
				}
				return nil
			}},
		{name: "configmaps watch in leash-system", attrs: attrs("watch", "", "configmaps", "", namespace, ""), allowed: true},
		{name: "leases create in leash-system", attrs: attrs("create", "coordination.k8s.io", "leases", "", namespace, ""), allowed: true,
			call: func(ctx context.Context) error {
				return op.Create(ctx, &coordinationv1.Lease{
					ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-operator-leader"},
					Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr("pod-a"), LeaseDurationSeconds: ptr(int32(15))},
				})
			}},
		{name: "leases update in leash-system", attrs: attrs("update", "coordination.k8s.io", "leases", "", namespace, "leash-operator-leader"), allowed: true,
			call: func(ctx context.Context) error {
				var l coordinationv1.Lease
				if err := op.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-operator-leader"}, &l); err != nil {
					return err
				}
				l.Spec.HolderIdentity = ptr("pod-b")
				return op.Update(ctx, &l)
			}},

		// ClusterRole: the CredentialsRequest webhook asks about the request's author.
		{name: "subjectaccessreviews create", attrs: attrs("create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""), allowed: true,
			call: func(ctx context.Context) error {
				return op.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "system:serviceaccount:team-a:deployer",
					ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "create", Resource: "secrets", Namespace: "kube-system"}}})
			}},

		// No more than that.
		{name: "no credentialsrequests delete", attrs: attrs("delete", group, "credentialsrequests", "", crNamespace, cr.Name),
			call: func(ctx context.Context) error { return op.Delete(ctx, cr.DeepCopy()) }},
		{name: "no credentialsrequests create", attrs: attrs("create", group, "credentialsrequests", "", crNamespace, ""),
			call: func(ctx context.Context) error {
				c := cr.DeepCopy()
				c.ResourceVersion, c.UID, c.Name = "", "", "another"
				return op.Create(ctx, c)
			}},
		{name: "no namespaces create", attrs: attrs("create", "", "namespaces", "", "", ""),
			call: func(ctx context.Context) error {
				return op.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "made-by-leash"}})
			}},
		{name: "no namespaces delete", attrs: attrs("delete", "", "namespaces", "", "", secretNamespace),
			call: func(ctx context.Context) error {
				return op.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: secretNamespace}})
			}},
		{name: "no leases create outside leash-system", attrs: attrs("create", "coordination.k8s.io", "leases", "", "default", ""),
			call: func(ctx context.Context) error {
				return op.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "leash-operator-leader"}})
			}},
		{name: "no configmaps get outside leash-system", attrs: attrs("get", "", "configmaps", "", "default", elsewhere.Name),
			call: func(ctx context.Context) error {
				return op.Get(ctx, client.ObjectKeyFromObject(elsewhere), &corev1.ConfigMap{})
			}},
		{name: "no configmaps list in all namespaces", attrs: attrs("list", "", "configmaps", "", "", ""),
			call: func(ctx context.Context) error { return op.List(ctx, &corev1.ConfigMapList{}) }},
		{name: "no configmaps update of leash-config", attrs: attrs("update", "", "configmaps", "", namespace, "leash-config"),
			call: func(ctx context.Context) error {
				return op.Update(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-config"},
					Data:       map[string]string{"mode": "Passthrough"},
				})
			}},
		{name: "no pods list", attrs: attrs("list", "", "pods", "", "", ""),
			call: func(ctx context.Context) error { return op.List(ctx, &corev1.PodList{}) }},
		{name: "no events list", attrs: attrs("list", "", "events", "", crNamespace, "")},
		// The admission webhook reads a pod's ServiceAccount (metadata).
		{name: "serviceaccounts get", attrs: attrs("get", "", "serviceaccounts", "", secretNamespace, "cloud-controller"), allowed: true,
			call: func(ctx context.Context) error {
				return op.Get(ctx, types.NamespacedName{Namespace: secretNamespace, Name: "cloud-controller"}, &corev1.ServiceAccount{})
			}},
		{name: "no clusterrolebindings create", attrs: attrs("create", rbacv1.GroupName, "clusterrolebindings", "", "", ""),
			call: func(ctx context.Context) error {
				return op.Create(ctx, &rbacv1.ClusterRoleBinding{
					ObjectMeta: metav1.ObjectMeta{Name: "leash-escalates"},
					RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
					Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "leash", Namespace: namespace}},
				})
			}},
	}
	cases = append(cases, webhookRBACCases(ctx, t, op, admin, attrs, secretNamespace)...)

	runRBACCases(ctx, t, op, cases)
}

func ptr[T any](v T) *T { return &v }

// requestWebhookPolicy sets the failurePolicy of the installed
// CredentialsRequest webhook.
func requestWebhookPolicy(ctx context.Context, t *testing.T, c client.Client, p admissionregistrationv1.FailurePolicyType) {
	t.Helper()
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, v); err != nil {
		t.Fatal(err)
	}
	found := false
	for i := range v.Webhooks {
		if v.Webhooks[i].Name == requestWebhook {
			v.Webhooks[i].FailurePolicy, found = &p, true
		}
	}
	if !found {
		t.Fatalf("the installed ValidatingWebhookConfiguration has no %s", requestWebhook)
	}
	if err := c.Update(ctx, v); err != nil {
		t.Fatal(err)
	}
}
