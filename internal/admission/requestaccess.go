package admission

import (
	"errors"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/reqmode"
)

// RequestContext is what, beyond the request itself, decides what a
// CredentialsRequest makes the operator do: the cluster's mode and where
// the root credentials are.
type RequestContext struct {
	// Mode is the operator's cluster mode (leash operator --mode).
	Mode leashv1.CredentialsMode
	// RootSecret is the Secret holding the root credentials; empty when
	// the operator reads them from a file (--root-credentials-file).
	RootSecret types.NamespacedName
}

// Access is one thing the operator would do for a request, as a
// SubjectAccessReview asks it of the request's author.
type Access struct {
	authorizationv1.ResourceAttributes
	// Why says what the operator does with it, for the refusal.
	Why string
}

// String words the access as a refusal names it: verb, resource, name
// and namespace.
func (a Access) String() string {
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	what := a.Verb + " " + res
	if a.Name != "" {
		what += " " + a.Name
	}
	if a.Namespace == "" {
		return what + " in all namespaces"
	}
	return what + " in namespace " + a.Namespace
}

// RequestAccess lists what cr makes the operator do on its author's
// behalf, each of which the author must be allowed to do themselves:
//
//   - write (create, update, delete) and read spec.secretRef, the Secret
//     leash keeps in step with the request: every mode but Manual;
//   - Manual: read that Secret, whose key leash checks and reports;
//   - Passthrough: read the root credentials' Secret, whose very key leash
//     copies out (with a root file there is no Secret to ask about, so the
//     author must be able to read every Secret);
//   - STS without spec.providerSpec.stsIAMRoleARN: a token of each of
//     spec.serviceAccountNames in the target namespace, as leash requests
//     one to prove the role it made.
//
// A request for another cloud needs nothing: leash leaves it alone. One
// whose providerSpec or mode annotation is invalid is refused by the
// operator with a condition; it needs what every mode but Manual needs,
// the Secret's rights, so that admission never admits more than the
// operator could do with it.
func RequestAccess(cr *leashv1.CredentialsRequest, rc RequestContext) []Access {
	ref := cr.Spec.SecretRef
	secret := func(verb, name, why string) Access {
		return Access{ResourceAttributes: authorizationv1.ResourceAttributes{Verb: verb, Resource: "secrets", Namespace: ref.Namespace, Name: name}, Why: why}
	}
	mode, spec, aws := requestMode(cr, rc.Mode)
	if !aws {
		return nil
	}
	if mode == leashv1.ModeManual {
		return []Access{secret("get", ref.Name, "leash reads spec.secretRef and reports its key's principal")}
	}
	out := []Access{
		secret("create", "", "leash creates spec.secretRef"),
		secret("update", ref.Name, "leash writes spec.secretRef"),
		secret("delete", ref.Name, "leash deletes spec.secretRef with the request"),
		secret("get", ref.Name, "leash reads spec.secretRef"),
	}
	switch {
	case mode == leashv1.ModePassthrough && rc.RootSecret.Name != "":
		out = append(out, Access{ResourceAttributes: authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets",
			Namespace: rc.RootSecret.Namespace, Name: rc.RootSecret.Name}, Why: "Passthrough copies the root credentials' key into spec.secretRef"})
	case mode == leashv1.ModePassthrough:
		out = append(out, Access{ResourceAttributes: authorizationv1.ResourceAttributes{Verb: "get", Resource: "secrets"},
			Why: "Passthrough copies the root credentials' key (from the operator's file) into spec.secretRef"})
	case mode == leashv1.ModeSTS && spec.STSIAMRoleARN == "":
		for _, sa := range cr.Spec.ServiceAccountNames {
			out = append(out, Access{ResourceAttributes: authorizationv1.ResourceAttributes{Verb: "create", Resource: "serviceaccounts", Subresource: "token",
				Namespace: ref.Namespace, Name: sa}, Why: "STS proves the role leash makes with a token of spec.serviceAccountNames"})
		}
	}
	return out
}

// requestMode is the request's effective mode, as the operator reads it:
// "" when its providerSpec or mode annotation is invalid (the operator
// refuses it with a condition); aws is false for another cloud's request.
func requestMode(cr *leashv1.CredentialsRequest, cluster leashv1.CredentialsMode) (mode leashv1.CredentialsMode, spec *leashv1.AWSProviderSpec, aws bool) {
	spec, err := reqmode.Spec(cr)
	if errors.Is(err, reqmode.ErrNotAWS) {
		return "", nil, false
	}
	if err != nil {
		return "", nil, true
	}
	if m, err := reqmode.Of(cr, spec, cluster); err == nil {
		mode = m
	}
	return mode, spec, true
}

// Refusal words the accesses user lacks as the webhook's denial: each
// names the verb, resource, name and namespace the author would need, so
// that an administrator can grant it or the author can retarget the
// request.
func Refusal(user string, missing []Access) string {
	parts := make([]string, len(missing))
	for i, a := range missing {
		parts[i] = "may not " + a.String() + " (" + a.Why + ")"
	}
	return fmt.Sprintf("user %s %s; leash does for a CredentialsRequest only what its author could do: have these granted, or name a Secret the author may write",
		user, strings.Join(parts, "; "))
}
