package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/admission/webhookcert"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/operator"
)

// certTestLifetimes make the Rotator renew in seconds: a serving
// certificate every 3 s, the CA after 12 s, the old CA leaving the bundle
// at 24 s.
var certTestLifetimes = webhookcert.Options{
	CAValidity: 24 * time.Second, CARenewBefore: 12 * time.Second,
	CertValidity: 6 * time.Second, CertRenewBefore: 3 * time.Second,
	Resync: 250 * time.Millisecond,
}

// TestAdmissionCertRotation installs deploy/base/webhook.yaml on a real API
// server, pointed at a local webhook server whose TLS comes from the
// Rotator, in a namespace where both webhooks fail closed. Pods are
// admitted with the Rotator's certificate, not envtest's; with lifetimes of
// seconds the serving certificate is renewed and the CA after it, both CAs
// stay in every webhook's caBundle until the old one expires, and no pod is
// refused across any of it. A configuration annotated for cert-manager
// stops the webhook, not the manager, until the annotation goes.
func TestAdmissionCertRotation(t *testing.T) {
	srv := apiserver.Start(t, apiserver.Options{Scheme: operator.Scheme(), CRDDirs: []string{"../../deploy/crd"}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c := srv.Client

	wio := &envtest.WebhookInstallOptions{Paths: []string{"../../deploy/base/webhook.yaml"}, LocalServingHost: "127.0.0.1"}
	if err := wio.Install(srv.Config); err != nil {
		t.Fatalf("installing deploy/base/webhook.yaml: %v", err)
	}
	t.Cleanup(func() { _ = wio.Cleanup() })
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "leash-system"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "apps", Labels: map[string]string{"leash.dev/admission": "enforce"}}},
	} {
		if err := c.Create(ctx, ns); err != nil {
			t.Fatal(err)
		}
	}
	srv.ServiceAccounts(t, "apps")

	// The operator's manager, as operator.NewManager makes it: its cache
	// holds only the Secrets leash writes for requests, so the Rotator's
	// Secret is read past it. The webhook is admission's, serving the
	// certificate of the Rotator it runs (Options.Rotate); each answer is
	// counted.
	var calls atomic.Int64
	o := certTestLifetimes
	o.Namespace, o.ExtraIPs = "leash-system", []net.IP{net.ParseIP(wio.LocalServingHost)}
	ao := &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, Rotate: &o, RefuseAt: analyze.High,
		Observe: func(string, time.Duration) { calls.Add(1) }}
	hookServer, err := admission.NewServer(ao)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(srv.Config, ctrl.Options{
		Scheme:  operator.Scheme(),
		Metrics: metricsserver.Options{BindAddress: "0"},
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Secret{}: {Label: labels.SelectorFromSet(labels.Set{leashv1.LabelCredentialsRequest: "true"})}}},
		WebhookServer: hookServer,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := admission.Register(mgr, *ao); err != nil {
		t.Fatal(err)
	}
	mgrCtx, stop := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	mgrEnded := false
	t.Cleanup(func() {
		stop()
		if !mgrEnded {
			if err := <-mgrDone; err != nil {
				t.Errorf("the manager: %v", err)
			}
		}
	})

	hostPort := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	// Ready once the server presents the Rotator's certificate.
	started := hookServer.StartedChecker()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := started(nil)
		if err == nil {
			var conn *tls.Conn
			if conn, err = tls.Dial("tcp", hostPort, &tls.Config{InsecureSkipVerify: true}); err == nil { //nolint:gosec // only waits for a certificate to be served
				_ = conn.Close()
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving after 30s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// served dials the webhook as the API server does, trusting bundle,
	// and returns the certificate it presents.
	served := func(bundle []byte) (*x509.Certificate, error) {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(bundle) {
			return nil, errors.New("the bundle holds no certificate")
		}
		conn, err := tls.Dial("tcp", hostPort, &tls.Config{RootCAs: pool, ServerName: wio.LocalServingHost, MinVersion: tls.VersionTLS12})
		if err != nil {
			return nil, err
		}
		defer func() { _ = conn.Close() }()
		return conn.ConnectionState().PeerCertificates[0], nil
	}
	pods := 0
	admit := func(what string) {
		t.Helper()
		pods++
		before := calls.Load()
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: fmt.Sprintf("pod-%d", pods)},
			Spec: corev1.PodSpec{AutomountServiceAccountToken: new(bool), Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
		if err := c.Create(ctx, pod); err != nil {
			t.Fatalf("%s: pod %s refused: %v", what, pod.Name, err)
		}
		if got := calls.Load() - before; got != 2 {
			t.Fatalf("%s: pod %s made %d webhook calls; want 2 (the mutating and validating enforce webhooks)", what, pod.Name, got)
		}
	}

	t.Run("pods are admitted with the Rotator's certificate, not envtest's", func(t *testing.T) {
		bundle, cas := certBundles(ctx, t, c)
		if len(cas) != 1 {
			t.Fatalf("the bundle holds %d CAs; want the Rotator's one", len(cas))
		}
		if bytes.Contains(bundle, wio.LocalServingCAData) {
			t.Errorf("the bundle still holds envtest's CA")
		}
		if _, err := served(wio.LocalServingCAData); err == nil {
			t.Errorf("the webhook presents a certificate envtest's CA verifies; want the Rotator's")
		}
		leaf, err := served(bundle)
		if err != nil {
			t.Fatalf("dialling the webhook with the published bundle: %v", err)
		}
		if want := secretLeaf(ctx, t, c); leaf.SerialNumber.Cmp(want.SerialNumber) != 0 {
			t.Errorf("the webhook presents serial %s; the Secret holds %s", leaf.SerialNumber, want.SerialNumber)
		}
		admit("first pod")
	})

	t.Run("renewals of the certificate and the CA admit every pod", func(t *testing.T) {
		_, cas := certBundles(ctx, t, c)
		firstCA := cas[0]
		serials := map[string]bool{}
		var sawBoth, sawNewLeaf, sawOldGone bool
		deadline := time.Now().Add(60 * time.Second)
		for !(sawBoth && sawNewLeaf && sawOldGone && len(serials) >= 3) {
			if time.Now().After(deadline) {
				t.Fatalf("after 60s: serials served %d, both CAs bundled %v, a certificate of the new CA served %v, the old CA gone %v",
					len(serials), sawBoth, sawNewLeaf, sawOldGone)
			}
			bundle, cas := certBundles(ctx, t, c)
			leaf, err := served(bundle)
			if err != nil {
				t.Fatalf("dialling the webhook with the published bundle of %d CAs: %v", len(cas), err)
			}
			serials[leaf.SerialNumber.String()] = true
			hasFirst := false
			for _, ca := range cas {
				hasFirst = hasFirst || ca.Equal(firstCA)
			}
			switch {
			case hasFirst && !cas[0].Equal(firstCA):
				sawBoth = true
				if leaf.CheckSignatureFrom(cas[0]) == nil {
					sawNewLeaf = true
				}
			case !hasFirst:
				if !sawBoth {
					t.Fatalf("the first CA left the bundle before a new CA was seen beside it: bundle %s", caSerials(cas))
				}
				if time.Now().Before(firstCA.NotAfter) {
					t.Fatalf("the first CA left the bundle before it expired at %s", firstCA.NotAfter)
				}
				sawOldGone = true
			}
			admit(fmt.Sprintf("serving serial %s, bundle %s", leaf.SerialNumber, caSerials(cas)))
			time.Sleep(200 * time.Millisecond)
		}
		t.Logf("%d pods admitted across %d serving certificates and a CA renewal", pods, len(serials))
	})

	t.Run("a configuration annotated for cert-manager stops the webhook, not the manager, until the annotation goes", func(t *testing.T) {
		annotate := func(ann map[string]string) {
			t.Helper()
			v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, v); err != nil {
				t.Fatal(err)
			}
			v.Annotations = ann
			if err := c.Update(ctx, v); err != nil {
				t.Fatal(err)
			}
		}
		annotate(map[string]string{webhookcert.AnnotationInjectCA: "leash-system/leash-webhook"})
		// The running Rotator stops serving as soon as it sees the
		// annotation ...
		deadline := time.Now().Add(10 * time.Second)
		for {
			conn, err := tls.Dial("tcp", hostPort, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only asks whether a certificate is served
			if err != nil {
				t.Logf("stopped: %v", err)
				break
			}
			_ = conn.Close()
			if time.Now().After(deadline) {
				t.Fatalf("the webhook still serves a certificate 10s after the annotation")
			}
			time.Sleep(50 * time.Millisecond)
		}
		// ... and the manager goes on.
		select {
		case err := <-mgrDone:
			mgrEnded = true
			t.Fatalf("the manager ended (%v); want only the webhook stopped", err)
		case <-time.After(2 * time.Second):
		}
		// Without the annotation the webhook serves again.
		annotate(nil)
		deadline = time.Now().Add(10 * time.Second)
		for {
			bundle, _ := certBundles(ctx, t, c)
			if _, err := served(bundle); err == nil {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("the webhook does not serve again 10s after the annotation went: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		admit("the annotation removed")
	})
}

// certBundles returns the caBundle that every webhook of the leash
// configurations carries, and its CAs. The two configurations are updated
// one after the other, so a read between the updates is tried again; it
// fails the test when they still differ after a second.
func certBundles(ctx context.Context, t *testing.T, c client.Client) ([]byte, []*x509.Certificate) {
	t.Helper()
	for range 20 {
		m := &admissionregistrationv1.MutatingWebhookConfiguration{}
		v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, m); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, v); err != nil {
			t.Fatal(err)
		}
		var bundles [][]byte
		for _, w := range m.Webhooks {
			bundles = append(bundles, w.ClientConfig.CABundle)
		}
		for _, w := range v.Webhooks {
			bundles = append(bundles, w.ClientConfig.CABundle)
		}
		if len(bundles) != 7 {
			t.Fatalf("%d webhooks; want deploy/base/webhook.yaml's 7", len(bundles))
		}
		same := true
		for _, b := range bundles[1:] {
			same = same && bytes.Equal(b, bundles[0])
		}
		if same {
			return bundles[0], parsePEMCerts(t, bundles[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the webhooks' caBundles still differ after a second")
	return nil, nil
}

func parsePEMCerts(t *testing.T, data []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			return out
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cert)
	}
}

func secretLeaf(ctx context.Context, t *testing.T, c client.Client) *x509.Certificate {
	t.Helper()
	s := &corev1.Secret{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "leash-system", Name: webhookcert.DefaultSecret}, s); err != nil {
		t.Fatal(err)
	}
	certs := parsePEMCerts(t, s.Data[webhookcert.KeyTLSCert])
	if len(certs) == 0 {
		t.Fatalf("Secret %s holds no serving certificate", webhookcert.DefaultSecret)
	}
	return certs[0]
}

func caSerials(cas []*x509.Certificate) string {
	var out []*big.Int
	for _, c := range cas {
		out = append(out, c.SerialNumber)
	}
	return fmt.Sprint(out)
}
