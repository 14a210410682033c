package admission

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/workload"
)

// otherNamespace is a request of team-b whose Secret is in team-b: a pod
// of apps that names it must learn neither that it exists nor its Secret.
// listedRequest names the ServiceAccounts whose pods use its credentials.
const listedRequest = `---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: listed, namespace: apps}
spec:
  secretRef: {name: listed-credentials, namespace: apps}
  serviceAccountNames: [ccm]
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:*"], resource: "*"}]}
`

const otherNamespace = `---
apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: private, namespace: team-b}
spec:
  secretRef: {name: private-key, namespace: team-b}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:*"], resource: "*"}]}
`

// testHooks are the pod webhooks over the objects of manifests, as the
// operator's cache would hold them, with the operator's defaults.
func testHooks(t *testing.T, manifests string) *hooks {
	t.Helper()
	s, err := workload.Parse("cluster.yaml", []byte(manifests))
	if err != nil {
		t.Fatal(err)
	}
	read := func(_ context.Context, ns, sa string, policies bool) (cluster, error) {
		c := cluster{Requests: s.Requests}
		for i, a := range s.ServiceAccounts {
			if a.Namespace == ns && a.Name == sa {
				c.ServiceAccount = &s.ServiceAccounts[i]
			}
		}
		for _, np := range s.Policies {
			if policies && np.Namespace == ns {
				c.Policies = append(c.Policies, np)
			}
		}
		return c, nil
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return &hooks{read: read, decoder: admission.NewDecoder(scheme), o: Options{RefuseAt: analyze.High, Wiring: Wiring{Mode: leashv1.ModeManual}}}
}

// podNamed is a pod of apps with one init and one regular container that
// names request (none when empty); edit changes it further.
// runAs sets the pod's ServiceAccount.
func runAs(sa string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.ServiceAccountName = sa }
}

func podNamed(request string, edit ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "apps", Labels: map[string]string{"app": "app"}},
		Spec:       corev1.PodSpec{InitContainers: []corev1.Container{container("init")}, Containers: []corev1.Container{container("app")}}}
	if request != "" {
		p.Annotations = map[string]string{workload.AnnotationCredentials: request}
	}
	for _, e := range edit {
		e(p)
	}
	return p
}

// wired is p as the mutating webhook stores it, wired to request app.
func wired(t *testing.T, p *corev1.Pod) *corev1.Pod {
	t.Helper()
	w, _, err := Wire(Pod{Annotations: p.Annotations, Spec: p.Spec}, nil, request("app", keySpec, nil), Wiring{Mode: leashv1.ModeManual})
	if err != nil {
		t.Fatal(err)
	}
	out := p.DeepCopy()
	out.Annotations, out.Spec = w.Annotations, w.Spec
	return out
}

// review is the AdmissionReview request the API server sends for pod (old:
// the stored pod of an UPDATE; subresource: ephemeralcontainers or none).
func review(t *testing.T, op admissionv1.Operation, subresource string, pod, old *corev1.Pod) admission.Request {
	t.Helper()
	raw := func(p *corev1.Pod) runtime.RawExtension {
		if p == nil {
			return runtime.RawExtension{}
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: data}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "4f1c", Operation: op,
		Kind:     metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource: metav1.GroupVersionResource{Version: "v1", Resource: "pods"}, SubResource: subresource,
		Namespace: "apps", Name: pod.Name, Object: raw(pod), OldObject: raw(old)}}
}

func create(t *testing.T, p *corev1.Pod) admission.Request {
	return review(t, admissionv1.Create, "", p, nil)
}

func setEnv(container int, env ...corev1.EnvVar) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[container].Env = append(p.Spec.Containers[container].Env, env...)
	}
}

func setInitEnv(env ...corev1.EnvVar) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.InitContainers[0].Env = append(p.Spec.InitContainers[0].Env, env...) }
}

// wires names the containers to wire (annotation
// leash.dev/credentials-containers).
func wires(names string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Annotations[workload.AnnotationCredentialsContainers] = names }
}

// withSidecar adds a regular container, sidecar, after the pod's own.
func withSidecar(p *corev1.Pod) { p.Spec.Containers = append(p.Spec.Containers, container("sidecar")) }

func imds(v string) corev1.EnvVar { return corev1.EnvVar{Name: "AWS_EC2_METADATA_DISABLED", Value: v} }

// verdict is what a test wants of a response: allowed or not, the HTTP
// code of an error, texts the message and the warnings hold, and a text
// neither may hold.
type verdict struct {
	allowed          bool
	code             int32
	says, warns      []string
	neverSays        string
	patches          []string // "op path" of each JSON patch operation, in order; nil: none
	patchesUnchecked bool
}

func (w verdict) check(t *testing.T, resp admission.Response) {
	t.Helper()
	msg := ""
	if resp.Result != nil {
		msg = resp.Result.Message
	}
	warnings := strings.Join(resp.Warnings, "\n")
	if resp.Allowed != w.allowed {
		t.Errorf("allowed %v, want %v; message %q, warnings %q", resp.Allowed, w.allowed, msg, warnings)
	}
	if w.code != 0 && (resp.Result == nil || resp.Result.Code != w.code) {
		t.Errorf("result %+v, want code %d", resp.Result, w.code)
	}
	for _, s := range w.says {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q does not say %q", msg, s)
		}
	}
	for _, s := range w.warns {
		if !strings.Contains(warnings, s) {
			t.Errorf("warnings %q do not say %q", warnings, s)
		}
	}
	if w.warns == nil && len(resp.Warnings) > 0 {
		t.Errorf("warnings %q, want none", warnings)
	}
	if w.neverSays != "" && strings.Contains(msg+warnings, w.neverSays) {
		t.Errorf("message %q and warnings %q name %q, which the pod's author may not see", msg, warnings, w.neverSays)
	}
	if w.patchesUnchecked {
		return
	}
	var got []string
	for _, p := range resp.Patches {
		got = append(got, p.Operation+" "+p.Path)
	}
	// The operations' order is the patch maker's; the set is the verdict.
	sort.Strings(got)
	sort.Strings(w.patches)
	if strings.Join(got, "\n") != strings.Join(w.patches, "\n") {
		t.Errorf("patches\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(w.patches, "\n"))
	}
}

// TestMutate pins the mutating webhook's answers: AdmissionReview in, the
// verdict, its message and its JSON patch out.
func TestMutate(t *testing.T) {
	h := testHooks(t, setRequests+otherNamespace+listedRequest)
	wiredPatches := []string{
		"add /metadata/annotations/leash.dev~1credentials-injected",
		"add /spec/volumes",
		"add /spec/initContainers/0/env",
		"add /spec/initContainers/0/volumeMounts",
		"add /spec/containers/0/env",
		"add /spec/containers/0/volumeMounts",
	}
	tests := []struct {
		name string
		req  admission.Request
		want verdict
	}{
		{"a pod that names no request is admitted unpatched", create(t, podNamed("")), verdict{allowed: true}},
		{"a pod naming its request gets the Secret's volume, its mount and the variables in every container, and the annotation",
			create(t, podNamed("app")), verdict{allowed: true, patches: wiredPatches}},
		{"the pod as it was wired gets no patch, so that reinvocation changes nothing", create(t, wired(t, podNamed("app"))), verdict{allowed: true}},
		{"a pod naming a request that does not exist is refused with LEASH-WL-012",
			create(t, podNamed("gone")), verdict{says: []string{"LEASH-WL-012", "apps/gone, which does not exist"}}},
		{"a pod naming another namespace's request is refused without saying whether it exists or naming its Secret",
			create(t, podNamed("team-b/private")), verdict{says: []string{"LEASH-WL-012", "is not a request whose Secret is in the pod's namespace apps"}, neverSays: "private-key"}},
		{"a pod naming a missing request of another namespace is refused in the same words",
			create(t, podNamed("team-b/gone")), verdict{says: []string{"LEASH-WL-012", "is not a request whose Secret is in the pod's namespace apps"}}},
		{"a pod that names the containers to wire gets the mount and the variables in those alone",
			create(t, podNamed("app", withSidecar, wires("app"))), verdict{allowed: true, patches: []string{
				"add /metadata/annotations/leash.dev~1credentials-injected",
				"add /spec/volumes",
				"add /spec/containers/0/env",
				"add /spec/containers/0/volumeMounts",
			}}},
		{"an init container may be named, beside a regular one",
			create(t, podNamed("app", withSidecar, wires("init, sidecar"))), verdict{allowed: true, patches: []string{
				"add /metadata/annotations/leash.dev~1credentials-injected",
				"add /spec/volumes",
				"add /spec/initContainers/0/env",
				"add /spec/initContainers/0/volumeMounts",
				"add /spec/containers/1/env",
				"add /spec/containers/1/volumeMounts",
			}}},
		{"a pod that names a container it does not have is refused with LEASH-WL-014, naming the pod's containers, and gets no key",
			create(t, podNamed("app", withSidecar, wires("app,side-car"))),
			verdict{says: []string{"LEASH-WL-014", `names "side-car", which the pod does not have (its init and regular containers: init, app, sidecar)`, "or remove the annotation to wire every container"}}},
		{"a pod of a ServiceAccount the request does not list is refused, and gets no key",
			create(t, podNamed("listed", runAs("other"))), verdict{says: []string{"LEASH-WL-012", `does not list the pod's ServiceAccount "other"`, "add other to spec.serviceAccountNames of apps/listed"}}},
		{"a pod of a ServiceAccount the request lists is wired",
			create(t, podNamed("listed", runAs("ccm"))), verdict{allowed: true, patchesUnchecked: true}},
		{"a variable the pod sets otherwise is kept, and a warning names it",
			create(t, podNamed("app", setEnv(0, imds("false")))), verdict{allowed: true, warns: []string{"app/AWS_EC2_METADATA_DISABLED"}, patchesUnchecked: true}},
		{"a variable set twice is judged by its last entry, as the kubelet sets it: kept and named",
			create(t, podNamed("app", setEnv(0, imds("true"), imds("false")))), verdict{allowed: true, warns: []string{"app/AWS_EC2_METADATA_DISABLED"}, patchesUnchecked: true}},
		{"a pod whose own volume has the name leash adds is refused, with the fix",
			create(t, podNamed("app", func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: CredentialsVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			})), verdict{says: []string{"rename that volume"}}},
		{"an update is not mutated: the stored pod was wired when it was created",
			review(t, admissionv1.Update, "", podNamed("app"), podNamed("app")), verdict{allowed: true}},
		{"an object that is no pod is a bad request",
			admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create, Namespace: "apps", Object: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Pod","spec":7}`)}}},
			verdict{code: http.StatusBadRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, h.mutate(context.Background(), tt.req))
		})
	}
	t.Run("the patched variables are leash's values", func(t *testing.T) {
		for _, p := range h.mutate(context.Background(), create(t, podNamed("app"))).Patches {
			if p.Path != "/spec/containers/0/env" {
				continue
			}
			data, _ := json.Marshal(p.Value)
			var env []corev1.EnvVar
			if err := json.Unmarshal(data, &env); err != nil {
				t.Fatal(err)
			}
			got := envMap(corev1.Container{Env: env})
			want := map[string]string{"AWS_SHARED_CREDENTIALS_FILE": CredentialsDir + "/credentials", "AWS_EC2_METADATA_DISABLED": "true", "AWS_STS_REGIONAL_ENDPOINTS": "regional"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("patched env %v, want %v", got, want)
			}
			return
		}
		t.Error("no patch of /spec/containers/0/env")
	})
}

// TestValidate pins the validating webhook's answers on pod CREATE and
// UPDATE and on pods/ephemeralcontainers, in enforcing and warning
// namespaces: AdmissionReview in, the verdict and its message out.
func TestValidate(t *testing.T) {
	h := testHooks(t, setRequests+otherNamespace)
	named := wired(t, podNamed("app"))
	withEphemeral := func(env ...corev1.EnvVar) *corev1.Pod {
		p := named.DeepCopy()
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox", Env: env}, TargetContainerName: "app"}}
		return p
	}
	keptFalse := wired(t, podNamed("app", setEnv(0, imds("false"))))
	relabelled := keptFalse.DeepCopy()
	relabelled.Labels["tier"] = "web"
	hostNetwork := wired(t, podNamed("app", func(p *corev1.Pod) { p.Spec.HostNetwork = true }))
	tests := []struct {
		name     string
		req      admission.Request
		warnOnly bool
		want     verdict
	}{
		{"a pod that receives no leash credential is admitted without warnings", create(t, podNamed("")), false, verdict{allowed: true}},
		{"the pod as the mutating webhook wires it is admitted without warnings", create(t, named), false, verdict{allowed: true}},
		{"a sidecar the pod leaves unwired is not asked for leash's variables: admitted without warnings",
			create(t, wired(t, podNamed("app", withSidecar, wires("app")))), false, verdict{allowed: true}},
		{"a sidecar left unwired that mounts the credentials Secret receives them: refused with LEASH-WL-002 and LEASH-WL-003",
			create(t, func() *corev1.Pod {
				p := wired(t, podNamed("app", withSidecar, wires("app")))
				p.Spec.Containers[1].VolumeMounts = []corev1.VolumeMount{{Name: CredentialsVolume, MountPath: "/etc/aws"}}
				return p
			}()), false,
			verdict{says: []string{"LEASH-WL-002", "container sidecar does not set AWS_EC2_METADATA_DISABLED=true", "LEASH-WL-003", "container sidecar has AWS_SHARED_CREDENTIALS_FILE"}}},
		{"a sidecar left unwired that points AWS_SHARED_CREDENTIALS_FILE at leash's file is refused with LEASH-WL-002",
			create(t, wired(t, podNamed("app", withSidecar, wires("app"), setEnv(1, corev1.EnvVar{Name: "AWS_SHARED_CREDENTIALS_FILE", Value: CredentialsDir + "/credentials"})))), false,
			verdict{says: []string{"LEASH-WL-002", "container sidecar"}}},
		{"a pod that names a container it does not have is refused with LEASH-WL-014",
			create(t, podNamed("app", wires("sidecar"))), false, verdict{says: []string{"LEASH-WL-014", `names "sidecar"`}}},
		{"an init container that enables IMDS is refused with LEASH-WL-002, as a container is",
			create(t, wired(t, podNamed("app", setInitEnv(imds("false"))))), false,
			verdict{says: []string{"LEASH-WL-002", "container init does not set AWS_EC2_METADATA_DISABLED=true"}}},
		{"AWS_EC2_METADATA_DISABLED set twice is judged by the last entry, false",
			create(t, wired(t, podNamed("app", setEnv(0, imds("true"), imds("false"))))), false, verdict{says: []string{"LEASH-WL-002", "container app"}}},
		{"a host-network pod is refused with LEASH-WL-001, and the egress finding is a warning",
			create(t, hostNetwork), false, verdict{says: []string{"LEASH-WL-001", "fix: remove hostNetwork: true"}, warns: []string{"LEASH-WL-006"}}},
		{"in a warn namespace the host-network pod is admitted with both findings as warnings",
			create(t, hostNetwork), true, verdict{allowed: true, warns: []string{"LEASH-WL-001", "LEASH-WL-006"}}},
		{"a volume mounted at leash's credentials path is refused with LEASH-WL-003, naming the volume and the fix",
			create(t, wired(t, podNamed("app", func(p *corev1.Pod) {
				p.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: CredentialsDir}}
			}))), false,
			verdict{says: []string{"LEASH-WL-003", "container app mounts volume cache at " + CredentialsDir, "fix: mount volume cache at another path"}}},
		{"a leash.dev/imds value that names no profile is refused with LEASH-WL-013, listing the accepted values",
			create(t, wired(t, podNamed("app", func(p *corev1.Pod) { p.Annotations[workload.ProfileAnnotation] = "metdata" }))), false,
			verdict{says: []string{"LEASH-WL-013", `"metdata" is no profile`, `"metadata"`}}},
		{"the metadata profile without the node role's policies is refused with LEASH-WL-011, naming the operator's flag",
			create(t, wired(t, podNamed("app", func(p *corev1.Pod) { p.Annotations[workload.ProfileAnnotation] = workload.ProfileMetadata }))), false,
			verdict{says: []string{"LEASH-WL-011", "leash operator --node-role-policy"}}},
		{"a pod naming another namespace's request is refused without naming its Secret",
			create(t, podNamed("team-b/private")), false, verdict{says: []string{"LEASH-WL-012"}, neverSays: "private-key"}},
		{"an ephemeral container added to a wired pod that enables IMDS is refused with LEASH-WL-002",
			review(t, admissionv1.Update, "ephemeralcontainers", withEphemeral(imds("false")), named), false,
			verdict{says: []string{"LEASH-WL-002", "container debug"}}},
		{"an ephemeral container without AWS_EC2_METADATA_DISABLED is refused, as a container without it is",
			review(t, admissionv1.Update, "ephemeralcontainers", withEphemeral(), named), false,
			verdict{says: []string{"LEASH-WL-002", "container debug", `fix: add env AWS_EC2_METADATA_DISABLED: "true"`}}},
		{"an ephemeral container that disables IMDS is admitted",
			review(t, admissionv1.Update, "ephemeralcontainers", withEphemeral(imds("true")), named), false, verdict{allowed: true}},
		{"in a warn namespace the ephemeral container is admitted with the finding as a warning",
			review(t, admissionv1.Update, "ephemeralcontainers", withEphemeral(imds("false")), named), true, verdict{allowed: true, warns: []string{"LEASH-WL-002"}}},
		{"an update that adds no finding to a pod admitted with one is admitted, with it as a warning",
			review(t, admissionv1.Update, "", relabelled, keptFalse), false, verdict{allowed: true, warns: []string{"LEASH-WL-002"}}},
		{"an update that enables IMDS in a container is refused",
			review(t, admissionv1.Update, "", keptFalse, named), false, verdict{says: []string{"LEASH-WL-002"}}},
		{"a dry-run create is answered as any other", func() admission.Request {
			r := create(t, hostNetwork)
			dry := true
			r.DryRun = &dry
			return r
		}(), false, verdict{says: []string{"LEASH-WL-001"}, warns: []string{"LEASH-WL-006"}}},
		{"an object that is no pod is a bad request",
			admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create, Namespace: "apps", Object: runtime.RawExtension{Raw: []byte(`[]`)}}}, false,
			verdict{code: http.StatusBadRequest}},
		{"a stored pod that is no pod is a bad request", func() admission.Request {
			r := review(t, admissionv1.Update, "", named, named)
			r.OldObject.Raw = []byte(`{"apiVersion":"v1","kind":"Pod","spec":7}`)
			return r
		}(), false, verdict{code: http.StatusBadRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, h.validate(tt.warnOnly)(context.Background(), tt.req))
		})
	}
}

// TestHooksWhenTheClusterCannotBeRead pins that a read that fails is an
// error (the API server then applies the failurePolicy), never a verdict.
func TestHooksWhenTheClusterCannotBeRead(t *testing.T) {
	h := testHooks(t, setRequests)
	h.read = func(context.Context, string, string, bool) (cluster, error) {
		return cluster{}, errors.New("the cache is not synced")
	}
	var observed []string
	h.o.Observe = func(path string, _ time.Duration) { observed = append(observed, path) }
	for _, path := range []string{PathMutate, PathValidate, PathValidateWarn} {
		t.Run(path, func(t *testing.T) {
			handle := map[string]admission.HandlerFunc{PathMutate: h.mutate, PathValidate: h.validate(false), PathValidateWarn: h.validate(true)}[path]
			observed = nil
			verdict{code: http.StatusInternalServerError, says: []string{"the cache is not synced"}, patchesUnchecked: true}.check(t, handle(context.Background(), create(t, podNamed("app"))))
			if len(observed) != 1 || observed[0] != path {
				t.Errorf("observed %v, want the answer's time for %s", observed, path)
			}
		})
	}
}

// TestHooksJudgeWhatTheAPIServerHoldsNow pins that a pod the cache would
// have the webhooks refuse or warn is judged again on a live read: a
// request and NetworkPolicy applied with the Deployment that needs them,
// not yet in the cache, are in the pod's verdict; a pod with nothing to
// say costs no live read.
func TestHooksJudgeWhatTheAPIServerHoldsNow(t *testing.T) {
	h := testHooks(t, "")
	live := testHooks(t, setRequests).read
	reads := 0
	h.live = func(ctx context.Context, ns, sa string, policies bool) (cluster, error) {
		reads++
		return live(ctx, ns, sa, policies)
	}
	tests := []struct {
		name  string
		call  func() admission.Response
		want  verdict
		reads int
	}{
		{"a pod that receives no leash credential is admitted on the cache alone",
			func() admission.Response { return h.validate(false)(context.Background(), create(t, podNamed(""))) }, verdict{allowed: true}, 0},
		{"a pod naming a request the cache has not seen yet is wired to it",
			func() admission.Response { return h.mutate(context.Background(), create(t, podNamed("app"))) },
			verdict{allowed: true, patchesUnchecked: true}, 1},
		{"a wired pod whose NetworkPolicy the cache has not seen yet is admitted without the egress warning",
			func() admission.Response {
				return h.validate(false)(context.Background(), create(t, wired(t, podNamed("app"))))
			}, verdict{allowed: true}, 1},
		{"a finding the live read confirms is reported",
			func() admission.Response {
				return h.validate(false)(context.Background(), create(t, wired(t, podNamed("app", setEnv(0, imds("false"))))))
			}, verdict{says: []string{"LEASH-WL-002"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads = 0
			resp := tt.call()
			tt.want.check(t, resp)
			if tt.want.patchesUnchecked && len(resp.Patches) == 0 {
				t.Error("no patch: the pod was not wired")
			}
			if reads != tt.reads {
				t.Errorf("%d live reads, want %d", reads, tt.reads)
			}
		})
	}
}
