package admission

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestCachedCluster pins what a pod of a namespace is judged in, read as
// the operator reads its cache (here straight from a real API server): the
// CredentialsRequests of every namespace, its own ServiceAccount's metadata
// (none when it does not exist) and, for validation only, the
// NetworkPolicies of its own namespace.
func TestCachedCluster(t *testing.T) {
	srv, _ := startAPIServer(t)
	ctx := context.Background()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "app", Annotations: map[string]string{"leash.dev/credentials": "app"}}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "egress"}, Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}},
		&networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "egress"}, Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}},
	}
	for _, ns := range []string{"apps", "other"} {
		r := request("app", keySpec, nil)
		r.Namespace, r.Spec.SecretRef.Namespace = ns, ns
		objs = append(objs, r)
	}
	for _, o := range objs {
		if err := srv.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	read := cachedCluster(srv.Client)
	for _, tt := range []struct {
		name, sa     string
		policies     bool
		wantSA       bool
		wantPolicies int
	}{
		{"validation reads the requests, the ServiceAccount's annotations and the namespace's own policies", "app", true, true, 1},
		{"mutation reads no policy", "app", false, true, 0},
		{"a ServiceAccount that does not exist is none, not an error", "gone", true, false, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := read(ctx, "apps", tt.sa, tt.policies)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Requests) != 2 {
				t.Errorf("%d requests, want both namespaces' 2", len(c.Requests))
			}
			if got := c.ServiceAccount != nil; got != tt.wantSA {
				t.Errorf("ServiceAccount %+v, want one: %v", c.ServiceAccount, tt.wantSA)
			} else if got && c.ServiceAccount.Annotations["leash.dev/credentials"] != "app" {
				t.Errorf("ServiceAccount annotations %v, want leash.dev/credentials: app", c.ServiceAccount.Annotations)
			}
			if len(c.Policies) != tt.wantPolicies {
				t.Errorf("%d NetworkPolicies, want %d of apps", len(c.Policies), tt.wantPolicies)
			}
			for _, np := range c.Policies {
				if np.Namespace != "apps" {
					t.Errorf("NetworkPolicy %s/%s of another namespace", np.Namespace, np.Name)
				}
			}
		})
	}
}
