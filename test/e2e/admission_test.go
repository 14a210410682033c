package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/workload"
)

// warnings collects the warnings the API server returns.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = nil
}

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.seen, "\n")
}

// admissionPod is a pod of one container; ann are its annotations.
// ownAudience is the token audience the roles trust in TestAdmission.
const ownAudience = "sts.example.internal"

func admissionPod(ns, name string, ann map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
}

// mountingPod is a pod that mounts secret itself, with no annotation.
func mountingPod(ns, name, secret string, hostNetwork bool) *corev1.Pod {
	p := admissionPod(ns, name, nil)
	p.Spec.HostNetwork = hostNetwork
	p.Spec.Volumes = []corev1.Volume{{Name: "aws", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}}
	p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "aws", MountPath: "/etc/aws", ReadOnly: true}}
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "AWS_SHARED_CREDENTIALS_FILE", Value: "/etc/aws/credentials"}, {Name: "AWS_EC2_METADATA_DISABLED", Value: "true"}}
	return p
}

// egressPolicy keeps every pod of ns from the instance metadata service.
func egressPolicy(ns string) *networkingv1.NetworkPolicy {
	tcp := corev1.ProtocolTCP
	return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "egress"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp}},
				To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"169.254.169.254/32"}}}}}}}}
}

// wantWired checks a stored pod carries what admission adds for Secret
// secret of request ns/name.
func wantWired(t *testing.T, p *corev1.Pod, ns, name, secret string) {
	t.Helper()
	var vol *corev1.Volume
	for i, v := range p.Spec.Volumes {
		if v.Name == admission.CredentialsVolume {
			vol = &p.Spec.Volumes[i]
		}
	}
	if vol == nil || vol.Secret == nil || vol.Secret.SecretName != secret || vol.Secret.Optional != nil && *vol.Secret.Optional {
		t.Errorf("stored pod's volumes %+v: want %s, a required Secret volume of %s", p.Spec.Volumes, admission.CredentialsVolume, secret)
	}
	c := p.Spec.Containers[0]
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || m.Name == admission.CredentialsVolume && m.MountPath == admission.CredentialsDir && m.ReadOnly
	}
	if !mounted {
		t.Errorf("stored pod's mounts %+v: want %s read-only at %s", c.VolumeMounts, admission.CredentialsVolume, admission.CredentialsDir)
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	want := map[string]string{"AWS_SHARED_CREDENTIALS_FILE": admission.CredentialsDir + "/credentials", "AWS_EC2_METADATA_DISABLED": "true", "AWS_STS_REGIONAL_ENDPOINTS": "regional"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("stored pod's env %v, want %v", env, want)
	}
	if got := p.Annotations[workload.AnnotationCredentialsInjected]; got != ns+"/"+name {
		t.Errorf("annotation %s = %q, want %s/%s", workload.AnnotationCredentialsInjected, got, ns, name)
	}
}

// checkWorkload runs leash check workload on manifests and returns the IDs
// it reports.
func checkWorkload(t *testing.T, objs ...any) []string {
	return checkWorkloadFor(t, oidcissuer.DefaultAudience, objs...)
}

// checkWorkloadFor is checkWorkload for roles that trust audience.
func checkWorkloadFor(t *testing.T, audience string, objs ...any) []string {
	t.Helper()
	return checkWorkloadWith(t, []string{"--oidc-audience", audience}, objs...)
}

// checkWorkloadWith is checkWorkload with more flags.
func checkWorkloadWith(t *testing.T, flags []string, objs ...any) []string {
	t.Helper()
	var docs []string
	for _, o := range objs {
		data, err := yaml.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	path := filepath.Join(t.TempDir(), "manifests.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(docs, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, leashBin, append([]string{"check", "workload", path, "--output", "json"}, flags...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if code := exitStatus(t, cmd.Run(), "leash check workload"); code == 2 {
		t.Fatalf("leash check workload: exit 2\n%s", errOut.String())
	}
	var report struct {
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	var ids []string
	for _, f := range report.Findings {
		ids = append(ids, f.ID)
	}
	return ids
}

// manifest is a stored object as a user would hand it to check workload:
// with its kind, without what the server keeps for itself.
func manifest[T client.Object](o T, kind, apiVersion string) T {
	o.SetManagedFields(nil)
	o.SetResourceVersion("")
	o.SetUID("")
	o.SetCreationTimestamp(metav1.Time{})
	switch v := any(o).(type) {
	case *corev1.Pod:
		v.TypeMeta = metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}
		v.Status = corev1.PodStatus{}
	case *networkingv1.NetworkPolicy:
		v.TypeMeta = metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}
	case *leashv1.CredentialsRequest:
		v.TypeMeta = metav1.TypeMeta{Kind: kind, APIVersion: apiVersion}
		// The role's trust is kept, as kubectl get -o yaml shows it: check
		// workload judges pods by it as the webhook does.
		v.Status = leashv1.CredentialsRequestStatus{RoleTrust: v.Status.RoleTrust}
	}
	return o
}

// TestAdmission runs the operator's admission webhook behind a real API
// server that calls it through deploy/base/webhook.yaml: a pod naming its
// request is stored wired, one that could reach the node's role is refused
// with the finding of leash check workload, other pods are untouched, and
// while the webhook is down the namespaces (and pods labelled
// leash.dev/credentials-required) fail closed or open as docs/admission.md
// says.
func TestAdmission(t *testing.T) {
	cl := newCluster(t, clusterOptions{webhooks: true})
	ctx := context.Background()
	for ns, mode := range map[string]string{"apps": "", "enforced": "enforce", "warned": "warn", "skipped": "off"} {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if mode != "" {
			n.Labels = map[string]string{"leash.dev/admission": mode}
		}
		cl.create(t, n)
		cl.create(t, egressPolicy(ns))
	}
	annotated := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "annotated", Annotations: map[string]string{workload.AnnotationCredentials: "key"}}}
	cl.create(t, annotated)
	for _, ns := range []string{"apps", "enforced", "warned", "skipped"} {
		cl.api.ServiceAccounts(t, ns)
	}
	cl.api.ServiceAccounts(t, "apps", "aws-load-balancer-controller")

	// The operator serves its webhooks before the requests are created:
	// the CredentialsRequest webhook fails closed.
	wio := cl.api.Env.WebhookInstallOptions
	// The roles trust an audience of the cluster's own, as when the IAM OIDC
	// provider was registered with one: the webhook wires tokens for it and
	// judges them against it.
	o := cl.operatorOptions(operator.Config{Audience: ownAudience})
	o.Webhook = &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir, RefuseAt: analyze.High}
	stop, _ := cl.runOperator(t, o)
	waitListening(t, wio)

	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"
	role := request(t, "apps", "role", "apps", entries)
	role.Spec.ProviderSpec.Raw = bytes.Replace(role.Spec.ProviderSpec.Raw, []byte(`"kind":"AWSProviderSpec"`),
		[]byte(`"kind":"AWSProviderSpec","stsIAMRoleARN":"arn:aws:iam::`+account+`:role/app"`), 1)
	if !bytes.Contains(role.Spec.ProviderSpec.Raw, []byte("stsIAMRoleARN")) {
		t.Fatalf("no role in %s", role.Spec.ProviderSpec.Raw)
	}
	role.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModeManual)}
	cl.create(t, role)
	warnKey := request(t, "warned", "key", "warned", entries)
	cl.create(t, warnKey)
	key := request(t, "apps", "key", "apps", entries)
	cl.create(t, key)
	key = cl.waitReady(t, "apps", "key")

	stored := func(t *testing.T, p *corev1.Pod) *corev1.Pod {
		t.Helper()
		got := &corev1.Pod{}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		return got
	}

	// checksClean runs leash check workload on a stored pod, its request and
	// its namespace's NetworkPolicy, and wants no finding.
	checksClean := func(t *testing.T, got *corev1.Pod) {
		t.Helper()
		np := &networkingv1.NetworkPolicy{}
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "apps", Name: "egress"}, np); err != nil {
			t.Fatal(err)
		}
		if ids := checkWorkload(t, manifest(got, "Pod", "v1"), manifest(key.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"),
			manifest(np, "NetworkPolicy", "networking.k8s.io/v1")); len(ids) != 0 {
			t.Errorf("leash check workload on the stored pod: findings %v, want none", ids)
		}
	}

	t.Run("a pod naming a key request is stored with the volume, the mount and the variables", func(t *testing.T) {
		p := admissionPod("apps", "named", map[string]string{workload.AnnotationCredentials: "key"})
		cl.create(t, p)
		got := stored(t, p)
		wantWired(t, got, "apps", "key", "key-creds")
		checksClean(t, got)
	})

	t.Run("a real controller's pod (the AWS load balancer controller's template) naming its request is wired and checks clean", func(t *testing.T) {
		set, err := workload.Read(filepath.Join("..", "..", "internal", "workload", "testdata", "controllers", "aws-load-balancer-controller.yaml"))
		if err != nil || len(set.Pods) != 1 {
			t.Fatalf("reading the load balancer controller's manifests: %v (%d pods)", err, len(set.Pods))
		}
		p := admissionPod("apps", "lbc", map[string]string{workload.AnnotationCredentials: "key"})
		p.Spec = set.Pods[0].Spec
		cl.create(t, p)
		got := stored(t, p)
		wantWired(t, got, "apps", "key", "key-creds")
		var tls *corev1.Volume
		for i, v := range got.Spec.Volumes {
			if v.Secret != nil && v.Secret.SecretName == "aws-load-balancer-webhook-tls" {
				tls = &got.Spec.Volumes[i]
			}
		}
		if tls == nil {
			t.Errorf("the controller's own TLS Secret volume is gone from the stored pod: %+v", got.Spec.Volumes)
		}
		checksClean(t, got)
	})

	t.Run("a host-network pod under the metadata profile is refused with LEASH-WL-011 while the operator has no node role policy", func(t *testing.T) {
		p := mountingPod("apps", "ccm", "key-creds", true)
		p.Annotations = map[string]string{workload.ProfileAnnotation: workload.ProfileMetadata}
		p.Spec.Containers[0].Env = p.Spec.Containers[0].Env[:1] // the profile keeps IMDS
		err := cl.c.Create(ctx, p)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-011") || !strings.Contains(err.Error(), "--node-role-policy") || strings.Contains(err.Error(), "LEASH-WL-001") {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-011 and --node-role-policy, and not LEASH-WL-001", err)
		}
	})

	t.Run("a pod naming its containers with leash.dev/credentials-containers is wired in those alone: the sidecar gets neither mount nor variables", func(t *testing.T) {
		p := admissionPod("apps", "sidecar", map[string]string{workload.AnnotationCredentials: "key", workload.AnnotationCredentialsContainers: "app"})
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "liveness-probe", Image: "probe:1"})
		cl.create(t, p)
		got := stored(t, p)
		wantWired(t, got, "apps", "key", "key-creds")
		side := got.Spec.Containers[1]
		if len(side.Env) != 0 {
			t.Errorf("sidecar %s env %+v; want none", side.Name, side.Env)
		}
		for _, m := range side.VolumeMounts {
			if m.Name == admission.CredentialsVolume || m.MountPath == admission.CredentialsDir {
				t.Errorf("sidecar %s mounts %+v; want no mount of the credentials", side.Name, m)
			}
		}
		checksClean(t, got)
	})

	t.Run("a container name the pod does not have is refused with LEASH-WL-014 naming its containers, as check workload says", func(t *testing.T) {
		p := admissionPod("apps", "misnamed", map[string]string{workload.AnnotationCredentials: "key", workload.AnnotationCredentialsContainers: "ap"})
		err := cl.c.Create(ctx, p.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-014") || !strings.Contains(err.Error(), `names "ap", which the pod does not have (its init and regular containers: app)`) {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-014 and the pod's container app", err)
		}
		if ids := checkWorkload(t, manifest(p, "Pod", "v1"), manifest(key.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1")); strings.Join(ids, ",") != "LEASH-WL-014" {
			t.Errorf("leash check workload on the refused pod: %v, want LEASH-WL-014", ids)
		}
	})

	t.Run("a pod labelled leash.dev/credentials-required is wired while the webhook answers", func(t *testing.T) {
		p := admissionPod("apps", "required", map[string]string{workload.AnnotationCredentials: "key"})
		p.Labels[admission.LabelCredentialsRequired] = "true"
		cl.create(t, p)
		wantWired(t, stored(t, p), "apps", "key", "key-creds")
	})

	t.Run("a pod whose ServiceAccount names the request is wired the same", func(t *testing.T) {
		p := admissionPod("apps", "by-account", nil)
		p.Spec.ServiceAccountName = "annotated"
		cl.create(t, p)
		wantWired(t, stored(t, p), "apps", "key", "key-creds")
	})

	t.Run("a pod naming an STS request gets the projected token for the roles' audience, and is admitted", func(t *testing.T) {
		// The API server's ServiceAccount admission gives the pod its
		// ServiceAccount, default, and the kube-api-access token volume
		// before the webhooks run; validation judges leash's token only.
		p := admissionPod("apps", "sts", map[string]string{workload.AnnotationCredentials: "role"})
		cl.create(t, p)
		got := stored(t, p)
		wantWired(t, got, "apps", "role", "role-creds")
		var token *corev1.ServiceAccountTokenProjection
		for _, v := range got.Spec.Volumes {
			if v.Name == admission.TokenVolume && v.Projected != nil && len(v.Projected.Sources) == 1 {
				token = v.Projected.Sources[0].ServiceAccountToken
			}
		}
		if token == nil || token.Audience != ownAudience || token.Path != "token" || token.ExpirationSeconds == nil || *token.ExpirationSeconds != 3600 {
			t.Errorf("stored pod's volumes %+v: want %s, a projected token for %s at token, 3600 s", got.Spec.Volumes, admission.TokenVolume, ownAudience)
		}
		role := &leashv1.CredentialsRequest{}
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "apps", Name: "role"}, role); err != nil {
			t.Fatal(err)
		}
		np := &networkingv1.NetworkPolicy{}
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "apps", Name: "egress"}, np); err != nil {
			t.Fatal(err)
		}
		objs := []any{manifest(got, "Pod", "v1"), manifest(role, "CredentialsRequest", "cloudcredential.openshift.io/v1"), manifest(np, "NetworkPolicy", "networking.k8s.io/v1")}
		if ids := checkWorkloadFor(t, ownAudience, objs...); len(ids) != 0 {
			t.Errorf("leash check workload --oidc-audience %s on the stored pod: %v, want none", ownAudience, ids)
		}
		if ids := checkWorkload(t, objs...); !contains(ids, "LEASH-WL-005") {
			t.Errorf("leash check workload with the default audience on the stored pod: %v, want LEASH-WL-005", ids)
		}
		mounted := false
		for _, m := range got.Spec.Containers[0].VolumeMounts {
			mounted = mounted || m.Name == admission.TokenVolume && m.MountPath == filepath.Dir(leashv1.DefaultCloudTokenPath) && m.ReadOnly
		}
		if !mounted {
			t.Errorf("stored pod's mounts %+v: want %s at %s", got.Spec.Containers[0].VolumeMounts, admission.TokenVolume, filepath.Dir(leashv1.DefaultCloudTokenPath))
		}
	})

	t.Run("a host-network pod mounting a leash Secret is refused with LEASH-WL-001, as check workload says", func(t *testing.T) {
		p := mountingPod("apps", "host", "key-creds", true)
		err := cl.c.Create(ctx, p.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-001") {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-001", err)
		}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), &corev1.Pod{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused pod was stored (%v)", err)
		}
		np := egressPolicy("apps")
		ids := checkWorkload(t, manifest(p, "Pod", "v1"), manifest(key.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"), manifest(np, "NetworkPolicy", "networking.k8s.io/v1"))
		if !contains(ids, "LEASH-WL-001") {
			t.Errorf("leash check workload on the refused pod: %v, want LEASH-WL-001", ids)
		}
	})

	t.Run("a pod naming a request that does not exist is refused with LEASH-WL-012, as check workload says", func(t *testing.T) {
		p := admissionPod("apps", "missing", map[string]string{workload.AnnotationCredentials: "gone"})
		err := cl.c.Create(ctx, p.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-012") {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-012", err)
		}
		if ids := checkWorkload(t, manifest(p, "Pod", "v1"), manifest(key.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1")); !contains(ids, "LEASH-WL-012") {
			t.Errorf("leash check workload on the refused pod: %v, want LEASH-WL-012", ids)
		}
	})

	t.Run("a pod naming a request that sets AWS_EC2_METADATA_DISABLED=false is refused with LEASH-WL-002", func(t *testing.T) {
		p := admissionPod("apps", "imds", map[string]string{workload.AnnotationCredentials: "key"})
		p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "AWS_EC2_METADATA_DISABLED", Value: "false"}}
		err := cl.c.Create(ctx, p)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-002") {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-002", err)
		}
	})

	t.Run("a pod with no annotation and no leash Secret is stored as sent", func(t *testing.T) {
		// The same pod where the webhook is not called (leash.dev/admission:
		// off) is what the API server alone stores.
		plain, bare := admissionPod("apps", "plain", nil), admissionPod("skipped", "plain", nil)
		cl.create(t, plain)
		cl.create(t, bare)
		got, want := stored(t, plain), stored(t, bare)
		// Each has its own kube-api-access-* volume, named at random.
		sameAPIAccess(got, want)
		if !reflect.DeepEqual(got.Spec, want.Spec) || !reflect.DeepEqual(got.Annotations, want.Annotations) || !reflect.DeepEqual(got.Labels, want.Labels) {
			t.Errorf("stored\n%+v %v\nwithout the webhook\n%+v %v", got.Spec, got.Annotations, want.Spec, want.Annotations)
		}
	})

	t.Run("a dry-run create returns the wired pod and stores nothing", func(t *testing.T) {
		p := admissionPod("apps", "dry", map[string]string{workload.AnnotationCredentials: "key"})
		if err := cl.c.Create(ctx, p, client.DryRunAll); err != nil {
			t.Fatal(err)
		}
		wantWired(t, p, "apps", "key", "key-creds")
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), &corev1.Pod{}); !apierrors.IsNotFound(err) {
			t.Errorf("the dry-run pod was stored (%v)", err)
		}
	})

	t.Run("in a warn namespace the host-network pod is admitted with a warning naming LEASH-WL-001", func(t *testing.T) {
		w := &warnings{}
		cfg := rest.CopyConfig(cl.api.Config)
		cfg.WarningHandler = w
		c, err := client.New(cfg, client.Options{Scheme: operator.Scheme()})
		if err != nil {
			t.Fatal(err)
		}
		p := mountingPod("warned", "host", "key-creds", true)
		if err := c.Create(ctx, p); err != nil {
			t.Fatalf("create in a warn namespace: %v", err)
		}
		if !strings.Contains(w.all(), "LEASH-WL-001") {
			t.Errorf("warnings %q: want one naming LEASH-WL-001", w.all())
		}
		// A value the pod sets is kept, listed, and warned about.
		w.reset()
		kept := admissionPod("warned", "imds", map[string]string{workload.AnnotationCredentials: "key"})
		kept.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "AWS_EC2_METADATA_DISABLED", Value: "false"}}
		if err := c.Create(ctx, kept); err != nil {
			t.Fatalf("create in a warn namespace: %v", err)
		}
		got := stored(t, kept)
		if a := got.Annotations[workload.AnnotationCredentialsKept]; a != "app/AWS_EC2_METADATA_DISABLED" {
			t.Errorf("annotation %s = %q, want app/AWS_EC2_METADATA_DISABLED", workload.AnnotationCredentialsKept, a)
		}
		if e := got.Spec.Containers[0].Env; len(e) != 3 || e[0].Name != "AWS_EC2_METADATA_DISABLED" || e[0].Value != "false" {
			t.Errorf("env %+v: want the pod's AWS_EC2_METADATA_DISABLED=false kept, and the two others added", e)
		}
		if all := w.all(); !strings.Contains(all, "LEASH-WL-002") || !strings.Contains(all, "app/AWS_EC2_METADATA_DISABLED") {
			t.Errorf("warnings %q: want LEASH-WL-002 and the kept variable", all)
		}
	})

	t.Run("an init container that sets AWS_EC2_METADATA_DISABLED=false is refused with LEASH-WL-002, as check workload says", func(t *testing.T) {
		p := admissionPod("apps", "init-imds", map[string]string{workload.AnnotationCredentials: "key"})
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "app:1", Env: []corev1.EnvVar{{Name: "AWS_EC2_METADATA_DISABLED", Value: "false"}}}}
		err := cl.c.Create(ctx, p.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-002") || !strings.Contains(err.Error(), "container init") {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-002 and container init", err)
		}
		if ids := checkWorkload(t, manifest(p, "Pod", "v1"), manifest(key.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"), manifest(egressPolicy("apps"), "NetworkPolicy", "networking.k8s.io/v1")); strings.Join(ids, ",") != "LEASH-WL-002" {
			t.Errorf("leash check workload on the refused pod: %v, want LEASH-WL-002", ids)
		}
	})

	t.Run("a volume mounted at leash's credentials path is refused with LEASH-WL-003 naming the volume", func(t *testing.T) {
		p := admissionPod("apps", "clash", map[string]string{workload.AnnotationCredentials: "key"})
		p.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: admission.CredentialsDir}}
		err := cl.c.Create(ctx, p.DeepCopy())
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-003") || !strings.Contains(err.Error(), "volume cache") {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-003 and volume cache", err)
		}
		if ids := checkWorkload(t, manifest(p, "Pod", "v1"), manifest(key.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"), manifest(egressPolicy("apps"), "NetworkPolicy", "networking.k8s.io/v1")); strings.Join(ids, ",") != "LEASH-WL-003" {
			t.Errorf("leash check workload on the refused pod: %v, want LEASH-WL-003", ids)
		}
	})

	t.Run("a leash.dev/imds value that names no profile is refused with LEASH-WL-013", func(t *testing.T) {
		p := admissionPod("apps", "typo", map[string]string{workload.AnnotationCredentials: "key", workload.ProfileAnnotation: "metdata"})
		err := cl.c.Create(ctx, p)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-013") || !strings.Contains(err.Error(), `"metadata"`) {
			t.Fatalf("create: %v; want Forbidden naming LEASH-WL-013 and the accepted value", err)
		}
	})

	t.Run("a dry-run create naming another namespace's request tells neither whether it exists nor its Secret", func(t *testing.T) {
		refusal := func(request string) string {
			p := admissionPod("apps", "probe", map[string]string{workload.AnnotationCredentials: request})
			err := cl.c.Create(ctx, p, client.DryRunAll)
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-012") {
				t.Fatalf("dry-run create naming %s: %v; want Forbidden naming LEASH-WL-012", request, err)
			}
			return strings.ReplaceAll(err.Error(), request, "REQUEST")
		}
		exists, missing := refusal("warned/key"), refusal("warned/gone")
		if exists != missing || strings.Contains(exists, "warned/key-creds") {
			t.Errorf("refusals differ, or name the Secret:\n%s\n%s", exists, missing)
		}
	})

	t.Run("an ephemeral container added to a wired pod is judged as a container: refused when it enables IMDS, admitted when it disables it", func(t *testing.T) {
		p := admissionPod("apps", "debugged", map[string]string{workload.AnnotationCredentials: "key"})
		cl.create(t, p)
		debug := func(name, imds string) error {
			got := stored(t, p)
			got.Spec.EphemeralContainers = append(got.Spec.EphemeralContainers, corev1.EphemeralContainer{TargetContainerName: "app",
				EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: name, Image: "busybox", Env: []corev1.EnvVar{{Name: "AWS_EC2_METADATA_DISABLED", Value: imds}}}})
			return cl.c.SubResource("ephemeralcontainers").Update(ctx, got)
		}
		if err := debug("debug", "false"); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "LEASH-WL-002") || !strings.Contains(err.Error(), "container debug") {
			t.Fatalf("adding an ephemeral container with IMDS enabled: %v; want Forbidden naming LEASH-WL-002 and container debug", err)
		}
		if got := stored(t, p); len(got.Spec.EphemeralContainers) != 0 {
			t.Errorf("the refused ephemeral container was stored: %+v", got.Spec.EphemeralContainers)
		}
		if err := debug("debug2", "true"); err != nil {
			t.Fatalf("adding an ephemeral container that disables IMDS: %v", err)
		}
		// An update that adds nothing (a label) passes without the webhook.
		got := stored(t, p)
		got.Labels["tier"] = "web"
		if err := cl.c.Update(ctx, got); err != nil {
			t.Errorf("relabelling the wired pod: %v", err)
		}
	})

	// Webhook down: the API server cannot reach it.
	stop()
	t.Run("while the webhook is down an enforce namespace refuses a pod naming a request", func(t *testing.T) {
		p := admissionPod("enforced", "down", map[string]string{workload.AnnotationCredentials: "key"})
		err := cl.c.Create(ctx, p)
		// The mutating webhook is called first; its failurePolicy Fail
		// refuses the pod before validation is asked.
		if err == nil || !strings.Contains(err.Error(), `failed calling webhook "enforce.pods.leash.dev"`) || !strings.Contains(err.Error(), "/mutate") {
			t.Fatalf("create: %v; want a refusal from failurePolicy Fail of the mutating enforce.pods.leash.dev", err)
		}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), &corev1.Pod{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused pod was stored (%v)", err)
		}
	})
	t.Run("while the webhook is down an unlabelled namespace refuses a pod labelled leash.dev/credentials-required, and admits an unlabelled one", func(t *testing.T) {
		p := admissionPod("apps", "required-down", map[string]string{workload.AnnotationCredentials: "key"})
		p.Labels[admission.LabelCredentialsRequired] = "true"
		err := cl.c.Create(ctx, p)
		if err == nil || !strings.Contains(err.Error(), `failed calling webhook "`+admission.WebhookRequired+`"`) || !strings.Contains(err.Error(), "/mutate") {
			t.Fatalf("create: %v; want a refusal from failurePolicy Fail of the mutating %s", err, admission.WebhookRequired)
		}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), &corev1.Pod{}); !apierrors.IsNotFound(err) {
			t.Errorf("the refused pod was stored (%v)", err)
		}
		plain := admissionPod("apps", "unlabelled-down", map[string]string{workload.AnnotationCredentials: "key"})
		if err := cl.c.Create(ctx, plain); err != nil {
			t.Fatalf("create of the unlabelled pod: %v; want it admitted (failurePolicy Ignore)", err)
		}
	})
	t.Run("while the webhook is down an unlabelled namespace admits a pod naming a request, unmutated", func(t *testing.T) {
		p := admissionPod("apps", "down", map[string]string{workload.AnnotationCredentials: "key"})
		cl.create(t, p)
		got := stored(t, p)
		if apiAccess(got.Spec) == "" || len(got.Spec.Volumes) != 1 || len(got.Spec.Containers[0].Env) != 0 || got.Annotations[workload.AnnotationCredentialsInjected] != "" {
			t.Errorf("stored pod %+v %v: want it as sent (failurePolicy Ignore)", got.Spec, got.Annotations)
		}
	})
}

// waitListening waits until the webhook listens where the API server
// calls it.
func waitListening(t *testing.T, wio envtest.WebhookInstallOptions) {
	t.Helper()
	addr := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	waitFor(t, 30*time.Second, "the webhook to listen on "+addr, func() (bool, string) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false, err.Error()
		}
		_ = c.Close()
		return true, ""
	})
}

// apiAccess is the name of the kube-api-access-* projected volume the API
// server's ServiceAccount admission adds to a pod, with a token for the
// API server itself; empty when the pod has none.
func apiAccess(spec corev1.PodSpec) string {
	for _, v := range spec.Volumes {
		if strings.HasPrefix(v.Name, "kube-api-access-") && v.Projected != nil {
			return v.Name
		}
	}
	return ""
}

// sameAPIAccess names b's kube-api-access-* volume, and its mounts, as a's,
// so that two pods stored alike compare equal.
func sameAPIAccess(a, b *corev1.Pod) {
	from, to := apiAccess(b.Spec), apiAccess(a.Spec)
	if from == "" || to == "" {
		return
	}
	for i := range b.Spec.Volumes {
		if b.Spec.Volumes[i].Name == from {
			b.Spec.Volumes[i].Name = to
		}
	}
	for _, cs := range [][]corev1.Container{b.Spec.InitContainers, b.Spec.Containers} {
		for i := range cs {
			for j := range cs[i].VolumeMounts {
				if cs[i].VolumeMounts[j].Name == from {
					cs[i].VolumeMounts[j].Name = to
				}
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
