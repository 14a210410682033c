package operator

import (
	"context"
	"fmt"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceAccountToken implements Cluster with the TokenRequest API: a
// token bound to no object, for audience, that the API server signs as the
// cluster's issuer. The operator's RBAC grants create on
// serviceaccounts/token for this alone.
func (k KubeCluster) ServiceAccountToken(ctx context.Context, namespace, name, audience string, expiry time.Duration) (string, error) {
	seconds := int64(expiry / time.Second)
	tr := &authv1.TokenRequest{Spec: authv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: &seconds}}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	err := k.Client.SubResource("token").Create(ctx, sa, tr)
	switch {
	case apierrors.IsForbidden(err):
		return "", fmt.Errorf("%w: %v", ErrTokenForbidden, err)
	case apierrors.IsNotFound(err):
		return "", fmt.Errorf("%w: %v", ErrNoServiceAccount, err)
	case err != nil:
		return "", err
	}
	return tr.Status.Token, nil
}
