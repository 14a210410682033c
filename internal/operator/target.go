package operator

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/secretowner"
)

// DefaultAdminNamespaces are the namespaces, besides the operator's own,
// whose requests may name Secrets in other namespaces: OpenShift keeps its
// operators' requests there, each naming its operator's namespace.
var DefaultAdminNamespaces = []string{"openshift-cloud-credential-operator"}

// targetRefused checks where the request's Secret is before anything is
// read or written: not one of the operator's own Secrets, in a namespace
// leash serves, in the request's own namespace unless the request is in an
// administrator namespace; and the root key itself only for requests in an
// administrator namespace. nil when the target is allowed.
func (p *Provisioner) targetRefused(cr *leashv1.CredentialsRequest, mode leashv1.CredentialsMode) *Failure {
	ref := cr.Spec.SecretRef
	refuse := func(reason, format string, args ...any) *Failure {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	if msg := secretowner.ReservedRefusal(p.cfg.ReservedSecrets, ref.Namespace, ref.Name); msg != "" {
		return refuse(ReasonSecretReserved, "%s", msg)
	}
	if msg := secretowner.NamespaceRefusal(p.cfg.SecretNamespaces, ref.Namespace); msg != "" {
		return refuse(ReasonNamespaceNotServed, "%s", msg)
	}
	admin := p.isAdminNamespace(cr.Namespace)
	if ref.Namespace != cr.Namespace && !admin {
		return refuse(ReasonNamespaceNotAllowed, "spec.secretRef.namespace %s is not the request's own namespace %s, and only requests in the administrator namespaces (%s) may name a Secret in another namespace; name a Secret in %s, or have the cluster's administrator create the request in one of those namespaces",
			ref.Namespace, cr.Namespace, p.adminNamespacesText(), cr.Namespace)
	}
	if mode == leashv1.ModePassthrough && !admin {
		return refuse(ReasonPassthroughNotAllowed, "Passthrough mode hands out the root credentials themselves, and only requests in the administrator namespaces (%s) may receive them; use Mint or STS mode for this request (annotation %s), or have the cluster's administrator create it in one of those namespaces",
			p.adminNamespacesText(), AnnotationMode)
	}
	return nil
}

func (p *Provisioner) isAdminNamespace(ns string) bool {
	return slices.Contains(p.cfg.AdminNamespaces, ns) || slices.Contains(p.cfg.AdminNamespaces, "*")
}

func (p *Provisioner) adminNamespacesText() string {
	if len(p.cfg.AdminNamespaces) == 0 {
		return "none are configured"
	}
	return strings.Join(p.cfg.AdminNamespaces, ", ")
}

// writableSecret reads the request's Secret and says whether leash may
// write it: absent (cur is nil) or the request's own. A Secret that is
// someone else's is a SecretNotOwned failure, and nothing is written.
func (p *Provisioner) writableSecret(ctx context.Context, cr *leashv1.CredentialsRequest) (cur *corev1.Secret, err error) {
	ref := cr.Spec.SecretRef
	cur, err = p.cluster.Secret(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("read Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if secretowner.Of(cur, cr) == secretowner.NotOwned {
		return nil, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonSecretNotOwned, Message: secretowner.NotOwnedMessage(cur, cr)}
	}
	return cur, nil
}
