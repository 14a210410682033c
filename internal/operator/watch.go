package operator

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	leashv1 "leash.dev/leash/api/v1"
)

// othersSecrets watches the Secrets leash did not write (an administrator's
// Secret for a Manual request) and wakes the requests that name one when it
// is created, changed or deleted, so that a fixed Secret is seen at once
// rather than at the next recheck. Its cache holds only each Secret's
// namespace, name and version, never data: it costs little memory however
// many Secrets the cluster has. It watches only listed, the operator's
// Secret namespaces, when they are set: there its Roles allow it.
func (r *Reconciler) othersSecrets(mgr manager.Manager, cfg *rest.Config, listed []string) (source.SyncingSource, error) {
	co := cache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), DefaultTransform: secretStub}
	if len(listed) > 0 {
		co.DefaultNamespaces = secretNamespaces(listed)
	}
	c, err := cache.New(cfg, co)
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(c); err != nil {
		return nil, err
	}
	meta := &metav1.PartialObjectMetadata{}
	meta.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	return source.Kind[client.Object](c, meta, handler.EnqueueRequestsFromMapFunc(r.namingOthersSecret)), nil
}

// secretStub keeps of a Secret's metadata what the watch needs.
var secretStub toolscache.TransformFunc = func(o any) (any, error) {
	m, ok := o.(*metav1.PartialObjectMetadata)
	if !ok {
		return o, nil
	}
	stub := &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
		Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion}}
	if m.Labels[leashv1.LabelCredentialsRequest] == "true" {
		stub.Labels = map[string]string{leashv1.LabelCredentialsRequest: "true"}
	}
	return stub, nil
}

// namingOthersSecret maps a Secret leash did not write to the requests that
// name it; leash's own Secrets have their watch (changedByOthers).
func (r *Reconciler) namingOthersSecret(ctx context.Context, o client.Object) []reconcile.Request {
	if o.GetLabels()[leashv1.LabelCredentialsRequest] == "true" {
		return nil
	}
	return r.requestsNaming(ctx, o.GetNamespace(), o.GetName())
}
