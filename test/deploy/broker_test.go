package deploy

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/apiserver"
)

const (
	// brokerInstall is the kustomization that applies deploy/cert-manager
	// with leash's credential broker.
	brokerInstall = "../../deploy/broker"
	// brokerUser is the broker's identity: ServiceAccount leash-system/leash-broker.
	brokerUser = "system:serviceaccount:leash-system:leash-broker"
	brokerPort = 8443
	brokerURL  = "https://leash-broker.leash-system.svc:8443"
)

// brokerObjects are what deploy/broker adds to deploy/cert-manager.
var brokerObjects = []string{
	"Certificate/leash-broker",
	"ClusterRole/leash-broker",
	"ClusterRoleBinding/leash-broker",
	"ClusterRoleBinding/leash-broker-auth-delegator",
	"Deployment/leash-broker",
	"PodDisruptionBudget/leash-broker",
	"Service/leash-broker",
	"ServiceAccount/leash-broker",
}

// brokerRules are the broker's whole ClusterRole: it reads pods and
// CredentialsRequests, and nothing else, no Secret.
var brokerRules = []string{
	" pods get list watch",
	"cloudcredential.openshift.io credentialsrequests get list watch",
}

// TestBrokerInstall renders deploy/broker and checks that its parts agree:
// it is deploy/cert-manager and the broker; the broker's Certificate comes
// from the webhook's CA and is what the broker serves; the Service reaches
// the broker's port; the broker runs as the operator does (restricted,
// non-root) in two replicas kept apart; and the operator is given the
// broker's URL, the CA of its certificate and its own image for the agent.
func TestBrokerInstall(t *testing.T) {
	kubectl := kubectlPath(t)
	withCM := byKey(t, render(t, kubectl, certManagerInstall))
	objs := byKey(t, render(t, kubectl, brokerInstall))

	t.Run("objects", func(t *testing.T) {
		for k := range withCM {
			if objs[k] == nil {
				t.Errorf("%s of deploy/cert-manager is missing from %s", k, brokerInstall)
			}
		}
		var added []string
		for k := range objs {
			if withCM[k] == nil {
				added = append(added, k)
			}
		}
		slices.Sort(added)
		if !slices.Equal(added, brokerObjects) {
			t.Errorf("deploy/broker adds:\n\t%s\nwant:\n\t%s", strings.Join(added, "\n\t"), strings.Join(brokerObjects, "\n\t"))
		}
		for _, k := range added {
			want := namespace
			if clusterScoped[objs[k].GetKind()] {
				want = ""
			}
			if objs[k].GetNamespace() != want {
				t.Errorf("%s is in namespace %q; want %q", k, objs[k].GetNamespace(), want)
			}
		}
	})
	for _, k := range brokerObjects {
		if objs[k] == nil {
			t.Fatalf("%s is not rendered", k)
		}
	}

	t.Run("RBAC", func(t *testing.T) {
		cr := as[rbacv1.ClusterRole](t, objs["ClusterRole/leash-broker"])
		checkRules(t, "ClusterRole leash-broker", cr.Rules, brokerRules)
		if cr.AggregationRule != nil {
			t.Errorf("ClusterRole leash-broker aggregates other roles: %+v", cr.AggregationRule)
		}
		want := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "leash-broker", Namespace: namespace}}
		for name, role := range map[string]string{"leash-broker": "leash-broker", "leash-broker-auth-delegator": "system:auth-delegator"} {
			b := as[rbacv1.ClusterRoleBinding](t, objs["ClusterRoleBinding/"+name])
			if !slices.Equal(b.Subjects, want) || b.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role}) {
				t.Errorf("ClusterRoleBinding %s binds %+v to %+v; want ClusterRole %s to %+v", name, b.RoleRef, b.Subjects, role, want)
			}
		}
	})

	d := as[appsv1.Deployment](t, objs["Deployment/leash-broker"])
	c := container(d, "broker")
	if c == nil {
		t.Fatalf("Deployment leash-broker has no container broker")
	}
	cert := objs["Certificate/leash-broker"]
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")

	t.Run("Certificate", func(t *testing.T) {
		dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
		if want := []string{"leash-broker." + namespace + ".svc", "leash-broker." + namespace + ".svc.cluster.local"}; !slices.Equal(dnsNames, want) {
			t.Errorf("Certificate dnsNames %v; want the Service's %v", dnsNames, want)
		}
		// The operator gives the agents the Secret's ca.crt: the CA that
		// signs the webhook's certificate too, not a CA of the broker's own.
		issuer, _, _ := unstructured.NestedStringMap(cert.Object, "spec", "issuerRef")
		webhookIssuer, _, _ := unstructured.NestedStringMap(objs["Certificate/leash-webhook"].Object, "spec", "issuerRef")
		if !maps.Equal(issuer, webhookIssuer) {
			t.Errorf("Certificate leash-broker's issuer %v; want the webhook's %v", issuer, webhookIssuer)
		}
		if isCA, _, _ := unstructured.NestedBool(objs["Certificate/leash-webhook-ca"].Object, "spec", "isCA"); !isCA {
			t.Errorf("Certificate leash-webhook-ca is not a CA, so ca.crt would not be the broker's signer")
		}
		if secretName != "leash-broker-tls" {
			t.Errorf("Certificate writes Secret %q; want leash-broker-tls", secretName)
		}
	})

	t.Run("Deployment", func(t *testing.T) {
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
			t.Errorf("replicas %v; want 2", d.Spec.Replicas)
		}
		if d.Spec.Template.Spec.ServiceAccountName != "leash-broker" {
			t.Errorf("serviceAccountName %q; want leash-broker", d.Spec.Template.Spec.ServiceAccountName)
		}
		op := container(as[appsv1.Deployment](t, objs["Deployment/leash-operator"]), "operator")
		if c.Image != op.Image || c.Image != "leash:latest" {
			t.Errorf("broker image %q; want the operator's %q (leash:latest)", c.Image, op.Image)
		}
		if want := []string{"/leash", "broker"}; !slices.Equal(c.Command, want) {
			t.Errorf("command %q; want %q", c.Command, want)
		}
		// The same cluster name as the operator's default, which names the
		// roles' leash-cluster tag.
		want := []string{"--listen=:8443", "--tls-cert-file=/tls/tls.crt", "--tls-key-file=/tls/tls.key", "--cluster-name=leash"}
		if !slices.Equal(c.Args, want) {
			t.Errorf("args %q; want %q", c.Args, want)
		}
		if !slices.Contains(op.Args, "--leader-elect") || slices.ContainsFunc(op.Args, func(a string) bool { return strings.HasPrefix(a, "--cluster-name") }) {
			t.Errorf("operator args %q: this test assumes the operator runs with --cluster-name's default, leash", op.Args)
		}
		var mounted string
		for _, m := range c.VolumeMounts {
			if m.MountPath == "/tls" {
				if !m.ReadOnly {
					t.Errorf("the broker's certificate is mounted writable")
				}
				for _, v := range d.Spec.Template.Spec.Volumes {
					if v.Name == m.Name && v.Secret != nil {
						mounted = v.Secret.SecretName
					}
				}
			}
		}
		if mounted != secretName {
			t.Errorf("the broker serves /tls/tls.crt from Secret %q; want the Certificate's %q", mounted, secretName)
		}
		for probe, p := range map[string]*corev1.Probe{"/readyz": c.ReadinessProbe, "/healthz": c.LivenessProbe} {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != probe || p.HTTPGet.Scheme != corev1.URISchemeHTTPS || containerPort(c, p.HTTPGet.Port) != brokerPort {
				t.Errorf("probe %s: %+v; want HTTPS GET %s on %d", probe, p, probe, brokerPort)
			}
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("resources %+v; want cpu and memory requests and a memory limit", c.Resources)
		}
		for _, problem := range restrictedProblems(&d.Spec.Template.Spec) {
			t.Errorf("pod security: %s", problem)
		}
		if s := c.SecurityContext; s == nil || s.ReadOnlyRootFilesystem == nil || !*s.ReadOnlyRootFilesystem {
			t.Errorf("container securityContext %+v; want a read-only root filesystem", s)
		}
	})

	t.Run("AWS identity", func(t *testing.T) {
		// From the SDK's default chain: the two variables when Secret
		// leash-broker-aws exists, the node's role otherwise, so the pod
		// starts without the Secret and instance metadata is not turned off.
		want := map[string]string{"AWS_ACCESS_KEY_ID": "aws_access_key_id", "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key"}
		for _, e := range c.Env {
			if e.Name == "AWS_EC2_METADATA_DISABLED" {
				t.Errorf("the broker disables instance metadata; a node's role could not be its identity")
			}
			k, ok := want[e.Name]
			if !ok {
				continue
			}
			delete(want, e.Name)
			ref := e.ValueFrom
			if e.Value != "" || ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != "leash-broker-aws" || ref.SecretKeyRef.Key != k ||
				ref.SecretKeyRef.Optional == nil || !*ref.SecretKeyRef.Optional {
				t.Errorf("env %s: %+v; want optional key %s of Secret leash-broker-aws", e.Name, e, k)
			}
		}
		if len(want) > 0 {
			t.Errorf("env lacks %v", want)
		}
	})

	t.Run("spread", func(t *testing.T) {
		spec := d.Spec.Template.Spec
		podLabels := d.Spec.Template.Labels
		selects := func(s *metav1.LabelSelector) bool {
			sel, err := metav1.LabelSelectorAsSelector(s)
			return err == nil && !sel.Empty() && sel.Matches(labels.Set(podLabels))
		}
		spread := false
		for _, c := range spec.TopologySpreadConstraints {
			if c.TopologyKey == "kubernetes.io/hostname" && c.WhenUnsatisfiable == corev1.ScheduleAnyway && selects(c.LabelSelector) {
				spread = true
			}
		}
		if !spread {
			t.Errorf("topologySpreadConstraints %+v; want the broker's pods spread over nodes, preferred (ScheduleAnyway)", spec.TopologySpreadConstraints)
		}
		apart := false
		if a := spec.Affinity; a != nil && a.PodAntiAffinity != nil {
			if len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
				t.Errorf("required pod anti-affinity: a one-node cluster could not run both replicas")
			}
			for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
				if w.PodAffinityTerm.TopologyKey == "kubernetes.io/hostname" && selects(w.PodAffinityTerm.LabelSelector) {
					apart = true
				}
			}
		}
		if !apart {
			t.Errorf("affinity %+v; want preferred pod anti-affinity across nodes", spec.Affinity)
		}
		pdb := as[policyv1.PodDisruptionBudget](t, objs["PodDisruptionBudget/leash-broker"])
		if pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromInt32(1) || !selects(pdb.Spec.Selector) {
			t.Errorf("PodDisruptionBudget minAvailable %v, selector %v; want 1 of the broker's pods", pdb.Spec.MinAvailable, pdb.Spec.Selector)
		}
		op := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
		if sel, _ := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); sel.Matches(labels.Set(op.Spec.Template.Labels)) {
			t.Errorf("PodDisruptionBudget selects the operator's pods too")
		}
	})

	t.Run("Service", func(t *testing.T) {
		s := as[corev1.Service](t, objs["Service/leash-broker"])
		if len(s.Spec.Selector) == 0 {
			t.Fatalf("Service leash-broker selects nothing")
		}
		for k, v := range s.Spec.Selector {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("Service selects %s=%s, which the broker's pods do not carry (%v)", k, v, d.Spec.Template.Labels)
			}
		}
		op := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
		if labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(op.Spec.Template.Labels)) {
			t.Errorf("Service leash-broker selects the operator's pods too")
		}
		if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Port != brokerPort || containerPort(c, s.Spec.Ports[0].TargetPort) != brokerPort {
			t.Errorf("Service ports %+v; want %d to the broker's container port %d", s.Spec.Ports, brokerPort, brokerPort)
		}
	})

	t.Run("operator", func(t *testing.T) {
		op := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
		oc := container(op, "operator")
		arg := func(name string) string {
			for _, a := range oc.Args {
				if v, ok := strings.CutPrefix(a, name+"="); ok {
					return v
				}
			}
			return ""
		}
		if got := arg("--broker-url"); got != brokerURL {
			t.Errorf("--broker-url %q; want %q", got, brokerURL)
		}
		// --broker-ca-file is the ca.crt of the broker's Certificate's Secret.
		caFile := arg("--broker-ca-file")
		var fromSecret, fromKey string
		for _, m := range oc.VolumeMounts {
			rest, ok := strings.CutPrefix(caFile, strings.TrimSuffix(m.MountPath, "/")+"/")
			if !ok {
				continue
			}
			if !m.ReadOnly {
				t.Errorf("the broker's CA is mounted writable")
			}
			for _, v := range op.Spec.Template.Spec.Volumes {
				if v.Name != m.Name || v.Secret == nil {
					continue
				}
				fromSecret = v.Secret.SecretName
				for _, it := range v.Secret.Items {
					if it.Path == rest {
						fromKey = it.Key
					}
				}
				if len(v.Secret.Items) == 0 {
					fromKey = rest
				}
			}
		}
		if fromSecret != secretName || fromKey != "ca.crt" {
			t.Errorf("--broker-ca-file %q is key %q of Secret %q; want ca.crt of %q", caFile, fromKey, fromSecret, secretName)
		}
		// The agent's image is the operator's own: the kubelet expands
		// $(VAR) in args from the container's env.
		image := arg("--broker-agent-image")
		if v, ok := strings.CutPrefix(image, "$("); ok {
			name := strings.TrimSuffix(v, ")")
			image = ""
			for _, e := range oc.Env {
				if e.Name == name && e.ValueFrom == nil {
					image = e.Value
				}
			}
		}
		if image != oc.Image {
			t.Errorf("--broker-agent-image is %q; want the operator's image %q", image, oc.Image)
		}
		// The cert-manager component's webhook certificate is still served.
		if arg("--webhook-cert-dir") == "" {
			t.Errorf("args %q lost --webhook-cert-dir", oc.Args)
		}
		for _, problem := range restrictedProblems(&op.Spec.Template.Spec) {
			t.Errorf("pod security: %s", problem)
		}
	})
}

// TestBrokerRBAC applies deploy/broker's broker objects (all but the
// Certificate, whose CRD is cert-manager's) to a real API server, which
// admits the broker's pod under restricted Pod Security, and asks it, as the
// broker, what it may do: review tokens, read pods and CredentialsRequests
// everywhere; not read a Secret, nor write anything it reads.
func TestBrokerRBAC(t *testing.T) {
	kubectl := kubectlPath(t)
	scheme := newScheme(t)
	srv := apiserver.Start(t, apiserver.Options{Scheme: scheme})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := srv.Client

	// The namespace as rendered (restricted Pod Security enforced), then the
	// broker's objects the API server serves without cert-manager's CRDs.
	objs := byKey(t, render(t, kubectl, brokerInstall))
	for _, k := range []string{"Namespace/" + namespace, "ServiceAccount/leash-broker", "ClusterRole/leash-broker",
		"ClusterRoleBinding/leash-broker", "ClusterRoleBinding/leash-broker-auth-delegator",
		"Deployment/leash-broker", "Service/leash-broker", "PodDisruptionBudget/leash-broker"} {
		if objs[k] == nil {
			t.Fatalf("%s is not rendered", k)
		}
		if err := admin.Create(ctx, objs[k]); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}

	// The API server's PodSecurity admission judges the broker's pod in
	// leash-system, where restricted is enforced (TestApplied shows a pod
	// without security settings is refused there).
	t.Run("restricted pod admitted", func(t *testing.T) {
		var d appsv1.Deployment
		if err := admin.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-broker"}, &d); err != nil {
			t.Fatal(err)
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-broker-dry-run", Labels: d.Spec.Template.Labels},
			Spec:       *d.Spec.Template.Spec.DeepCopy(),
		}
		if err := admin.Create(ctx, pod, client.DryRunAll); err != nil {
			t.Errorf("the broker's pod is not admitted to %s: %v", namespace, err)
		}
	})
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-broker-aws"}, StringData: map[string]string{"aws_access_key_id": "placeholder"}}
	if err := admin.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}

	imp := rest.CopyConfig(srv.Config)
	imp.Impersonate = rest.ImpersonationConfig{UserName: brokerUser}
	broker, err := client.New(imp, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(verb, grp, res, ns string) authorizationv1.ResourceAttributes {
		return authorizationv1.ResourceAttributes{Verb: verb, Group: grp, Resource: res, Namespace: ns}
	}
	const group = "cloudcredential.openshift.io"
	cases := []rbacCase{
		{name: "create tokenreviews", attrs: attrs("create", "authentication.k8s.io", "tokenreviews", ""), allowed: true,
			call: func(ctx context.Context) error {
				return broker.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: "not-a-token", Audiences: []string{"broker.leash.dev"}}})
			}},
		{name: "list pods in every namespace", attrs: attrs("list", "", "pods", ""), allowed: true,
			call: func(ctx context.Context) error { return broker.List(ctx, &corev1.PodList{}) }},
		{name: "watch pods", attrs: attrs("watch", "", "pods", ""), allowed: true},
		{name: "get pods", attrs: attrs("get", "", "pods", "app"), allowed: true},
		{name: "list credentialsrequests", attrs: attrs("list", group, "credentialsrequests", ""), allowed: true},
		{name: "watch credentialsrequests", attrs: attrs("watch", group, "credentialsrequests", ""), allowed: true},
		{name: "get secrets in its own namespace", attrs: attrs("get", "", "secrets", namespace), allowed: false,
			call: func(ctx context.Context) error {
				return broker.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-broker-aws"}, &corev1.Secret{})
			}},
		{name: "list secrets", attrs: attrs("list", "", "secrets", ""), allowed: false,
			call: func(ctx context.Context) error { return broker.List(ctx, &corev1.SecretList{}) }},
		{name: "create pods", attrs: attrs("create", "", "pods", "app"), allowed: false},
		{name: "delete pods", attrs: attrs("delete", "", "pods", "app"), allowed: false},
		{name: "update credentialsrequests", attrs: attrs("update", group, "credentialsrequests", "app"), allowed: false},
		{name: "update credentialsrequests status", attrs: authorizationv1.ResourceAttributes{Verb: "update", Group: group, Resource: "credentialsrequests", Subresource: "status", Namespace: "app"}, allowed: false},
		{name: "get serviceaccounts", attrs: attrs("get", "", "serviceaccounts", "app"), allowed: false},
		{name: "create serviceaccounts token", attrs: authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: "app"}, allowed: false},
		{name: "get configmaps", attrs: attrs("get", "", "configmaps", namespace), allowed: false},
	}
	runRBACCases(ctx, t, broker, cases)
}
