package operator

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"leash.dev/leash/internal/admission"
)

// webhookCache adds to the manager's cache what the admission webhook
// reads: the NetworkPolicies and the ServiceAccounts' metadata, in every
// namespace, since pods are admitted in every namespace even when the
// operator watches the requests of one.
func webhookCache(opts *cache.Options) {
	for _, obj := range admission.CachedObjects() {
		opts.ByObject[obj] = cache.ByObject{Namespaces: map[string]cache.Config{cache.AllNamespaces: {}}}
	}
}

// registerWebhook serves the admission webhook on the manager: it wires
// pods with the operator's mode and token audience, so that a pod mounts
// the token its request's mode needs, and judges CredentialsRequests by
// the same mode, the root Secret (o.RootSecret, set by NewManager; none
// with a root file), the operator's own Secrets and its Secret namespaces,
// as the reconciler does.
func registerWebhook(mgr manager.Manager, o Options) error {
	w := *o.Webhook
	w.Wiring.Mode, w.Wiring.Audience = o.Config.Mode, o.Config.Audience
	if w.Wiring.Audience == "" {
		w.Wiring.Audience = DefaultAudience
	}
	w.Requests = admission.Requests{RequestContext: admission.RequestContext{Mode: o.Config.Mode},
		Reserved: o.Config.ReservedSecrets, SecretNamespaces: o.Config.SecretNamespaces}
	if o.RootFile == "" {
		w.Requests.RootSecret = o.RootSecret
	}
	return admission.Register(mgr, w)
}

// webhookSetting says, for the settings log line, whether the webhook is
// served, where, and what it refuses.
func webhookSetting(w *admission.Options) string {
	if w == nil {
		return "off"
	}
	return fmt.Sprintf("port %d, refuse at %s, %d node role policies", w.Port, w.RefuseAt, len(w.NodeRole))
}
