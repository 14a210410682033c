package cli

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/broker"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestBrokerFlagsRefuseBadInput pins that leash broker stops before it
// reaches AWS or a cluster on a bad flag, naming the flag and the fix.
func TestBrokerFlagsRefuseBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"plain HTTP on every address is refused", []string{"--listen", ":8443"}, "give --tls-cert-file and --tls-key-file, or listen on a loopback address"},
		{"a certificate without its key is refused", []string{"--tls-cert-file", "tls.crt"}, "give both --tls-cert-file and --tls-key-file"},
		{"a session shorter than STS allows is refused", []string{"--listen", "127.0.0.1:8443", "--session-duration", "5m"}, "--session-duration: session duration 5m0s"},
		{"a cluster name a session tag cannot hold is refused", []string{"--listen", "127.0.0.1:8443", "--cluster-name", "prod;eu"}, "--cluster-name: cluster name \"prod;eu\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, append([]string{"broker", "--kubeconfig", filepath.Join(t.TempDir(), "none")}, tc.args...)...)
			if code != ExitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, ExitBadInput, tc.want)
			}
		})
	}
}

// TestBrokerCommandServes runs leash broker as documented against leash
// local, over TLS: it logs its AWS identity, becomes ready once its caches
// of the API server have synced, and answers a request without a token
// with the JSON refusal the SDKs show.
func TestBrokerCommandServes(t *testing.T) {
	api := apiserver.Start(t, apiserver.Options{CRDDirs: []string{filepath.Join("..", "..", "deploy", "crd")}})
	aws := localtest.Start(t, localaws.Config{})
	t.Setenv("AWS_ACCESS_KEY_ID", aws.Admin.ID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", aws.Admin.Secret.Reveal())
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	cert, key, pool := selfSigned(t)
	addr := freeLoopback(t)

	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncWriter
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"broker", "--kubeconfig", api.Kubeconfig(t, "broker"), "--endpoint", aws.URL,
			"--listen", addr, "--tls-cert-file", cert, "--tls-key-file", key, "--cluster-name", "dev"},
			strings.NewReader(""), &bytes.Buffer{}, &stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != ExitOK {
			t.Errorf("leash broker exited %d after its context ended, want 0:\n%s", code, stderr.String())
		}
	}()

	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}, Timeout: 5 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := client.Get("https://" + addr + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready after a minute (%v):\n%s", err, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := client.Get("https://" + addr + broker.CredentialsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var refusal struct{ Code, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&refusal); err != nil || resp.StatusCode != http.StatusUnauthorized ||
		refusal.Code != broker.CodeTokenMissing || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("without a token: %d %s %+v (%v), want 401 application/json %s", resp.StatusCode, resp.Header.Get("Content-Type"), refusal, err, broker.CodeTokenMissing)
	}
	if log := stderr.String(); !strings.Contains(log, `"arn":"arn:aws:iam::`+aws.AccountID()+`:user/`) || !strings.Contains(log, `"msg":"broker ready"`) {
		t.Errorf("log does not name the broker's AWS identity and readiness:\n%s", log)
	}
	if strings.Contains(stderr.String(), aws.Admin.Secret.Reveal()) {
		t.Error("the log holds the broker's secret key")
	}
}

// syncWriter is a buffer the command's goroutines write and the test reads.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// freeLoopback is a loopback address with a port free a moment ago.
func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns
// their files and a pool trusting the certificate.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "leash-broker"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &priv.PublicKey, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(parsed)
	return certFile, keyFile, pool
}
