package workload

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/reqmode"
)

// The annotations through which a pod asks for its leash credential and
// admission says what it wired. leash check workload and the admission
// webhook read the same names from here.
const (
	// AnnotationCredentials on a pod, or else on its ServiceAccount, names
	// the CredentialsRequest whose Secret the pod receives: NAME (in the
	// pod's namespace) or NAMESPACE/NAME.
	AnnotationCredentials = "leash.dev/credentials"
	// AnnotationCredentialsInjected is set by admission to the request it
	// wired, as NAMESPACE/NAME.
	AnnotationCredentialsInjected = "leash.dev/credentials-injected"
	// AnnotationCredentialsKept lists, as container/NAME separated by
	// commas, the variables and mounts admission left as the pod set them
	// (names only, never values).
	AnnotationCredentialsKept = "leash.dev/credentials-kept"
)

// TokenVolume is the projected volume admission adds for an STS request's
// service account token; the token checks judge it as the request's.
const TokenVolume = "leash-token"

// idNamedRequest is the finding of a leash.dev/credentials annotation that
// admission cannot wire.
const idNamedRequest = "LEASH-WL-012"

// Named is what a pod's leash.dev/credentials annotation asks for.
type Named struct {
	// Value is the annotation's value.
	Value string
	// On says where the annotation is: "the pod" or "ServiceAccount ns/name".
	On string
	// Request is the request it names, nil when the Set has none by that
	// name (or the value is no name).
	Request *leashv1.CredentialsRequest
}

// NamedRequest reads the pod's leash.dev/credentials annotation, on the pod
// or else on its ServiceAccount (when the Set holds it). ok is false when
// neither carries it. A problem (LEASH-WL-012) is returned when the value
// names no request, the request is not in the Set, or its Secret is in
// another namespace than the pod's (a Secret volume cannot cross
// namespaces): a pod admission cannot wire would start without its
// credentials and its AWS SDK fall back to the node's instance role.
func NamedRequest(s *Set, p Pod) (n Named, ok bool, problem *analyze.Finding) {
	at := strings.TrimSuffix(p.Path, "spec") + "metadata.annotations[" + AnnotationCredentials + "]"
	if v, has := p.Annotations[AnnotationCredentials]; has {
		n = Named{Value: v, On: "the pod"}
	} else if sa := serviceAccount(s, p); sa != nil && sa.Annotations[AnnotationCredentials] != "" {
		n = Named{Value: sa.Annotations[AnnotationCredentials], On: fmt.Sprintf("ServiceAccount %s/%s", sa.Namespace, sa.Name)}
		at = p.Path + ".serviceAccountName"
	} else {
		return Named{}, false, nil
	}
	finding := func(msg, fix string) *analyze.Finding {
		return &analyze.Finding{ID: idNamedRequest, Severity: analyze.High, Policy: p.Source, Path: at, Message: msg, Fix: fix}
	}
	ns, name, cut := strings.Cut(n.Value, "/")
	if !cut {
		ns, name = p.Namespace, n.Value
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 || len(validation.IsDNS1123Label(ns)) > 0 || strings.Contains(name, "/") {
		return n, true, finding(
			fmt.Sprintf("annotation %s %q on %s names no CredentialsRequest: the pod would start without its credentials and its AWS SDK fall back to the node's instance role", AnnotationCredentials, n.Value, n.On),
			"give the request's NAME (in the pod's namespace) or NAMESPACE/NAME")
	}
	for _, r := range s.Requests {
		if r.Namespace == ns && r.Name == name {
			n.Request = r
		}
	}
	if ns != p.Namespace && (n.Request == nil || n.Request.Spec.SecretRef.Namespace != p.Namespace) {
		// Whether a request of another namespace exists, and which Secret it
		// writes, is not the pod author's to learn: one message for both.
		n.Request = nil
		return n, true, finding(
			fmt.Sprintf("annotation %s on %s names CredentialsRequest %s/%s, which is not a request whose Secret is in the pod's namespace %s: a pod can mount only a Secret of its own namespace", AnnotationCredentials, n.On, ns, name, p.Namespace),
			fmt.Sprintf("name a CredentialsRequest of namespace %s, or one whose spec.secretRef.namespace is %s", p.Namespace, p.Namespace))
	}
	if n.Request == nil {
		return n, true, finding(
			fmt.Sprintf("annotation %s on %s names CredentialsRequest %s/%s, which does not exist: the pod would start without its credentials and its AWS SDK fall back to the node's instance role", AnnotationCredentials, n.On, ns, name),
			fmt.Sprintf("create CredentialsRequest %s/%s, or correct the annotation (NAME of a request in the pod's namespace, or NAMESPACE/NAME)", ns, name))
	}
	if ref := n.Request.Spec.SecretRef; ref.Namespace != p.Namespace || ref.Name == "" {
		return n, true, finding(
			fmt.Sprintf("annotation %s on %s names CredentialsRequest %s/%s, whose Secret %s/%s is not in the pod's namespace %s: a pod can mount only a Secret of its own namespace", AnnotationCredentials, n.On, ns, name, ref.Namespace, ref.Name, p.Namespace),
			fmt.Sprintf("set spec.secretRef.namespace of %s/%s to %s, or name a request whose Secret is in %s", ns, name, p.Namespace, p.Namespace))
	}
	if sas := n.Request.Spec.ServiceAccountNames; len(sas) > 0 && !slices.Contains(sas, podServiceAccount(p)) {
		// The request says which ServiceAccounts use its credentials (and an
		// STS role leash makes trusts exactly those): another pod of the
		// namespace that names it would take a key meant for them.
		return n, true, finding(
			fmt.Sprintf("annotation %s on %s names CredentialsRequest %s/%s, whose spec.serviceAccountNames (%s) does not list the pod's ServiceAccount %q: its credentials are for those ServiceAccounts' pods only", AnnotationCredentials, n.On, ns, name, strings.Join(sas, ", "), podServiceAccount(p)),
			fmt.Sprintf("run the pod as one of %s (spec.serviceAccountName), or add %s to spec.serviceAccountNames of %s/%s", strings.Join(sas, ", "), podServiceAccount(p), ns, name))
	}
	if role, ok := s.untrustedBy(n.Request, p); ok {
		sub := serviceAccountSub(p)
		return n, true, finding(
			fmt.Sprintf("annotation %s on %s names CredentialsRequest %s/%s, whose STS role %s does not trust a token of the pod's ServiceAccount %q for audience %q (its trust policy, as IAM held it at the last sync, in status.roleTrust): STS would refuse the pod's credentials", AnnotationCredentials, n.On, ns, name, role, podServiceAccount(p), s.audience()),
			fmt.Sprintf("run the pod as a ServiceAccount the role trusts, or add to the role's trust policy an Allow of sts:AssumeRoleWithWebIdentity for the cluster's OIDC provider with conditions StringEquals <issuer>:sub %q and <issuer>:aud %q", sub, s.audience()))
	}
	return n, true, nil
}

// serviceAccountSub is the sub claim of the pod's service-account tokens.
func serviceAccountSub(p Pod) string {
	return "system:serviceaccount:" + p.Namespace + ":" + podServiceAccount(p)
}

// untrustedBy says whether r is an STS request whose role's trust policy,
// as the operator read it into status.roleTrust, admits no token of the
// pod's ServiceAccount for the audience the pod is given (analyze.Admitted
// asks the engine); it returns the role. A request whose trust was not
// read, or cannot be parsed, is not judged: STS decides.
func (s *Set) untrustedBy(r *leashv1.CredentialsRequest, p Pod) (string, bool) {
	if r.Status.RoleTrust == "" || !s.isSTS(r) {
		return "", false
	}
	spec, err := reqmode.Spec(r)
	if err != nil || spec.STSIAMRoleARN == "" {
		return "", false
	}
	by, err := analyze.Admitted(r.Status.RoleTrust, spec.STSIAMRoleARN, serviceAccountSub(p), map[string]string{"aud": s.audience()})
	return spec.STSIAMRoleARN, err == nil && len(by) == 0
}

// podServiceAccount is the name of the pod's ServiceAccount, "default"
// when the spec names none.
func podServiceAccount(p Pod) string {
	if p.Spec.ServiceAccountName == "" {
		return "default"
	}
	return p.Spec.ServiceAccountName
}

// ReceivesLeash says whether a leash credential reaches the pod: it names
// a request with leash.dev/credentials (on it or its ServiceAccount), or it
// takes credentials from a Secret a CredentialsRequest of the Set writes
// (or one labelled as written by leash), or from leash's credential broker
// (its token or its agent). Admission judges these pods and
// leaves the others alone.
func ReceivesLeash(s *Set, p Pod) bool {
	if _, ok, _ := NamedRequest(s, p); ok {
		return true
	}
	for _, c := range credentials(s, p) {
		if c.req != nil || c.broker {
			return true
		}
		if sec := s.secret(p.Namespace, c.secret); sec != nil && sec.Labels[leashv1.LabelCredentialsRequest] == "true" {
			return true
		}
	}
	return false
}

// ServiceAccountOf is the pod's ServiceAccount when the Set holds it, else
// nil.
func (s *Set) ServiceAccountOf(p Pod) *corev1.ServiceAccount { return serviceAccount(s, p) }

// serviceAccount is the pod's ServiceAccount when the Set holds it.
func serviceAccount(s *Set, p Pod) *corev1.ServiceAccount {
	name := podServiceAccount(p)
	for i, a := range s.ServiceAccounts {
		if a.Namespace == p.Namespace && a.Name == name {
			return &s.ServiceAccounts[i]
		}
	}
	return nil
}
