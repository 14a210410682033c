package webhookcert

import (
	"fmt"
	"net"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/inputerr"
)

// Defaults of Options, the names deploy/ installs.
const (
	DefaultService       = "leash-webhook"
	DefaultConfiguration = "leash"
	DefaultSecret        = "leash-webhook-tls"

	DefaultCAValidity      = 365 * 24 * time.Hour
	DefaultCARenewBefore   = 90 * 24 * time.Hour
	DefaultCertValidity    = 90 * 24 * time.Hour
	DefaultCertRenewBefore = 30 * 24 * time.Hour
	DefaultResync          = time.Minute
)

// Options configure a Rotator. The zero value of each field but Namespace
// means its default.
type Options struct {
	// Namespace is the operator's: where the Secret and the Service are.
	Namespace string
	// Service is the Service in Namespace whose DNS names the serving
	// certificate carries (SERVICE.NAMESPACE.svc and
	// SERVICE.NAMESPACE.svc.cluster.local).
	Service string
	// Configuration names the MutatingWebhookConfiguration and the
	// ValidatingWebhookConfiguration whose webhooks get the CA bundle.
	Configuration string
	// Secret is the Secret in Namespace that holds the CA and the serving
	// certificate.
	Secret string
	// ExtraNames and ExtraIPs are more names the serving certificate is
	// valid for, such as 127.0.0.1 for a webhook a test serves locally.
	ExtraNames []string
	ExtraIPs   []net.IP

	// CAValidity is a new CA's lifetime; it is renewed when CARenewBefore
	// is left. CertValidity and CertRenewBefore are the same for the
	// serving certificate. A test makes them seconds.
	CAValidity, CARenewBefore     time.Duration
	CertValidity, CertRenewBefore time.Duration
	// Resync is how often the Secret and the configurations are read again.
	// A new CA signs no renewed serving certificate until it is one Resync
	// old, so that every replica has put it in the CA bundle first.
	Resync time.Duration

	// Reader reads the Secret and the configurations past any cache (the
	// manager's cache holds only the Secrets leash writes for requests);
	// nil means the client given to New.
	Reader client.Reader
	// Events receives the Events that say the webhook was stopped by a
	// setup cert-manager keeps, and serves again (stop.go); nil records
	// none.
	Events record.EventRecorder
}

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	set := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	set(&o.Service, DefaultService)
	set(&o.Configuration, DefaultConfiguration)
	set(&o.Secret, DefaultSecret)
	setD(&o.CAValidity, DefaultCAValidity)
	setD(&o.CARenewBefore, DefaultCARenewBefore)
	setD(&o.CertValidity, DefaultCertValidity)
	setD(&o.CertRenewBefore, DefaultCertRenewBefore)
	setD(&o.Resync, DefaultResync)
	return o
}

// Validate names the setting that is wrong and how to fix it, after the
// defaults. A bad name is an *inputerr.Error whose Field is "namespace",
// "service", "configuration" or "secret", so that a caller can name its
// flag.
func (o Options) Validate() error { return o.withDefaults().validate() }

// validate is Validate on o with its defaults.
func (o Options) validate() error {
	if o.Namespace == "" {
		return &inputerr.Error{Field: "namespace", Msg: fmt.Sprintf("empty: give the operator's namespace, where Secret %s and Service %s are", o.Secret, o.Service)}
	}
	for _, n := range []struct {
		field, v string
		check    func(string) []string
	}{
		{"namespace", o.Namespace, validation.IsDNS1123Label},
		{"service", o.Service, validation.IsDNS1123Label},
		{"configuration", o.Configuration, validation.IsDNS1123Subdomain},
		{"secret", o.Secret, validation.IsDNS1123Subdomain},
	} {
		if errs := n.check(n.v); len(errs) > 0 {
			return &inputerr.Error{Field: n.field, Msg: fmt.Sprintf("%q is not a valid name: %s", n.v, strings.Join(errs, "; "))}
		}
	}
	for _, d := range []struct {
		what string
		v    time.Duration
	}{{"CA validity", o.CAValidity}, {"CA renew-before", o.CARenewBefore}, {"certificate validity", o.CertValidity}, {"certificate renew-before", o.CertRenewBefore}, {"resync interval", o.Resync}} {
		if d.v < 0 {
			return fmt.Errorf("%s %v is negative; leave it 0 for the default", d.what, d.v)
		}
	}
	switch {
	case o.CARenewBefore >= o.CAValidity:
		return fmt.Errorf("CA renew-before %v is not shorter than its validity %v: the CA would be renewed at every resync", o.CARenewBefore, o.CAValidity)
	case o.CertRenewBefore >= o.CertValidity:
		return fmt.Errorf("certificate renew-before %v is not shorter than its validity %v: it would be renewed at every resync", o.CertRenewBefore, o.CertValidity)
	case o.CertRenewBefore >= o.CARenewBefore:
		return fmt.Errorf("certificate renew-before %v is not shorter than the CA's %v: a serving certificate never outlives its CA, so one signed by a CA about to be renewed would be due at once", o.CertRenewBefore, o.CARenewBefore)
	case o.Resync >= o.CertRenewBefore:
		return fmt.Errorf("resync interval %v is not shorter than the certificate's renew-before %v: the certificate could expire between two resyncs", o.Resync, o.CertRenewBefore)
	}
	return nil
}

// dnsNames are the names the serving certificate is for.
func (o Options) dnsNames() []string {
	base := o.Service + "." + o.Namespace + ".svc"
	return append([]string{base, base + ".cluster.local"}, o.ExtraNames...)
}
