package webhookcert

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Reasons of the Events the Rotator records on the configuration or
// Secret whose setup stopped the webhook, and when it serves again.
const (
	ReasonWebhookStopped = "WebhookStopped"
	ReasonWebhookResumed = "WebhookResumed"
)

// stop stops the webhook for refused: no certificate is served, so the
// API server's calls fail TLS and each webhook's failurePolicy applies,
// and the bundle is no longer kept. The refusal is logged and recorded
// once, not at every sync that meets it again.
func (r *Rotator) stop(ctx context.Context, refused *RefusedError) {
	r.serving.Store(nil)
	r.published.Store(nil)
	if old := r.stopped.Swap(refused); old != nil && old.Msg == refused.Msg {
		return
	}
	log.FromContext(ctx).Error(refused, "the admission webhook is stopped: its certificate is not served and its caBundle not kept, until the setup is fixed; the operator goes on reconciling CredentialsRequests")
	if r.o.Events != nil && refused.Object != nil {
		r.o.Events.Event(refused.Object, corev1.EventTypeWarning, ReasonWebhookStopped, "the admission webhook is stopped: "+refused.Msg)
	}
}

// resume says, after a sync that succeeded, that the webhook stopped by a
// refusal serves again.
func (r *Rotator) resume(ctx context.Context) {
	old := r.stopped.Swap(nil)
	if old == nil {
		return
	}
	log.FromContext(ctx).Info("the admission webhook serves again: the setup that stopped it is fixed", "was", old.Msg)
	if r.o.Events != nil && old.Object != nil {
		r.o.Events.Event(old.Object, corev1.EventTypeNormal, ReasonWebhookResumed, "the admission webhook serves again, with the caBundle leash keeps")
	}
}
