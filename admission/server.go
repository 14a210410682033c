package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/workload"
)

// The paths deploy/webhook.yaml calls.
const (
	PathMutate       = "/mutate"
	PathValidate     = "/validate"
	PathValidateWarn = "/validate-warn"
)

// hooks answer admission requests for pods from what the manager's cache
// holds: the CredentialsRequests, the pod's ServiceAccount (its metadata
// only) and the NetworkPolicies of its namespace. They write nothing, so a
// dry-run request is answered as any other.
type hooks struct {
	reader  client.Reader
	decoder admission.Decoder
	o       Options
}

// mutate wires a pod that names a request (Wire); it refuses one whose
// annotation names no usable request (LEASH-WL-012), since the pod would
// start without its credentials and fall back to the node's role.
func (h *hooks) mutate(ctx context.Context, req admission.Request) admission.Response {
	defer h.timed(PathMutate, time.Now())
	pod, s, p, err := h.read(ctx, req, false)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	n, ok, problem := workload.NamedRequest(s, p)
	if !ok {
		return admission.Allowed("")
	}
	if problem != nil {
		h.logRefusal(ctx, PathMutate, p, []string{problem.ID})
		return admission.Denied("leash cannot wire the pod to its AWS credentials:\n" + Lines([]analyze.Finding{*problem})[0])
	}
	var sa map[string]string
	if a := s.ServiceAccountOf(p); a != nil {
		sa = a.Annotations
	}
	wired, kept, err := Wire(Pod{Annotations: pod.Annotations, Spec: pod.Spec}, sa, n.Request, h.o.Wiring)
	if err != nil {
		h.logRefusal(ctx, PathMutate, p, nil)
		return admission.Denied("leash cannot wire the pod to its AWS credentials: " + err.Error())
	}
	if reflect.DeepEqual(wired.Spec, pod.Spec) && reflect.DeepEqual(wired.Annotations, pod.Annotations) {
		return admission.Allowed("")
	}
	pod.Annotations, pod.Spec = wired.Annotations, wired.Spec
	raw, err := json.Marshal(pod)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	resp := admission.PatchResponseFromRaw(req.Object.Raw, raw)
	if len(kept) > 0 {
		resp = resp.WithWarnings("leash left as the pod sets them (annotation " + workload.AnnotationCredentialsKept + "): " + strings.Join(kept, ", "))
	}
	return resp
}

// validate refuses a pod that receives a leash credential with findings at
// or above RefuseAt, and admits it with the others as warnings; warnOnly
// admits it with all of them as warnings.
func (h *hooks) validate(warnOnly bool) admission.HandlerFunc {
	path := PathValidate
	if warnOnly {
		path = PathValidateWarn
	}
	return func(ctx context.Context, req admission.Request) admission.Response {
		defer h.timed(path, time.Now())
		_, s, p, err := h.read(ctx, req, true)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
		v := Judge(s, p, h.o.RefuseAt)
		if warnOnly {
			v.Warn, v.Refuse = append(v.Refuse, v.Warn...), nil
		}
		if len(v.Refuse) > 0 {
			ids := make([]string, len(v.Refuse))
			for i, f := range v.Refuse {
				ids[i] = f.ID
			}
			h.logRefusal(ctx, path, p, ids)
			return admission.Denied(refusal(v.Refuse)).WithWarnings(Lines(v.Warn)...)
		}
		return admission.Allowed("").WithWarnings(Lines(v.Warn)...)
	}
}

func (h *hooks) timed(path string, start time.Time) {
	if h.o.Observe != nil {
		h.o.Observe(path, time.Since(start))
	}
}

// logRefusal logs which pod was refused and why, by finding ID: never a
// value of the pod or of a Secret.
func (h *hooks) logRefusal(ctx context.Context, path string, p workload.Pod, ids []string) {
	log.FromContext(ctx).WithName("admission").Info("refused a pod", "path", path, "pod", p.Source, "findings", ids)
}

// read decodes the pod of req and builds the Set it is judged in: the
// CredentialsRequests, its ServiceAccount's metadata and, for validation,
// its namespace's NetworkPolicies and the node role. The Secrets are left
// out: the cache holds leash's without their data, and a request already
// says which Secret is credentials.
func (h *hooks) read(ctx context.Context, req admission.Request, validating bool) (*corev1.Pod, *workload.Set, workload.Pod, error) {
	pod := &corev1.Pod{}
	if err := h.decoder.Decode(req, pod); err != nil {
		return nil, nil, workload.Pod{}, fmt.Errorf("decode the pod: %w", err)
	}
	ns := pod.Namespace
	if ns == "" {
		ns = req.Namespace
	}
	name := pod.Name
	if name == "" {
		name = pod.GenerateName + "*"
	}
	p := workload.Pod{Source: fmt.Sprintf("Pod %s/%s", ns, name), Kind: "Pod", Name: name, Namespace: ns,
		Labels: pod.Labels, Annotations: pod.Annotations, Spec: pod.Spec, Path: "spec"}
	s := &workload.Set{Pods: []workload.Pod{p}, NodeRole: h.o.NodeRole, NodeRoleOnly: h.o.NodeRoleOnly,
		Audience: h.o.Wiring.Audience, Mode: h.o.Wiring.Mode}
	var requests leashv1.CredentialsRequestList
	if err := h.reader.List(ctx, &requests, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, p, fmt.Errorf("list CredentialsRequests: %w", err)
	}
	for i := range requests.Items {
		s.Requests = append(s.Requests, &requests.Items[i])
	}
	saName := pod.Spec.ServiceAccountName
	if saName == "" {
		saName = "default"
	}
	sa := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}}
	switch err := h.reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: saName}, sa); {
	case err == nil:
		s.ServiceAccounts = []corev1.ServiceAccount{{ObjectMeta: sa.ObjectMeta}}
	case !apierrors.IsNotFound(err):
		return nil, nil, p, fmt.Errorf("read ServiceAccount %s/%s: %w", ns, saName, err)
	}
	if validating {
		var nps networkingv1.NetworkPolicyList
		if err := h.reader.List(ctx, &nps, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
			return nil, nil, p, fmt.Errorf("list NetworkPolicies of %s: %w", ns, err)
		}
		s.Policies = nps.Items
	}
	return pod, s, p, nil
}
