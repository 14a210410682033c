package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/workload"
)

// The paths deploy/base/webhook.yaml calls.
const (
	PathMutate       = "/mutate"
	PathValidate     = "/validate"
	PathValidateWarn = "/validate-warn"
)

// hooks answer admission requests for pods from the cluster read returns
// (the manager's cache in the operator). A pod the cache would have them
// refuse or warn is judged again on live, what the API server holds now
// (when set): the cache lags a write by milliseconds, and a NetworkPolicy
// or request applied with the Deployment that needs it must not be
// missing from its pods' verdict. A pod with nothing to say costs no read
// of the API server. The hooks write nothing, so a dry-run request is
// answered as any other.
type hooks struct {
	read, live readCluster
	decoder    admission.Decoder
	o          Options
}

// mutate wires a pod that names a request (Wire); it refuses one whose
// annotation names no usable request (LEASH-WL-012), or containers to wire
// it does not have (LEASH-WL-014), since the pod (or the container meant
// to hold them) would start without its credentials and fall back to the
// node's role.
func (h *hooks) mutate(ctx context.Context, req admission.Request) admission.Response {
	defer h.timed(PathMutate, time.Now())
	if req.Operation != admissionv1.Create {
		// A stored pod's spec is all but immutable: it was wired when it
		// was created, and validation judges what an update adds.
		return admission.Allowed("")
	}
	pod := &corev1.Pod{}
	if err := h.decoder.Decode(req, pod); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode the pod: %w", err))
	}
	s, p, err := h.set(ctx, req, pod, false, false)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	n, ok, problem := workload.NamedRequest(s, p)
	if problem != nil && h.live != nil {
		if s, p, err = h.set(ctx, req, pod, false, true); err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
		n, ok, problem = workload.NamedRequest(s, p)
	}
	if !ok {
		return admission.Allowed("")
	}
	if _, f := workload.WiredContainers(p); problem == nil {
		problem = f
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
// admits it with all of them as warnings. It judges a pod's CREATE, and its
// UPDATE (of the pod, or of its ephemeral containers, kubectl debug's
// pods/ephemeralcontainers): an update is refused only for a finding the
// stored pod did not have, such as an ephemeral container that enables
// IMDS; the findings it had are warnings, so that an update that adds
// nothing (a label, a finalizer removed) is never held by what the pod was
// admitted with.
func (h *hooks) validate(warnOnly bool) admission.HandlerFunc {
	path := PathValidate
	if warnOnly {
		path = PathValidateWarn
	}
	return func(ctx context.Context, req admission.Request) admission.Response {
		defer h.timed(path, time.Now())
		pod := &corev1.Pod{}
		if err := h.decoder.Decode(req, pod); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode the pod: %w", err))
		}
		p, v, err := h.verdict(ctx, req, pod, false)
		if err == nil && len(v.Refuse)+len(v.Warn) > 0 && h.live != nil {
			p, v, err = h.verdict(ctx, req, pod, true)
		}
		if err != nil {
			return errored(err)
		}
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

// verdict judges the pod of req in the cluster read (live, or from the
// cache): an update only for what it adds to the stored pod.
func (h *hooks) verdict(ctx context.Context, req admission.Request, pod *corev1.Pod, live bool) (workload.Pod, Verdict, error) {
	s, p, err := h.set(ctx, req, pod, true, live)
	if err != nil {
		return p, Verdict{}, err
	}
	v := Judge(s, p, h.o.RefuseAt)
	if req.Operation == admissionv1.Update && len(req.OldObject.Raw) > 0 {
		old := &corev1.Pod{}
		if err := h.decoder.DecodeRaw(req.OldObject, old); err != nil {
			return p, v, badRequest{fmt.Errorf("decode the stored pod: %w", err)}
		}
		v = v.Added(Judge(s, podOf(req, old), h.o.RefuseAt))
	}
	return p, v, nil
}

// badRequest is an error of the request itself, not of reading the
// cluster.
type badRequest struct{ error }

func errored(err error) admission.Response {
	var bad badRequest
	if errors.As(err, &bad) {
		return admission.Errored(http.StatusBadRequest, bad.error)
	}
	return admission.Errored(http.StatusInternalServerError, err)
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

// podOf is the pod of req as the workload checks take it.
func podOf(req admission.Request, pod *corev1.Pod) workload.Pod {
	ns := pod.Namespace
	if ns == "" {
		ns = req.Namespace
	}
	name := pod.Name
	if name == "" {
		name = pod.GenerateName + "*"
	}
	return workload.Pod{Source: fmt.Sprintf("Pod %s/%s", ns, name), Kind: "Pod", Name: name, Namespace: ns,
		Labels: pod.Labels, Annotations: pod.Annotations, Spec: pod.Spec, Path: "spec"}
}

// set builds the Set the pod of req is judged in: the cluster h reads
// (for validation, with its namespace's NetworkPolicies; live, or from the
// cache) and the node role.
func (h *hooks) set(ctx context.Context, req admission.Request, pod *corev1.Pod, validating, live bool) (*workload.Set, workload.Pod, error) {
	p := podOf(req, pod)
	read := h.read
	if live {
		read = h.live
	}
	c, err := read(ctx, p.Namespace, serviceAccountOf(pod), validating)
	if err != nil {
		return nil, p, err
	}
	s := &workload.Set{Pods: []workload.Pod{p}, Requests: c.Requests, Policies: c.Policies,
		NodeRole: h.o.NodeRole, NodeRoleOnly: h.o.NodeRoleOnly, Audience: h.o.Wiring.Audience, Mode: h.o.Wiring.Mode}
	if c.ServiceAccount != nil {
		s.ServiceAccounts = []corev1.ServiceAccount{*c.ServiceAccount}
	}
	return s, p, nil
}
