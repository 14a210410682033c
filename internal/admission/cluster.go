package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
)

// cluster is what the pod webhooks judge a pod of a namespace with, besides
// the pod itself: the CredentialsRequests, the metadata of the pod's
// ServiceAccount (nil when it does not exist) and, for validation, the
// NetworkPolicies of the namespace.
type cluster struct {
	Requests       []*leashv1.CredentialsRequest
	ServiceAccount *corev1.ServiceAccount
	Policies       []networkingv1.NetworkPolicy
}

// readCluster reads the cluster a pod of namespace ns, running as
// ServiceAccount sa, is judged in; policies says whether to read the
// NetworkPolicies. The handlers take it as a function so that what they
// decide can be tested from the objects alone.
type readCluster func(ctx context.Context, ns, sa string, policies bool) (cluster, error)

// cachedCluster reads the cluster from r, the manager's cache or, for a
// second look, its API reader: the Secrets are
// left out (the cache holds leash's without their data, and a request
// already says which Secret is credentials), and the ServiceAccount is read
// as metadata only.
func cachedCluster(r client.Reader) readCluster {
	return func(ctx context.Context, ns, saName string, policies bool) (cluster, error) {
		var c cluster
		var requests leashv1.CredentialsRequestList
		if err := r.List(ctx, &requests, client.UnsafeDisableDeepCopy); err != nil {
			return c, fmt.Errorf("list CredentialsRequests: %w", err)
		}
		for i := range requests.Items {
			c.Requests = append(c.Requests, &requests.Items[i])
		}
		sa := serviceAccountMetadata()
		switch err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: saName}, sa); {
		case err == nil:
			c.ServiceAccount = &corev1.ServiceAccount{ObjectMeta: sa.ObjectMeta}
		case !apierrors.IsNotFound(err):
			return c, fmt.Errorf("read ServiceAccount %s/%s: %w", ns, saName, err)
		}
		if policies {
			var nps networkingv1.NetworkPolicyList
			if err := r.List(ctx, &nps, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
				return c, fmt.Errorf("list NetworkPolicies of %s: %w", ns, err)
			}
			c.Policies = nps.Items
		}
		return c, nil
	}
}

// serviceAccountOf is the pod's ServiceAccount's name, as the API server
// defaults it.
func serviceAccountOf(pod *corev1.Pod) string {
	if pod.Spec.ServiceAccountName == "" {
		return "default"
	}
	return pod.Spec.ServiceAccountName
}
