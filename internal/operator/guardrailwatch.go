package operator

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	leashv1 "leash.dev/leash/api/v1"
)

// guardrailPoll is how often the ceiling file and the ConfigMap (from its
// watch's cache) are read again: a file mounted from a ConfigMap changes by
// a swap of symlinks, which only reading it again sees.
const guardrailPoll = 2 * time.Second

// guardrailWatch keeps the guardrails in force in step with their sources:
// it bounds every minted user first (BoundMinted), then reloads the
// guardrails as a whole when the ceiling file or the ConfigMap changes,
// bounds every minted user by the new ones, and wakes every request so that
// each is checked against them. A change that is not valid is refused and
// logged with the reason, and the guardrails in force stay, with every user
// bounded by them.
type guardrailWatch struct {
	prov    *Provisioner
	sources GuardrailSources
	// configMap reads the ConfigMap; nil when there is none.
	configMap client.Reader
	// requests lists the requests to wake on wake.
	requests client.Reader
	wake     chan<- event.GenericEvent
	poll     time.Duration

	// refused is the last change refused, so that it is logged once.
	refused string
}

// Start runs until ctx ends: a manager.Runnable that needs the leader.
func (w *guardrailWatch) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("guardrails")
	t := time.NewTicker(w.poll)
	defer t.Stop()
	failing, changed := "", false
	for {
		if err := w.prov.BoundMinted(ctx); err != nil {
			if err.Error() != failing {
				logger.Error(err, "bounding every minted user by the guardrails in force failed; nothing is minted until it succeeds, retrying")
			}
			failing = err.Error()
		} else {
			failing = ""
			if changed {
				w.wakeAll(ctx, logger)
				changed = false
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if w.sources.watched() && w.reload(ctx, logger) {
			changed = true
		}
	}
}

// reload reads the sources and puts the guardrails they give in force if
// they changed and are valid; it reports whether they were put in force.
func (w *guardrailWatch) reload(ctx context.Context, logger logr.Logger) bool {
	g, err := w.load(ctx)
	if err == nil {
		if g.same(w.prov.guardrails()) {
			w.refused = ""
			return false
		}
		err = w.prov.SetGuardrails(g)
	}
	if err != nil {
		if err.Error() != w.refused {
			logger.Error(err, "refused the changed guardrails; the guardrails in force stay, and every minted user stays bounded by them: fix the --ceiling file or the --config-map ConfigMap",
				append([]any{"configMap", orNone(w.sources.ConfigMap.Name), "ceilingFile", orNone(w.sources.CeilingFile)}, w.prov.guardrails().Settings()...)...)
		}
		w.refused = err.Error()
		return false
	}
	w.refused = ""
	logger.Info("guardrails changed: bounding every minted user by them before anything else is minted", w.prov.guardrails().Settings()...)
	return true
}

// load reads the guardrails from the sources; a missing ConfigMap leaves
// the flags and the file.
func (w *guardrailWatch) load(ctx context.Context) (Guardrails, error) {
	var data map[string]string
	if w.configMap != nil {
		cm := &corev1.ConfigMap{}
		switch err := w.configMap.Get(ctx, w.sources.ConfigMap, cm); {
		case apierrors.IsNotFound(err):
		case err != nil:
			return Guardrails{}, fmt.Errorf("read ConfigMap %s: %w", w.sources.ConfigMap, err)
		default:
			data = cm.Data
		}
	}
	return w.sources.Load(data)
}

// wakeAll syncs every request again, so that each is checked against the
// guardrails now in force.
func (w *guardrailWatch) wakeAll(ctx context.Context, logger logr.Logger) {
	var list leashv1.CredentialsRequestList
	if err := w.requests.List(ctx, &list); err != nil {
		logger.Error(err, "listing CredentialsRequests to check them against the changed guardrails; they are checked at their next recheck")
		return
	}
	for i := range list.Items {
		select {
		case w.wake <- event.GenericEvent{Object: &list.Items[i]}:
		case <-ctx.Done():
			return
		}
	}
}

// guardrailWatchFor is the operator's guardrail watch, with a cache of its
// own holding the one ConfigMap when there is one.
func guardrailWatchFor(mgr manager.Manager, cfg *rest.Config, prov *Provisioner, o Options) (*guardrailWatch, error) {
	prov.bound.namespace = o.Namespace
	w := &guardrailWatch{prov: prov, sources: o.GuardrailSources, requests: mgr.GetClient(), poll: guardrailPoll}
	if nn := o.GuardrailSources.ConfigMap; nn.Name != "" {
		c, err := configMapCache(mgr, cfg, nn)
		if err != nil {
			return nil, err
		}
		w.configMap = c
	}
	return w, nil
}

// configMapCache is a cache of its own holding the one ConfigMap nn, added
// to mgr: the operator reads and watches it by name, which a Role limited
// to that name allows.
func configMapCache(mgr manager.Manager, cfg *rest.Config, nn types.NamespacedName) (cache.Cache, error) {
	c, err := cache.New(cfg, cache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(),
		DefaultNamespaces: map[string]cache.Config{nn.Namespace: {}},
		ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {
			Field: fields.OneTermEqualSelector("metadata.name", nn.Name)}}})
	if err != nil {
		return nil, err
	}
	return c, mgr.Add(c)
}
