package admission

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"leash.dev/leash/internal/admission/webhookcert"
)

// rotatedCert serves the Rotator's certificate: the webhook server is made
// before the manager, the Rotator after it (it needs the manager's client),
// and r is set before the manager starts either.
type rotatedCert struct{ r *webhookcert.Rotator }

func (c *rotatedCert) get(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c.r == nil {
		return nil, errors.New("the webhook's certificate is not made yet")
	}
	return c.r.GetCertificate(h)
}

// NewServer is the webhook server of o, for the manager's options: TLS
// from o.GetCertificate, else from o.CertDir's tls.crt and tls.key
// (reloaded when they change), else from the Rotator Register makes (o is
// then set to serve it).
func NewServer(o *Options) (webhook.Server, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.GetCertificate == nil && o.CertDir == "" {
		o.rotated = &rotatedCert{}
		o.GetCertificate = o.rotated.get
	}
	wo := webhook.Options{Host: o.Host, Port: o.Port, CertDir: o.CertDir}
	if o.GetCertificate != nil {
		wo.TLSOpts = append(wo.TLSOpts, func(c *tls.Config) { c.GetCertificate = o.GetCertificate })
	}
	return webhook.NewServer(wo), nil
}

// CachedObjects are the objects the webhook reads from the manager's
// cache beyond the operator's own: the NetworkPolicies, and the
// ServiceAccounts' metadata (their annotations). The manager's cache must
// hold them for every namespace whose pods are admitted.
func CachedObjects() []client.Object {
	return []client.Object{&networkingv1.NetworkPolicy{}, serviceAccountMetadata()}
}

func serviceAccountMetadata() *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}}
}

// Register serves the mutating and validating webhooks for pods and the
// validating webhook for CredentialsRequests on the manager's webhook
// server (from NewServer), starts the informers they read before the first
// request, and makes readiness wait for the server.
func Register(mgr manager.Manager, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	for _, obj := range CachedObjects() {
		if _, err := mgr.GetCache().GetInformer(context.Background(), obj); err != nil {
			return fmt.Errorf("webhook: watch %T: %w", obj, err)
		}
	}
	if o.rotated != nil {
		r, err := webhookcert.Setup(mgr, *o.Rotate)
		if err != nil {
			return err
		}
		o.rotated.r = r
	}
	h := &hooks{read: cachedCluster(mgr.GetCache()), live: cachedCluster(mgr.GetAPIReader()), decoder: admission.NewDecoder(mgr.GetScheme()), o: o}
	srv := mgr.GetWebhookServer()
	srv.Register(PathMutate, &webhook.Admission{Handler: admission.HandlerFunc(h.mutate)})
	srv.Register(PathValidate, &webhook.Admission{Handler: h.validate(false)})
	srv.Register(PathValidateWarn, &webhook.Admission{Handler: h.validate(true)})
	rh := &requestHook{client: mgr.GetClient(), reader: mgr.GetAPIReader(), decoder: h.decoder, o: o.Requests, observe: o.Observe}
	srv.Register(PathRequest, &webhook.Admission{Handler: admission.HandlerFunc(rh.handle)})
	return mgr.AddReadyzCheck("webhook", srv.StartedChecker())
}
