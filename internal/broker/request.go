package broker

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
)

// Annotations the broker reads. They are the operator's and admission's
// (operator.AnnotationRevoke, workload.AnnotationCredentialsInjected;
// annotations_test.go keeps them equal), named here so that the broker
// does not import the packages that wire pods to it.
const (
	// annotationRevoke on a request: its sessions are refused.
	annotationRevoke = "leash.dev/revoke"
	// annotationInjected on a pod: the request admission wired it to,
	// NAMESPACE/NAME.
	annotationInjected = "leash.dev/credentials-injected"
)

// indexServiceAccount indexes Broker requests by the service accounts
// they serve, as NAMESPACE/NAME: spec.secretRef.namespace and each of
// spec.serviceAccountNames.
const indexServiceAccount = "broker.leash.dev/service-account"

// serviceAccountKeys is indexServiceAccount's function: a request that is
// in Broker mode with a role (status.mode, status.principal) has a key per
// service account it names; any other request has none.
func serviceAccountKeys(o client.Object) []string {
	r, ok := o.(*leashv1.CredentialsRequest)
	if !ok || !serves(r) {
		return nil
	}
	keys := make([]string, 0, len(r.Spec.ServiceAccountNames))
	for _, sa := range r.Spec.ServiceAccountNames {
		keys = append(keys, r.Spec.SecretRef.Namespace+"/"+sa)
	}
	return keys
}

// serves says whether the broker serves sessions for r: the operator made
// its role in Broker mode.
func serves(r *leashv1.CredentialsRequest) bool {
	return r.Status.Mode == leashv1.ModeBroker && r.Status.Principal != ""
}

// request is the CredentialsRequest whose role the pod receives: the one
// Broker request naming its service account, or, when the pod carries
// leash.dev/credentials-injected (set by admission), the one of those it
// names. A pod whose annotation names a request that does not serve its
// service account, or with several requests to choose from and no
// annotation, is refused.
func request(ctx context.Context, c client.Reader, id identity, injected string) (*leashv1.CredentialsRequest, *refusal) {
	var list leashv1.CredentialsRequestList
	if err := c.List(ctx, &list, client.MatchingFields{indexServiceAccount: id.Namespace + "/" + id.ServiceAccount}); err != nil {
		return nil, refuse(http.StatusServiceUnavailable, CodeNotReady, "the broker could not read CredentialsRequests: "+err.Error())
	}
	var names []string
	var only *leashv1.CredentialsRequest
	for i := range list.Items {
		r := &list.Items[i]
		if !serves(r) { // the index is the cache's; recheck the object read
			continue
		}
		name := r.Namespace + "/" + r.Name
		if injected == name {
			return r, nil
		}
		names = append(names, name)
		only = r
	}
	switch {
	case injected != "":
		return nil, refuse(http.StatusForbidden, CodeNoRequest,
			fmt.Sprintf("the pod's %s names %s, which is not a CredentialsRequest in Broker mode naming service account %s in spec.serviceAccountNames with spec.secretRef.namespace %s",
				annotationInjected, injected, id.ServiceAccount, id.Namespace))
	case len(names) == 0:
		return nil, refuse(http.StatusForbidden, CodeNoRequest,
			fmt.Sprintf("no CredentialsRequest in Broker mode names service account %s in spec.serviceAccountNames with spec.secretRef.namespace %s: add it to a request's spec.serviceAccountNames",
				id.ServiceAccount, id.Namespace))
	case len(names) > 1:
		return nil, refuse(http.StatusForbidden, CodeAmbiguousRequest,
			fmt.Sprintf("CredentialsRequests %s all serve service account %s/%s and the pod has no %s saying which: name one with the pod's leash.dev/credentials annotation",
				strings.Join(names, ", "), id.Namespace, id.ServiceAccount, annotationInjected))
	}
	return only, nil
}
