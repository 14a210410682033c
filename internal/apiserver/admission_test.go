package apiserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/apiserver"
)

// apiAccessDir is where the ServiceAccount admission plugin mounts a pod's
// token for the API server, with its CA and namespace.
const apiAccessDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// TestAdmissionAsACluster pins that the API server runs the admission
// plugins a cluster runs, which envtest turns off or leaves on, so that
// code tested here meets the pods a cluster stores.
// https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#which-plugins-are-enabled-by-default
func TestAdmissionAsACluster(t *testing.T) {
	api := apiserver.Start(t, apiserver.Options{})
	c := api.Client
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, ns := range []string{"apps", "bare", "leaving"} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	api.ServiceAccounts(t, "apps")
	api.ServiceAccounts(t, "apps", "ccm", "default") // "default" again: it exists, and is left

	pod := func(ns, name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "init", Image: "app:1"}},
				Containers:     []corev1.Container{{Name: "app", Image: "app:1"}, {Name: "proxy", Image: "proxy:1"}}}}
	}

	// ServiceAccount: https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#serviceaccount
	t.Run("ServiceAccount: a pod runs as default and gets a kube-api-access token volume in every container", func(t *testing.T) {
		p := pod("apps", "plain")
		if err := c.Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if p.Spec.ServiceAccountName != "default" {
			t.Errorf("serviceAccountName %q, want default", p.Spec.ServiceAccountName)
		}
		var volume string
		for _, v := range p.Spec.Volumes {
			if strings.HasPrefix(v.Name, "kube-api-access-") && v.Projected != nil {
				for _, src := range v.Projected.Sources {
					if tok := src.ServiceAccountToken; tok != nil && tok.Path == "token" && tok.Audience == "" {
						volume = v.Name
					}
				}
			}
		}
		if volume == "" {
			t.Fatalf("stored volumes %+v: want a kube-api-access-* projected volume with the API server's token", p.Spec.Volumes)
		}
		for _, ctr := range append(p.Spec.InitContainers, p.Spec.Containers...) {
			mounted := false
			for _, m := range ctr.VolumeMounts {
				mounted = mounted || m.Name == volume && m.MountPath == apiAccessDir && m.ReadOnly
			}
			if !mounted {
				t.Errorf("container %s mounts %+v: want %s read-only at %s", ctr.Name, ctr.VolumeMounts, volume, apiAccessDir)
			}
		}
	})

	t.Run("ServiceAccount: a pod naming a ServiceAccount that does not exist is refused", func(t *testing.T) {
		p := pod("apps", "ghost")
		p.Spec.ServiceAccountName = "ghost"
		if err := c.Create(ctx, p); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "ghost") {
			t.Errorf("create: %v; want Forbidden naming the ServiceAccount ghost", err)
		}
	})

	t.Run("ServiceAccount: in a namespace without its default ServiceAccount a pod is refused", func(t *testing.T) {
		if err := c.Create(ctx, pod("bare", "plain")); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "default") {
			t.Errorf("create: %v; want Forbidden naming the ServiceAccount default", err)
		}
	})

	t.Run("ServiceAccount: with no Issuer the API server signs tokens with its own key, and authenticates them", func(t *testing.T) {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "ccm"}}
		tr := &authenticationv1.TokenRequest{}
		if err := c.SubResource("token").Create(ctx, sa, tr); err != nil {
			t.Fatalf("TokenRequest: %v", err)
		}
		review := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tr.Status.Token}}
		if err := c.Create(ctx, review); err != nil {
			t.Fatalf("TokenReview: %v", err)
		}
		if st := review.Status; !st.Authenticated || st.User.Username != "system:serviceaccount:apps:ccm" {
			t.Errorf("TokenReview: authenticated %v as %q (%s); want system:serviceaccount:apps:ccm", st.Authenticated, st.User.Username, st.Error)
		}
	})

	// NamespaceLifecycle: https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#namespacelifecycle
	t.Run("NamespaceLifecycle: nothing is created in a namespace being deleted", func(t *testing.T) {
		if err := c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "leaving"}}); err != nil {
			t.Fatal(err)
		}
		// No namespace controller empties it, so it stays Terminating.
		ns := &corev1.Namespace{}
		if err := c.Get(ctx, client.ObjectKey{Name: "leaving"}, ns); err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
			t.Fatalf("namespace leaving: %v, phase %q; want Terminating", err, ns.Status.Phase)
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "leaving", Name: "late"}}
		if err := c.Create(ctx, cm); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "being terminated") {
			t.Errorf("create: %v; want Forbidden, the namespace being terminated", err)
		}
	})

	t.Run("NamespaceLifecycle: nothing is created in a namespace that does not exist", func(t *testing.T) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "nowhere", Name: "lost"}}
		if err := c.Create(ctx, cm); !apierrors.IsNotFound(err) {
			t.Errorf("create: %v; want NotFound, the namespace", err)
		}
	})
}
