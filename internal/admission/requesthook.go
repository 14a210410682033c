package admission

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/reqmode"
	"leash.dev/leash/internal/secretowner"
)

// PathRequest is the path deploy/base/webhook.yaml calls for CredentialsRequests.
const PathRequest = "/validate-credentialsrequest"

// Requests configure the CredentialsRequest webhook: what decides what a
// request makes the operator do, and which Secrets are never a target.
type Requests struct {
	RequestContext
	// Reserved are the operator's own Secrets as NAMESPACE/NAME (its root
	// credentials, its webhook certificate): no request may name one.
	Reserved []string
	// SecretNamespaces, when set, are the only namespaces the operator
	// writes Secrets in (leash operator --secret-namespaces).
	SecretNamespaces []string
}

// requestHook refuses a CredentialsRequest that would have the operator
// do what its author could not: leash holds rights on every Secret and the
// root key, and must not lend them to whoever may create a request. It
// asks the API server, with a SubjectAccessReview as the requesting user,
// for each thing RequestAccess lists, and reads the target Secret (with
// the uncached reader: the cache holds only leash's own Secrets) to refuse
// one that secretowner says leash must not write. It writes nothing, so
// a dry-run request is answered as any other.
type requestHook struct {
	client  client.Client
	reader  client.Reader
	decoder admission.Decoder
	o       Requests
	observe func(path string, d time.Duration)
}

func (h *requestHook) handle(ctx context.Context, req admission.Request) admission.Response {
	if h.observe != nil {
		defer func(start time.Time) { h.observe(PathRequest, time.Since(start)) }(time.Now())
	}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	cr := &leashv1.CredentialsRequest{}
	if err := h.decoder.Decode(req, cr); err != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode the CredentialsRequest: %w", err))
	}
	if req.Operation == admissionv1.Update {
		old := &leashv1.CredentialsRequest{}
		if err := h.decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, fmt.Errorf("decode the stored CredentialsRequest: %w", err))
		}
		if !Retargets(old, cr) {
			return admission.Allowed("")
		}
	}
	if cr.Namespace == "" {
		cr.Namespace = req.Namespace
	}
	reasons, err := h.refusals(ctx, req, cr)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if len(reasons) == 0 {
		return admission.Allowed("")
	}
	log.FromContext(ctx).WithName("admission").Info("refused a CredentialsRequest", "path", PathRequest,
		"request", cr.Namespace+"/"+cr.Name, "user", req.UserInfo.Username, "secretRef", cr.Spec.SecretRef.Namespace+"/"+cr.Spec.SecretRef.Name)
	return admission.Denied(strings.Join(reasons, "\n"))
}

// Retargets says whether an update changes what the operator does for the
// request: its spec or its mode annotation. The operator's own updates
// (finalizers, other metadata) and status change neither, and pass.
func Retargets(old, cr *leashv1.CredentialsRequest) bool {
	return !apiequality.Semantic.DeepEqual(old.Spec, cr.Spec) ||
		old.Annotations[reqmode.Annotation] != cr.Annotations[reqmode.Annotation]
}

// refusals are the reasons cr is refused, none when it is admitted.
func (h *requestHook) refusals(ctx context.Context, req admission.Request, cr *leashv1.CredentialsRequest) ([]string, error) {
	need := RequestAccess(cr, h.o.RequestContext)
	if len(need) == 0 {
		return nil, nil
	}
	ref := types.NamespacedName{Namespace: cr.Spec.SecretRef.Namespace, Name: cr.Spec.SecretRef.Name}
	var reasons []string
	for _, msg := range []string{secretowner.ReservedRefusal(h.o.Reserved, ref.Namespace, ref.Name), secretowner.NamespaceRefusal(h.o.SecretNamespaces, ref.Namespace)} {
		if msg != "" {
			reasons = append(reasons, msg)
		}
	}
	var missing []Access
	for _, a := range need {
		ok, err := h.allowed(ctx, req, a)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		reasons = append(reasons, Refusal(req.UserInfo.Username, missing))
	}
	// Manual reads the administrator's Secret and never writes it: that it
	// is not leash's is expected.
	if mode, _, _ := requestMode(cr, h.o.Mode); mode != leashv1.ModeManual && ref.Name != "" && ref.Namespace != "" {
		s := &corev1.Secret{}
		switch err := h.reader.Get(ctx, ref, s); {
		case err == nil:
			if secretowner.Of(s, cr) == secretowner.NotOwned {
				reasons = append(reasons, secretowner.NotOwnedMessage(s, cr))
			}
		case apierrors.IsNotFound(err):
		case apierrors.IsForbidden(err):
			// Outside the operator's Secret namespaces: refused above when
			// they are set, and the operator could not write it either.
		default:
			return nil, fmt.Errorf("read Secret %s: %w", ref, err)
		}
	}
	return reasons, nil
}

// allowed asks the API server whether the requesting user may do a.
func (h *requestHook) allowed(ctx context.Context, req admission.Request, a Access) (bool, error) {
	u := req.UserInfo
	extra := make(map[string]authorizationv1.ExtraValue, len(u.Extra))
	for k, v := range u.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	attrs := a.ResourceAttributes
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		ResourceAttributes: &attrs, User: u.Username, Groups: u.Groups, UID: u.UID, Extra: extra}}
	if err := h.client.Create(ctx, sar); err != nil {
		return false, fmt.Errorf("ask whether %s may %s: %w", u.Username, a, err)
	}
	return sar.Status.Allowed, nil
}
