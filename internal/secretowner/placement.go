package secretowner

import (
	"fmt"
	"slices"
	"strings"
)

// ReservedRefusal says why a request may not name Secret namespace/name,
// one of the operator's own (reserved, as NAMESPACE/NAME: its root
// credentials, its webhook certificate); empty when it is not one.
func ReservedRefusal(reserved []string, namespace, name string) string {
	target := namespace + "/" + name
	if !slices.Contains(reserved, target) {
		return ""
	}
	return fmt.Sprintf("spec.secretRef: Secret %s is the operator's own and is never a request's target; name another Secret", target)
}

// NamespaceRefusal says why a request may not name a Secret in namespace,
// outside the only namespaces leash writes Secrets in (served, when set:
// --secret-namespaces); empty when it may.
func NamespaceRefusal(served []string, namespace string) string {
	if len(served) == 0 || slices.Contains(served, namespace) {
		return ""
	}
	return fmt.Sprintf("spec.secretRef.namespace %s is not among the namespaces leash may write Secrets in (%s); name a Secret in one of them, or ask the cluster's administrator to add %s to --secret-namespaces",
		namespace, strings.Join(served, ", "), namespace)
}
