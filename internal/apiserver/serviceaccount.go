package apiserver

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ServiceAccounts creates, in namespace, the ServiceAccounts named, or the
// "default" one when none is: a cluster's ServiceAccount controller (in
// kube-controller-manager, which does not run here) creates "default" in
// every new namespace, and the ServiceAccount admission plugin refuses a pod
// whose ServiceAccount does not exist. A test creates those its pods run as.
func (s *Server) ServiceAccounts(t testing.TB, namespace string, names ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := CreateServiceAccounts(ctx, s.Client, namespace, names...); err != nil {
		t.Fatal(err)
	}
}

// CreateServiceAccounts is ServiceAccounts for a program (the benchmarks):
// it creates the ServiceAccounts named, or "default", in namespace, and
// leaves one that exists as it is.
func CreateServiceAccounts(ctx context.Context, c client.Client, namespace string, names ...string) error {
	if len(names) == 0 {
		names = []string{"default"}
	}
	for _, name := range names {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		if err := c.Create(ctx, sa); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating ServiceAccount %s/%s: %w", namespace, name, err)
		}
	}
	return nil
}
