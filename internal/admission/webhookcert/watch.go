package webhookcert

import (
	"bytes"
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// watch returns a cache that holds the two configurations alone (a field
// selector on their name) and wakes Start as soon as one is added or
// updated with a webhook whose caBundle is not the bundle of the last
// sync, or with cert-manager's annotation. A configuration re-created by
// kubectl apply, as an upgrade does, arrives without a bundle; until the
// bundle is back an enforce namespace refuses every pod (the API server
// trusts no CA of the webhook) and the others take pods unwired, so it
// must not wait for the next resync. o gives the scheme and mapper; the
// cache must run on every replica (Setup adds it to the manager).
func (r *Rotator) watch(ctx context.Context, cfg *rest.Config, o cache.Options) (cache.Cache, error) {
	byName := cache.ByObject{Field: fields.OneTermEqualSelector("metadata.name", r.o.Configuration)}
	o.ByObject = map[client.Object]cache.ByObject{
		&admissionregistrationv1.MutatingWebhookConfiguration{}:   byName,
		&admissionregistrationv1.ValidatingWebhookConfiguration{}: byName,
	}
	o.DefaultNamespaces = nil
	c, err := cache.New(cfg, o)
	if err != nil {
		return nil, fmt.Errorf("watch the webhook configurations %s: %w", r.o.Configuration, err)
	}
	h := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.wakeIfStale(obj) },
		UpdateFunc: func(_, obj any) { r.wakeIfStale(obj) },
	}
	for obj := range o.ByObject {
		inf, err := c.GetInformer(ctx, obj)
		if err != nil {
			return nil, fmt.Errorf("watch the webhook configurations %s: %w", r.o.Configuration, err)
		}
		if _, err := inf.AddEventHandler(h); err != nil {
			return nil, fmt.Errorf("watch the webhook configurations %s: %w", r.o.Configuration, err)
		}
	}
	return c, nil
}

// wakeIfStale wakes Start when obj needs a sync. The update a sync makes
// comes back here with the bundle it published and wakes nothing.
func (r *Rotator) wakeIfStale(obj any) {
	if !r.stale(obj) {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default: // a sync is already due
	}
}

// stale says whether a configuration seen by the watch lacks the bundle
// of the last sync in some webhook, or carries cert-manager's annotation.
func (r *Rotator) stale(obj any) bool {
	var clients []admissionregistrationv1.WebhookClientConfig
	var meta client.Object
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		meta = o
		for _, w := range o.Webhooks {
			clients = append(clients, w.ClientConfig)
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		meta = o
		for _, w := range o.Webhooks {
			clients = append(clients, w.ClientConfig)
		}
	default:
		return false
	}
	if _, ok := meta.GetAnnotations()[AnnotationInjectCA]; ok {
		return true
	}
	want := r.published.Load()
	for _, cc := range clients {
		if want == nil || !bytes.Equal(cc.CABundle, *want) {
			return true
		}
	}
	return false
}
