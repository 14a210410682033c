package operator

import (
	"crypto/tls"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"leash.dev/leash/admission/webhookcert"
)

// setupWebhookCert runs the webhook certificate's Rotator on every replica
// when the webhook keeps its own certificate (o set: the webhook is on and
// no --webhook-cert-dir was given) and returns what the webhook server
// serves, for admission.Options.GetCertificate; nil when o is nil.
func setupWebhookCert(mgr manager.Manager, o *webhookcert.Options) (func(*tls.ClientHelloInfo) (*tls.Certificate, error), error) {
	if o == nil {
		return nil, nil
	}
	r, err := webhookcert.Setup(mgr, *o)
	if err != nil {
		return nil, err
	}
	return r.GetCertificate, nil
}
