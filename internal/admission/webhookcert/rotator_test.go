package webhookcert

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/log"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
)

// cluster is one API server shared by the subtests; each subtest works in
// its own namespace with its own configurations.
type cluster struct {
	t   *testing.T
	c   client.WithWatch
	cfg *rest.Config
}

// fixture is one subtest's namespace, configurations and clock.
type fixture struct {
	*cluster
	ns, conf string
	now      time.Time
	logs     *logBuffer
}

type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (b *logBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.lines = append(b.lines, prefix+" "+args)
	}, funcr.Options{})
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

func (cl *cluster) fixture(t *testing.T, name string) *fixture {
	t.Helper()
	f := &fixture{cluster: cl, ns: name, conf: name, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC), logs: &logBuffer{}}
	ctx := context.Background()
	if err := cl.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	none := &metav1.LabelSelector{MatchLabels: map[string]string{"never": name}}
	url := "https://127.0.0.1:1/unused"
	common := func() (admissionregistrationv1.WebhookClientConfig, []admissionregistrationv1.RuleWithOperations, *admissionregistrationv1.SideEffectClass) {
		se := admissionregistrationv1.SideEffectClassNone
		return admissionregistrationv1.WebhookClientConfig{URL: &url},
			[]admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}, &se
	}
	m := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, w := range []string{"enforce.pods.leash.dev", "pods.leash.dev"} {
		cc, rules, se := common()
		m.Webhooks = append(m.Webhooks, admissionregistrationv1.MutatingWebhook{Name: w, ClientConfig: cc, Rules: rules, SideEffects: se,
			NamespaceSelector: none, AdmissionReviewVersions: []string{"v1"}})
	}
	for _, w := range []string{"enforce.pods.leash.dev", "pods.leash.dev", "warn.pods.leash.dev"} {
		cc, rules, se := common()
		v.Webhooks = append(v.Webhooks, admissionregistrationv1.ValidatingWebhook{Name: w, ClientConfig: cc, Rules: rules, SideEffects: se,
			NamespaceSelector: none, AdmissionReviewVersions: []string{"v1"}})
	}
	for _, o := range []client.Object{m, v} {
		if err := cl.c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// rotator is one replica's Rotator, on f's clock and log.
func (f *fixture) rotator(t *testing.T) *Rotator {
	t.Helper()
	r, err := New(f.c, Options{Namespace: f.ns, Configuration: f.conf, ExtraIPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	r.now = func() time.Time { return f.now }
	return r
}

func (f *fixture) ctx() context.Context {
	return log.IntoContext(context.Background(), f.logs.logger())
}

func (f *fixture) secret(t *testing.T) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: f.ns, Name: DefaultSecret}, s); err != nil {
		t.Fatalf("reading the Secret: %v", err)
	}
	return s
}

// bundles are the caBundles of every webhook of f's configurations.
func (f *fixture) bundles(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := f.c.Get(context.Background(), types.NamespacedName{Name: f.conf}, m); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Get(context.Background(), types.NamespacedName{Name: f.conf}, v); err != nil {
		t.Fatal(err)
	}
	for _, w := range m.Webhooks {
		out = append(out, w.ClientConfig.CABundle)
	}
	for _, w := range v.Webhooks {
		out = append(out, w.ClientConfig.CABundle)
	}
	if len(out) != 5 {
		t.Fatalf("%d webhooks; want 5", len(out))
	}
	return out
}

// checkPublished asserts that every webhook carries the Secret's ca.crt,
// that it holds want CAs, and that r serves the Secret's tls.crt.
func (f *fixture) checkPublished(t *testing.T, r *Rotator, wantCAs int) (ca []*x509.Certificate, leaf *x509.Certificate) {
	t.Helper()
	s := f.secret(t)
	for i, b := range f.bundles(t) {
		if !bytes.Equal(b, s.Data[KeyCACert]) {
			t.Errorf("webhook %d's caBundle is not the Secret's %s", i, KeyCACert)
		}
	}
	cas, err := parseCerts(s.Data[KeyCACert])
	if err != nil {
		t.Fatal(err)
	}
	if len(cas) != wantCAs {
		t.Errorf("%s holds %d CAs; want %d", KeyCACert, len(cas), wantCAs)
	}
	got, err := r.GetCertificate(nil)
	if err != nil {
		t.Fatalf("GetCertificate: %v", err)
	}
	leafs, err := parseCerts(s.Data[KeyTLSCert])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Certificate[0], leafs[0].Raw) {
		t.Errorf("the served certificate (serial %s) is not the Secret's (serial %s)", got.Leaf.SerialNumber, leafs[0].SerialNumber)
	}
	return cas, leafs[0]
}

func TestRotator(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{})
	c, err := client.NewWithWatch(srv.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{t: t, c: c, cfg: srv.Config}

	t.Run("creates the Secret, publishes the CA, then serves", func(t *testing.T) {
		f := cl.fixture(t, "create")
		r := f.rotator(t)
		if err := r.Ready(nil); err == nil {
			t.Errorf("Ready before the first sync: nil; want an error")
		}
		if _, err := r.GetCertificate(nil); err == nil {
			t.Errorf("GetCertificate before the first sync: nil error; want one")
		}
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		if err := r.Ready(nil); err != nil {
			t.Errorf("Ready after the sync: %v", err)
		}
		cas, leaf := f.checkPublished(t, r, 1)
		s := f.secret(t)
		if _, ours := s.Labels[leashv1.LabelCredentialsRequest]; ours {
			t.Errorf("the Secret carries %s, so the operator's cache would hold it as credentials", leashv1.LabelCredentialsRequest)
		}
		if s.Type != corev1.SecretTypeTLS {
			t.Errorf("Secret type %s; want %s", s.Type, corev1.SecretTypeTLS)
		}
		wantNames := []string{"leash-webhook.create.svc", "leash-webhook.create.svc.cluster.local"}
		if !slicesEqual(leaf.DNSNames, wantNames) || len(leaf.IPAddresses) != 1 || !leaf.IPAddresses[0].Equal(net.IPv4(127, 0, 0, 1)) {
			t.Errorf("names %v %v; want %v and 127.0.0.1", leaf.DNSNames, leaf.IPAddresses, wantNames)
		}
		if leaf.KeyUsage != x509.KeyUsageDigitalSignature || len(leaf.ExtKeyUsage) != 1 || leaf.ExtKeyUsage[0] != x509.ExtKeyUsageServerAuth || leaf.IsCA {
			t.Errorf("key usage %v, ext %v, CA %v; want digitalSignature, serverAuth, not a CA", leaf.KeyUsage, leaf.ExtKeyUsage, leaf.IsCA)
		}
		for what, c := range map[string]*x509.Certificate{"CA": cas[0], "serving": leaf} {
			if k, ok := c.PublicKey.(*ecdsa.PublicKey); !ok || k.Curve != elliptic.P256() {
				t.Errorf("%s key %T; want ECDSA P-256", what, c.PublicKey)
			}
		}
		if got := leaf.NotAfter.Sub(f.now); got != DefaultCertValidity {
			t.Errorf("serving certificate valid for %v; want %v", got, DefaultCertValidity)
		}
		if got := cas[0].NotAfter.Sub(f.now); got != DefaultCAValidity {
			t.Errorf("CA valid for %v; want %v", got, DefaultCAValidity)
		}
		if err := leaf.CheckSignatureFrom(cas[0]); err != nil {
			t.Errorf("the serving certificate is not signed by the CA: %v", err)
		}
		for _, k := range []string{KeyCAKey, KeyTLSKey} {
			if strings.Contains(f.logs.String(), string(s.Data[k])) || strings.Contains(f.logs.String(), "PRIVATE KEY") {
				t.Errorf("the log holds key material (%s)", k)
			}
		}
	})

	t.Run("a second replica serves the same certificate without writing", func(t *testing.T) {
		f := cl.fixture(t, "replica")
		a, b := f.rotator(t), f.rotator(t)
		if err := a.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		before := f.secret(t).ResourceVersion
		if err := b.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		if after := f.secret(t).ResourceVersion; after != before {
			t.Errorf("the second replica wrote the Secret (resourceVersion %s to %s)", before, after)
		}
		ca, _ := a.GetCertificate(nil)
		cb, _ := b.GetCertificate(nil)
		if !bytes.Equal(ca.Certificate[0], cb.Certificate[0]) {
			t.Errorf("the replicas serve different certificates")
		}
	})

	t.Run("replicas starting together end with one certificate", func(t *testing.T) {
		f := cl.fixture(t, "race")
		rs := []*Rotator{f.rotator(t), f.rotator(t), f.rotator(t)}
		var wg sync.WaitGroup
		errs := make([]error, len(rs))
		for i, r := range rs {
			wg.Go(func() { errs[i] = r.sync(f.ctx()) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("replica %d: %v", i, err)
			}
		}
		for i, r := range rs {
			f.checkPublished(t, r, 1)
			if t.Failed() {
				t.Fatalf("replica %d serves another certificate than the Secret's", i)
			}
		}
	})

	t.Run("a due serving certificate is renewed by the same CA", func(t *testing.T) {
		f := cl.fixture(t, "renew")
		r := f.rotator(t)
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		cas1, leaf1 := f.checkPublished(t, r, 1)
		// Not yet due: nothing changes.
		f.now = leaf1.NotAfter.Add(-DefaultCertRenewBefore - time.Minute)
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		if _, leaf := f.checkPublished(t, r, 1); leaf.SerialNumber.Cmp(leaf1.SerialNumber) != 0 {
			t.Errorf("renewed before due")
		}
		f.now = leaf1.NotAfter.Add(-DefaultCertRenewBefore + time.Minute)
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		cas2, leaf2 := f.checkPublished(t, r, 1)
		if leaf2.SerialNumber.Cmp(leaf1.SerialNumber) == 0 {
			t.Errorf("the serving certificate was not renewed when due (serial %s)", leaf1.SerialNumber)
		}
		if !cas2[0].Equal(cas1[0]) {
			t.Errorf("the CA changed with the serving certificate; want it kept")
		}
		if !strings.Contains(f.logs.String(), "new serving certificate: serial "+leaf1.SerialNumber.String()) {
			t.Errorf("no log line says why the certificate was renewed:\n%s", f.logs)
		}
	})

	t.Run("a due CA is renewed, bundled with the old one, and signs only after a resync", func(t *testing.T) {
		f := cl.fixture(t, "carenew")
		r := f.rotator(t)
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		cas1, _ := f.checkPublished(t, r, 1)
		oldCA := cas1[0]
		// Keep the serving certificate fresh up to the CA's renewal.
		for f.now.Before(oldCA.NotAfter.Add(-DefaultCARenewBefore - 20*24*time.Hour)) {
			f.now = f.now.Add(20 * 24 * time.Hour)
			if err := r.sync(f.ctx()); err != nil {
				t.Fatal(err)
			}
		}
		_, leafBefore := f.checkPublished(t, r, 1)
		// The CA is due, and so is the serving certificate.
		f.now = oldCA.NotAfter.Add(-DefaultCARenewBefore + time.Hour)
		if leafBefore.NotAfter.Sub(f.now) > DefaultCertRenewBefore {
			f.now = leafBefore.NotAfter.Add(-DefaultCertRenewBefore + time.Hour)
		}
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		cas2, leaf2 := f.checkPublished(t, r, 2)
		if len(cas2) == 2 && (!cas2[1].Equal(oldCA) || cas2[0].Equal(oldCA)) {
			t.Errorf("ca.crt after renewal: serials %s, %s; want a new CA first, then the old %s", cas2[0].SerialNumber, cas2[1].SerialNumber, oldCA.SerialNumber)
		}
		if leaf2.SerialNumber.Cmp(leafBefore.SerialNumber) != 0 {
			t.Errorf("the serving certificate was renewed in the sync that made the CA: the API server may not trust it yet")
		}
		// One resync later, the new CA signs.
		f.now = f.now.Add(DefaultResync)
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		cas3, leaf3 := f.checkPublished(t, r, 2)
		if leaf3.SerialNumber.Cmp(leafBefore.SerialNumber) == 0 || leaf3.CheckSignatureFrom(cas3[0]) != nil {
			t.Errorf("a resync after the new CA, the due serving certificate is serial %s; want a new one signed by the new CA", leaf3.SerialNumber)
		}
		// When the old CA expires it leaves the bundle.
		f.now = oldCA.NotAfter.Add(time.Second)
		if err := r.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		cas4, _ := f.checkPublished(t, r, 1)
		if len(cas4) == 1 && !cas4[0].Equal(cas3[0]) {
			t.Errorf("after the old CA expired the bundle holds serial %s; want the new CA %s", cas4[0].SerialNumber, cas3[0].SerialNumber)
		}
	})

	t.Run("a malformed Secret is replaced, and the log says why", func(t *testing.T) {
		cases := []struct {
			name    string
			mangle  func(map[string][]byte)
			newCA   bool
			wantLog string
		}{
			{"tls.crt not PEM", func(d map[string][]byte) { d[KeyTLSCert] = []byte("not a certificate") }, false, "tls.crt holds no PEM certificate"},
			{"tls.key of another certificate", func(d map[string][]byte) {
				_, d[KeyTLSKey], _ = mustCA(t).issue(Options{Service: "x", Namespace: "y"}, time.Now(), time.Hour)
			}, false, "tls.key does not match tls.crt"},
			{"ca.key missing", func(d map[string][]byte) { delete(d, KeyCAKey) }, true, "ca.key holds no PEM key"},
			{"ca.crt garbage", func(d map[string][]byte) {
				d[KeyCACert] = []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
			}, true, "ca.crt holds a certificate that does not parse"},
		}
		for i, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				f := cl.fixture(t, fmt.Sprintf("malformed-%d", i))
				r := f.rotator(t)
				if err := r.sync(f.ctx()); err != nil {
					t.Fatal(err)
				}
				cas1, leaf1 := f.checkPublished(t, r, 1)
				s := f.secret(t)
				tc.mangle(s.Data)
				if err := f.c.Update(context.Background(), s); err != nil {
					t.Fatal(err)
				}
				if err := r.sync(f.ctx()); err != nil {
					t.Fatal(err)
				}
				wantCAs := 1
				if tc.newCA && !strings.Contains(tc.name, "ca.crt") {
					wantCAs = 2 // the old CA still verifies what it signed
				}
				cas2, leaf2 := f.checkPublished(t, r, wantCAs)
				if got := !cas2[0].Equal(cas1[0]); got != tc.newCA {
					t.Errorf("new CA %v; want %v", got, tc.newCA)
				}
				if !tc.newCA && leaf2.SerialNumber.Cmp(leaf1.SerialNumber) == 0 {
					t.Errorf("the serving certificate was not replaced")
				}
				if !strings.Contains(f.logs.String(), tc.wantLog) {
					t.Errorf("the log does not say %q:\n%s", tc.wantLog, f.logs)
				}
			})
		}
	})

	t.Run("nothing is served until the CA bundle is published", func(t *testing.T) {
		f := cl.fixture(t, "publishfirst")
		failing := interceptor.NewClient(f.c, interceptor.Funcs{
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				if _, ok := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration); ok {
					return errors.New("injected: the API server is unavailable")
				}
				return c.Update(ctx, obj, opts...)
			}})
		r, err := New(failing, Options{Namespace: f.ns, Configuration: f.conf, ExtraIPs: []net.IP{net.IPv4(127, 0, 0, 1)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.sync(f.ctx()); err == nil || !strings.Contains(err.Error(), "ValidatingWebhookConfiguration "+f.conf) {
			t.Fatalf("sync with the configuration update failing: %v; want an error naming the configuration", err)
		}
		if r.Ready(nil) == nil {
			t.Errorf("ready although the CA bundle is not published")
		}
		if _, err := r.GetCertificate(nil); err == nil {
			t.Errorf("a certificate is served although its CA is not in every webhook's caBundle")
		}
		// Once the update goes through, the same Secret is served.
		rv := f.secret(t).ResourceVersion
		good := f.rotator(t)
		good.now = time.Now
		if err := good.sync(f.ctx()); err != nil {
			t.Fatal(err)
		}
		f.checkPublished(t, good, 1)
		if f.secret(t).ResourceVersion != rv {
			t.Errorf("the Secret written before the failure was written again")
		}
	})

	t.Run("a configuration re-created without the bundle, or given a stale one, gets it back at once", func(t *testing.T) {
		f := cl.fixture(t, "watch")
		r := f.rotator(t)
		r.now = time.Now
		r.o.Resync = time.Hour // only the watch can put the bundle back in time
		f.run(t, r)
		f.waitPublished(t, r, 5*time.Second)
		ctx := context.Background()
		for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			t.Run(kind+" re-created", func(t *testing.T) {
				obj := f.configuration(t, kind)
				if err := f.c.Delete(ctx, obj); err != nil {
					t.Fatal(err)
				}
				obj.SetResourceVersion("")
				obj.SetUID("")
				setBundles(obj, nil)
				start := time.Now()
				if err := f.c.Create(ctx, obj); err != nil {
					t.Fatal(err)
				}
				f.waitPublished(t, r, 5*time.Second)
				t.Logf("the bundle was back %v after the configuration was created without it", time.Since(start).Round(time.Millisecond))
			})
			t.Run(kind+" given a stale bundle", func(t *testing.T) {
				obj := f.configuration(t, kind)
				stale, _, err := mustCA(t).issue(Options{Service: "x", Namespace: "y"}, time.Now(), time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				setBundles(obj, stale)
				start := time.Now()
				if err := f.c.Update(ctx, obj); err != nil {
					t.Fatal(err)
				}
				f.waitPublished(t, r, 5*time.Second)
				t.Logf("the bundle was back %v after it was replaced", time.Since(start).Round(time.Millisecond))
			})
		}
	})

	t.Run("a configuration cert-manager keeps stops the webhook before any write, until the annotation goes", func(t *testing.T) {
		for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
			t.Run(kind, func(t *testing.T) {
				f := cl.fixture(t, "certmanager-"+strings.ToLower(kind[:4]))
				obj := f.configuration(t, kind)
				obj.SetAnnotations(map[string]string{AnnotationInjectCA: f.ns + "/leash-webhook"})
				if err := f.c.Update(context.Background(), obj); err != nil {
					t.Fatal(err)
				}
				r := f.rotator(t)
				r.now = time.Now
				r.o.Resync = time.Hour
				done := f.run(t, r)
				var err error
				waitUntil(t, 10*time.Second, "the Rotator to stop the webhook", func() bool { err = r.Ready(nil); return err != nil && r.stopped.Load() != nil })
				for _, want := range []string{"the webhook is stopped", kind + " " + f.conf, AnnotationInjectCA, "--webhook-cert-dir"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("readiness %q does not name %q", err, want)
					}
				}
				if _, err := r.GetCertificate(nil); err == nil || !strings.Contains(err.Error(), AnnotationInjectCA) {
					t.Errorf("GetCertificate while stopped: %v; want the refusal", err)
				}
				if !strings.Contains(f.logs.String(), "the admission webhook is stopped") || !strings.Contains(f.logs.String(), AnnotationInjectCA) {
					t.Errorf("the log does not say the webhook is stopped and why:\n%s", f.logs)
				}
				select {
				case err := <-done:
					t.Fatalf("Start returned (%v) on the refusal; want it to go on, so that the manager does", err)
				default:
				}
				s := &corev1.Secret{}
				if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: f.ns, Name: DefaultSecret}, s); err == nil {
					t.Errorf("the stopped Rotator created Secret %s", DefaultSecret)
				}
				for i, b := range f.bundles(t) {
					if len(b) != 0 {
						t.Errorf("webhook %d got a caBundle from the stopped Rotator", i)
					}
				}
				// The annotation removed, the webhook serves again.
				obj = f.configuration(t, kind)
				obj.SetAnnotations(nil)
				if err := f.c.Update(context.Background(), obj); err != nil {
					t.Fatal(err)
				}
				f.waitPublished(t, r, 5*time.Second)
				if err := r.Ready(nil); err != nil {
					t.Errorf("Ready after the annotation went: %v", err)
				}
				if !strings.Contains(f.logs.String(), "the admission webhook serves again") {
					t.Errorf("the log does not say the webhook serves again:\n%s", f.logs)
				}
			})
		}
	})

	t.Run("a Secret cert-manager keeps stops the webhook without a write, and an Event on it says why", func(t *testing.T) {
		f := cl.fixture(t, "certmanager-secret")
		cert, _, err := mustCA(t).issue(Options{Service: "x", Namespace: "y"}, time.Now(), time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: DefaultSecret,
			Annotations: map[string]string{"cert-manager.io/certificate-name": "leash-webhook"}},
			Type: corev1.SecretTypeTLS, Data: map[string][]byte{corev1.TLSCertKey: cert, corev1.TLSPrivateKeyKey: []byte("-----BEGIN EC PRIVATE KEY-----\nnot a real key\n-----END EC PRIVATE KEY-----\n")}}
		if err := f.c.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		cs, err := kubernetes.NewForConfig(f.cfg)
		if err != nil {
			t.Fatal(err)
		}
		b := record.NewBroadcaster()
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
		defer b.Shutdown()
		r := f.rotator(t)
		r.o.Events = b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: "leash"})
		f.run(t, r)
		var ev corev1.Event
		waitUntil(t, 10*time.Second, "a "+ReasonWebhookStopped+" Event on the Secret", func() bool {
			var list corev1.EventList
			if err := f.c.List(ctx, &list, client.InNamespace(f.ns)); err != nil {
				return false
			}
			for _, e := range list.Items {
				if e.Reason == ReasonWebhookStopped && e.InvolvedObject.Kind == "Secret" && e.InvolvedObject.Name == DefaultSecret {
					ev = e
					return true
				}
			}
			return false
		})
		for _, want := range []string{"the admission webhook is stopped", "Secret " + f.ns + "/" + DefaultSecret + " is cert-manager's (Certificate leash-webhook)", "--webhook-cert-dir"} {
			if !strings.Contains(ev.Message, want) {
				t.Errorf("Event message %q does not say %q", ev.Message, want)
			}
		}
		if ev.Type != corev1.EventTypeWarning {
			t.Errorf("Event type %s; want %s", ev.Type, corev1.EventTypeWarning)
		}
		if strings.Contains(ev.Message, "PRIVATE KEY") || strings.Contains(f.logs.String(), "PRIVATE KEY") {
			t.Errorf("the Event or the log holds the Secret's key")
		}
		if err := r.Ready(nil); err == nil || !strings.Contains(err.Error(), "cert-manager's") {
			t.Errorf("Ready: %v; want the refusal", err)
		}
		if got := f.secret(t); got.ResourceVersion != s.ResourceVersion {
			t.Errorf("the stopped Rotator wrote cert-manager's Secret (resourceVersion %s to %s)", s.ResourceVersion, got.ResourceVersion)
		}
		for i, b := range f.bundles(t) {
			if len(b) != 0 {
				t.Errorf("webhook %d got a caBundle from the stopped Rotator", i)
			}
		}
	})
}

// run starts r and its watch until the subtest ends, and returns what
// Start returned once it does.
func (f *fixture) run(t *testing.T, r *Rotator) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(f.ctx())
	watch, err := r.watch(ctx, f.cfg, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	watchDone, done := make(chan error, 1), make(chan error, 1)
	go func() { watchDone <- watch.Start(ctx) }()
	go func() { done <- r.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-watchDone; err != nil {
			t.Errorf("the watch: %v", err)
		}
	})
	return done
}

// configuration reads f's configuration of kind.
func (f *fixture) configuration(t *testing.T, kind string) client.Object {
	t.Helper()
	var obj client.Object = &admissionregistrationv1.MutatingWebhookConfiguration{}
	if kind == "ValidatingWebhookConfiguration" {
		obj = &admissionregistrationv1.ValidatingWebhookConfiguration{}
	}
	if err := f.c.Get(context.Background(), types.NamespacedName{Name: f.conf}, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func setBundles(obj client.Object, bundle []byte) {
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for i := range o.Webhooks {
			o.Webhooks[i].ClientConfig.CABundle = bundle
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for i := range o.Webhooks {
			o.Webhooks[i].ClientConfig.CABundle = bundle
		}
	}
}

// waitPublished waits until every webhook carries the Secret's ca.crt and
// r serves the Secret's certificate.
func (f *fixture) waitPublished(t *testing.T, r *Rotator, timeout time.Duration) {
	t.Helper()
	waitUntil(t, timeout, "every webhook to carry the Secret's CA", func() bool {
		s := &corev1.Secret{}
		if err := f.c.Get(context.Background(), types.NamespacedName{Namespace: f.ns, Name: DefaultSecret}, s); err != nil {
			return false
		}
		for _, b := range f.bundles(t) {
			if !bytes.Equal(b, s.Data[KeyCACert]) {
				return false
			}
		}
		return r.Ready(nil) == nil
	})
	f.checkPublished(t, r, 1)
}

func waitUntil(t *testing.T, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustCA(t *testing.T) signer {
	t.Helper()
	ca, err := newCA(time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func slicesEqual(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
