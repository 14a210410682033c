package webhookcert

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Rotator keeps a CA and a serving certificate for the webhook's Service DNS
// names in a Secret, patches the CA into the named webhook configurations'
// caBundle, and renews before expiry. Every replica runs one: each serves
// what the Secret holds, and only after the CA that signed it is in every
// webhook's caBundle.
type Rotator struct {
	c       client.Client
	reader  client.Reader
	o       Options
	now     func() time.Time
	serving atomic.Pointer[tls.Certificate]
	// published is the bundle the last sync left in every webhook; a
	// configuration seen without it wakes Start through kick (watch.go).
	published atomic.Pointer[[]byte]
	kick      chan struct{}
	// stopped is the refusal the webhook is stopped for; nil while it is
	// served.
	stopped atomic.Pointer[RefusedError]
}

// New checks o and returns a Rotator that writes through c. It serves
// nothing until Start has synced once.
func New(c client.Client, o Options) (*Rotator, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	r := &Rotator{c: c, reader: o.Reader, o: o, now: time.Now, kick: make(chan struct{}, 1)}
	if r.reader == nil {
		r.reader = c
	}
	return r, nil
}

// GetCertificate is for tls.Config: the serving certificate of the last
// sync.
func (r *Rotator) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := r.serving.Load(); c != nil {
		return c, nil
	}
	if refused := r.stopped.Load(); refused != nil {
		return nil, fmt.Errorf("the webhook is stopped: %w", refused)
	}
	return nil, fmt.Errorf("no webhook serving certificate yet: Secret %s/%s has not been synced", r.o.Namespace, r.o.Secret)
}

// Ready is a healthz.Checker: it fails until a certificate is served, so
// that a replica takes webhook traffic only when it can answer it, and
// while the webhook is stopped, with the reason.
func (r *Rotator) Ready(*http.Request) error {
	if refused := r.stopped.Load(); refused != nil {
		return fmt.Errorf("the webhook is stopped: %w", refused)
	}
	if r.serving.Load() == nil {
		return fmt.Errorf("no webhook serving certificate yet from Secret %s/%s", r.o.Namespace, r.o.Secret)
	}
	return nil
}

// NeedLeaderElection is false: every replica serves the webhook, so every
// replica needs the certificate.
func (r *Rotator) NeedLeaderElection() bool { return false }

// Start syncs now, at every Resync, and as soon as a configuration is seen
// without the bundle (watch.go), until ctx ends. A failed sync is logged
// and tried again. A setup cert-manager keeps stops the webhook, not the
// operator: the certificate is no longer served nor the bundle kept (the
// two would fight over the caBundle), the refusal is logged and recorded
// as an Event, and syncs go on, so that the webhook starts again once the
// setup is fixed. Start returns nil: the credential reconcilers beside it
// in the manager keep running.
func (r *Rotator) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("webhook-cert")
	ctx = log.IntoContext(ctx, logger)
	t := time.NewTicker(r.o.Resync)
	defer t.Stop()
	for {
		err := r.sync(ctx)
		var refused *RefusedError
		switch {
		case errors.As(err, &refused):
			r.stop(ctx, refused)
		case err != nil:
			logger.Error(err, "syncing the webhook certificate; trying again at the next resync", "secret", r.o.Namespace+"/"+r.o.Secret)
		default:
			r.resume(ctx)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-r.kick:
		}
	}
}

// RefusedError is a setup the Rotator will not manage: a configuration or
// Secret that cert-manager keeps. Object is that configuration or Secret,
// which the Event is recorded on.
type RefusedError struct {
	Msg    string
	Object client.Object
}

func (e *RefusedError) Error() string { return e.Msg }

// AnnotationInjectCA is cert-manager's cainjector annotation; a
// configuration carrying it has its caBundle kept by cert-manager.
const AnnotationInjectCA = "cert-manager.io/inject-ca-from"

// sync reads, renews and publishes once; a write that lost a race to
// another replica (conflict, already exists) starts it again from the
// reads, so that all replicas end with the one Secret.
func (r *Rotator) sync(ctx context.Context) error {
	var err error
	for range 5 {
		if err = r.syncOnce(ctx); !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return fmt.Errorf("the Secret %s/%s or configuration %s kept changing during the sync: %w", r.o.Namespace, r.o.Secret, r.o.Configuration, err)
}

// syncOnce reads the configurations first and the Secret second: a replica
// that wrote a new CA into the Secret wrote it before it updated the
// configurations, so a configuration read here at that update's version
// comes with a Secret read that holds the new CA, and an update from stale
// reads fails on the configuration's resourceVersion.
func (r *Rotator) syncOnce(ctx context.Context) error {
	logger := log.FromContext(ctx)
	confs, err := r.readConfigurations(ctx)
	if err != nil {
		return err
	}
	key := types.NamespacedName{Namespace: r.o.Namespace, Name: r.o.Secret}
	secret := &corev1.Secret{}
	exists := true
	if err := r.reader.Get(ctx, key, secret); apierrors.IsNotFound(err) {
		exists = false
	} else if err != nil {
		return fmt.Errorf("read Secret %s: %w", key, err)
	}
	if name := secret.Annotations["cert-manager.io/certificate-name"]; name != "" {
		// The Event names the Secret; the error keeps none of its data.
		ref := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: secret.Namespace, Name: secret.Name, UID: secret.UID, ResourceVersion: secret.ResourceVersion}}
		return &RefusedError{Object: ref, Msg: fmt.Sprintf("Secret %s is cert-manager's (Certificate %s): leash does not rotate it; run the operator with --webhook-cert-dir on that Secret mounted in the pod (deploy/cert-manager), or give --webhook-cert-secret another name", key, name)}
	}
	p, err := r.o.decide(secret.Data, r.now())
	if err != nil {
		return fmt.Errorf("secret %s: %w", key, err)
	}
	if p.changed {
		secret.Data = p.data
		if exists {
			err = r.c.Update(ctx, secret)
		} else {
			secret.ObjectMeta = metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
				Labels: map[string]string{"app.kubernetes.io/name": "leash", "app.kubernetes.io/component": "webhook"}}
			secret.Type = corev1.SecretTypeTLS
			err = r.c.Create(ctx, secret)
		}
		if err != nil {
			return fmt.Errorf("write Secret %s: %w", key, err)
		}
		logger.Info("wrote the webhook certificate", "secret", key.String(), "why", p.why,
			"serial", p.serving.Leaf.SerialNumber.String(), "notAfter", p.serving.Leaf.NotAfter.UTC())
	}
	for _, c := range confs {
		if err := c.publish(ctx, r.c, p.bundle); err != nil {
			return err
		}
	}
	r.published.Store(&p.bundle)
	if old := r.serving.Load(); old == nil || !bytes.Equal(old.Certificate[0], p.serving.Certificate[0]) {
		r.serving.Store(p.serving)
		logger.Info("serving the webhook certificate", "serial", p.serving.Leaf.SerialNumber.String(), "notAfter", p.serving.Leaf.NotAfter.UTC())
	}
	return nil
}
