package operator

import (
	"context"
	"errors"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// fieldOwner is the field manager of leash's writes.
const fieldOwner = "leash"

// KubeCluster keeps Secrets in the API server. Reads go to the API server
// (reader), not a cache: the operator caches only its own Secrets, and in
// Manual mode the Secret is the administrator's.
type KubeCluster struct {
	Client client.Client
	Reader client.Reader
}

// NamespaceExists implements Cluster.
func (k KubeCluster) NamespaceExists(ctx context.Context, name string) (bool, error) {
	err := k.Client.Get(ctx, types.NamespacedName{Name: name}, &corev1.Namespace{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// Secret implements Cluster.
func (k KubeCluster) Secret(ctx context.Context, namespace, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	err := k.Reader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, s)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// WriteSecret implements Cluster. A new Secret is created (never applied
// over one someone made since it was read) holding only its ownership
// marks; the content is then written with server-side apply, preconditioned
// on the resourceVersion the Secret was judged at, so that fields leash no
// longer sets (a retired key's annotations) are removed and a Secret
// replaced in between is not written.
func (k KubeCluster) WriteSecret(ctx context.Context, s, prev *corev1.Secret) error {
	s = s.DeepCopy()
	s.APIVersion, s.Kind = "v1", "Secret"
	s.ManagedFields, s.UID = nil, ""
	if prev == nil {
		marks := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name,
			Labels: s.Labels, Annotations: ownershipMarks(s.Annotations)}, Type: s.Type}
		if err := k.Client.Create(ctx, marks, client.FieldOwner(fieldOwner)); err != nil {
			return err // AlreadyExists: someone made it since; the next sync judges it
		}
		prev = marks
	}
	s.ResourceVersion = prev.ResourceVersion
	return k.Client.Patch(ctx, s, client.Apply, client.FieldOwner(fieldOwner), client.ForceOwnership)
}

// DeleteSecret implements Cluster, with the Secret's UID as a precondition.
func (k KubeCluster) DeleteSecret(ctx context.Context, namespace, name string, uid types.UID) error {
	var opts []client.DeleteOption
	if uid != "" {
		opts = append(opts, client.Preconditions{UID: &uid})
	}
	err := k.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}, opts...)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// RequestsNaming implements Cluster from the cache, through the index the
// reconciler keeps of requests by their Secret.
func (k KubeCluster) RequestsNaming(ctx context.Context, namespace, name string) ([]leashv1.CredentialsRequest, error) {
	var list leashv1.CredentialsRequestList
	if err := k.Client.List(ctx, &list, client.MatchingFields{secretRefIndex: namespace + "/" + name}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// SecretRoot reads the root credentials from a Secret with the keys
// aws_access_key_id and aws_secret_access_key (or a credentials file).
type SecretRoot struct {
	Reader    client.Reader
	Namespace string
	Name      string
}

// Root implements RootSource.
func (r SecretRoot) Root(ctx context.Context) (Root, error) {
	source := "Secret " + r.Namespace + "/" + r.Name
	s := &corev1.Secret{}
	err := r.Reader.Get(ctx, types.NamespacedName{Namespace: r.Namespace, Name: r.Name}, s)
	if apierrors.IsNotFound(err) {
		return Root{}, fmt.Errorf("%w: %s does not exist; create it with keys %s and %s", ErrNoRoot, source, SecretKeyID, SecretKeySecret)
	}
	if err != nil {
		return Root{}, fmt.Errorf("read %s: %w", source, err)
	}
	key, problem := secretKey(s)
	if problem == "web-identity" {
		problem = "holds a web-identity configuration, not the key pair leash mints with"
	}
	if problem != "" {
		return Root{}, fmt.Errorf("%w: %s %s", ErrNoRoot, source, problem)
	}
	return Root{Key: key, Version: s.ResourceVersion, Source: source}, nil
}

// FileRoot reads the root credentials from the [default] profile of a
// shared-credentials file, such as leash local's admin-credentials.
type FileRoot struct{ Path string }

// Root implements RootSource.
func (r FileRoot) Root(context.Context) (Root, error) {
	key, err := iamclient.KeyFromFile(r.Path)
	switch {
	case os.IsNotExist(err):
		return Root{}, fmt.Errorf("%w: %s does not exist", ErrNoRoot, r.Path)
	case errors.Is(err, iamclient.ErrNoKey):
		return Root{}, fmt.Errorf("%w: %s has %v", ErrNoRoot, r.Path, iamclient.ErrNoKey)
	case err != nil:
		return Root{}, err
	}
	return Root{Key: key, Version: key.ID, Source: r.Path}, nil
}

// StaticRoot is root credentials given directly, such as from the AWS
// environment variables.
type StaticRoot struct {
	Key    iamclient.AccessKey
	Source string
}

// Root implements RootSource.
func (r StaticRoot) Root(context.Context) (Root, error) {
	return Root{Key: r.Key, Version: r.Key.ID, Source: r.Source}, nil
}
