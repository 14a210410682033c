package webhookcert

import (
	"bytes"
	"context"
	"fmt"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// configuration is one webhook configuration as read: its object, to
// update with the resourceVersion read, and its webhooks' client configs.
type configuration struct {
	kind    string
	obj     client.Object
	clients []*admissionregistrationv1.WebhookClientConfig
}

// readConfigurations reads the Mutating- and ValidatingWebhookConfiguration
// named by Options.Configuration. One that does not exist is logged and
// left out: the API server calls no webhook through it, so a certificate
// served meanwhile is trusted by no one and harms no one. One that
// cert-manager keeps refuses the sync.
func (r *Rotator) readConfigurations(ctx context.Context) ([]configuration, error) {
	key := types.NamespacedName{Name: r.o.Configuration}
	var out []configuration
	for _, c := range []configuration{
		{kind: "MutatingWebhookConfiguration", obj: &admissionregistrationv1.MutatingWebhookConfiguration{}},
		{kind: "ValidatingWebhookConfiguration", obj: &admissionregistrationv1.ValidatingWebhookConfiguration{}},
	} {
		if err := r.reader.Get(ctx, key, c.obj); apierrors.IsNotFound(err) {
			log.FromContext(ctx).Info("webhook configuration not found; apply deploy/base/webhook.yaml, or give --webhook-configuration", "kind", c.kind, "name", key.Name)
			continue
		} else if err != nil {
			return nil, fmt.Errorf("read %s %s: %w", c.kind, key.Name, err)
		}
		if from, ok := c.obj.GetAnnotations()[AnnotationInjectCA]; ok {
			return nil, &RefusedError{Object: c.obj, Msg: fmt.Sprintf("%s %s carries %s=%s: cert-manager keeps its caBundle, so leash must not; run the operator with --webhook-cert-dir on that Certificate's Secret mounted in the pod (deploy/cert-manager does both), or remove the annotation to let leash keep the certificate",
				c.kind, key.Name, AnnotationInjectCA, from)}
		}
		switch obj := c.obj.(type) {
		case *admissionregistrationv1.MutatingWebhookConfiguration:
			for i := range obj.Webhooks {
				c.clients = append(c.clients, &obj.Webhooks[i].ClientConfig)
			}
		case *admissionregistrationv1.ValidatingWebhookConfiguration:
			for i := range obj.Webhooks {
				c.clients = append(c.clients, &obj.Webhooks[i].ClientConfig)
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// publish puts bundle into every webhook's caBundle, with one update when
// any differs; the update carries the resourceVersion read, so that it
// cannot undo a newer bundle another replica wrote.
func (c configuration) publish(ctx context.Context, w client.Writer, bundle []byte) error {
	changed := false
	for _, cc := range c.clients {
		if !bytes.Equal(cc.CABundle, bundle) {
			cc.CABundle = bundle
			changed = true
		}
	}
	if !changed {
		return nil
	}
	if err := w.Update(ctx, c.obj); err != nil {
		return fmt.Errorf("update the caBundle of %s %s: %w", c.kind, c.obj.GetName(), err)
	}
	log.FromContext(ctx).Info("updated the CA bundle", "kind", c.kind, "name", c.obj.GetName(), "webhooks", len(c.clients))
	return nil
}
