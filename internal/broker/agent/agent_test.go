package agent

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/internal/inputerr"
)

// caOf is the PEM of the test server's certificate, which signs itself.
func caOf(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// otherCA is the PEM of a CA made now, which signed nothing. (Every
// httptest TLS server serves the same certificate, so another server's is
// no other CA.)
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// serve runs an agent in front of upstream and returns its URL.
func serve(t *testing.T, upstream *httptest.Server, o Options) string {
	t.Helper()
	if o.Upstream == "" {
		o.Upstream = upstream.URL
	}
	if o.CA == nil {
		o.CA = caOf(upstream)
	}
	a, err := New(o, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv.URL
}

func get(t *testing.T, url, authorization string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// failureOf decodes the agent's own error answer.
func failureOf(t *testing.T, body string) (code, message string) {
	t.Helper()
	var f struct{ Code, Message string }
	if err := json.Unmarshal([]byte(body), &f); err != nil || f.Code == "" {
		t.Fatalf("answer %q is not the agent's JSON error: %v", body, err)
	}
	return f.Code, f.Message
}

func TestForwardsTheCallerAuthorizationAndStreamsTheAnswerBack(t *testing.T) {
	var got http.Header
	var path, method string
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, path, method = r.Header.Clone(), r.URL.Path, r.Method
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Broker-Only", "not forwarded")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"code":"AccessDenied","message":"no request names this pod"}`)
	}))
	defer upstream.Close()
	url := serve(t, upstream, Options{})

	resp, body := get(t, url+broker.CredentialsPath, "pod-token")
	if got.Get("Authorization") != "pod-token" {
		t.Errorf("the broker got Authorization %q, want the caller's", got.Get("Authorization"))
	}
	if path != broker.CredentialsPath || method != http.MethodGet {
		t.Errorf("the broker was called %s %s, want GET %s", method, path, broker.CredentialsPath)
	}
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" ||
		body != `{"code":"AccessDenied","message":"no request names this pod"}` {
		t.Errorf("answer %d %q %q, want the broker's unchanged", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp.Header.Get("X-Broker-Only") != "" {
		t.Error("a header other than Content-Type was passed back")
	}
}

func TestRetriesOnceWhenTheBrokerClosesTheConnection(t *testing.T) {
	tests := []struct {
		name       string
		closeFirst int32 // calls whose connection the broker closes unanswered
		wantStatus int
		wantCalls  int32
	}{
		{"a connection closed once (a replica gone) is retried, and the retry's answer returned", 1, http.StatusOK, 2},
		{"a connection closed twice is tried no third time: 502", 2, http.StatusBadGateway, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) <= tt.closeFirst {
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						_ = conn.Close()
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{}`)
			}))
			defer upstream.Close()
			url := serve(t, upstream, Options{})
			resp, body := get(t, url+broker.CredentialsPath, "pod-token")
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status %d (%s), want %d", resp.StatusCode, body, tt.wantStatus)
			}
			if calls.Load() != tt.wantCalls {
				t.Errorf("the broker was called %d times, want %d", calls.Load(), tt.wantCalls)
			}
			if tt.wantStatus != http.StatusOK {
				if code, _ := failureOf(t, body); code != "BrokerUnreachable" {
					t.Errorf("code %q, want BrokerUnreachable", code)
				}
			}
		})
	}
}

func TestAnswers502Or503WhenTheBrokerFails(t *testing.T) {
	t.Run("a broker that answers too late: 503, and no retry", func(t *testing.T) {
		var calls atomic.Int32
		release := make(chan struct{})
		upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer upstream.Close()
		defer close(release)
		url := serve(t, upstream, Options{Timeout: 200 * time.Millisecond})
		resp, body := get(t, url+broker.CredentialsPath, "pod-token")
		if code, _ := failureOf(t, body); resp.StatusCode != http.StatusServiceUnavailable || code != "BrokerTimeout" {
			t.Errorf("answer %d %s, want 503 BrokerTimeout", resp.StatusCode, body)
		}
		if calls.Load() != 1 {
			t.Errorf("the broker was called %d times, want 1", calls.Load())
		}
	})
	t.Run("no broker listening: 502", func(t *testing.T) {
		upstream := httptest.NewTLSServer(http.NotFoundHandler())
		ca, addr := caOf(upstream), upstream.Listener.Addr().String()
		upstream.Close()
		url := serve(t, nil, Options{Upstream: "https://" + addr, CA: ca})
		resp, body := get(t, url+broker.CredentialsPath, "pod-token")
		if code, _ := failureOf(t, body); resp.StatusCode != http.StatusBadGateway || code != "BrokerUnreachable" {
			t.Errorf("answer %d %s, want 502 BrokerUnreachable", resp.StatusCode, body)
		}
	})
}

func TestRefusesABrokerCertificateOfAnotherCA(t *testing.T) {
	var calls atomic.Int32
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }))
	defer upstream.Close()
	url := serve(t, upstream, Options{CA: otherCA(t)})
	resp, body := get(t, url+broker.CredentialsPath, "pod-token")
	if code, _ := failureOf(t, body); resp.StatusCode != http.StatusBadGateway || code != "BrokerUntrusted" {
		t.Errorf("answer %d %s, want 502 BrokerUntrusted", resp.StatusCode, body)
	}
	if calls.Load() != 0 {
		t.Error("the request reached a broker whose certificate the agent does not trust")
	}
	if strings.Contains(body, "pod-token") {
		t.Error("the answer holds the token")
	}
}

func TestHealthAndOtherPaths(t *testing.T) {
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the broker was called for %s %s", r.Method, r.URL.Path)
	}))
	defer upstream.Close()
	url := serve(t, upstream, Options{})
	tests := []struct {
		name, method, path string
		want               int
	}{
		{"healthz answers without calling the broker", http.MethodGet, HealthPath, http.StatusOK},
		{"only GET is forwarded", http.MethodPost, broker.CredentialsPath, http.StatusMethodNotAllowed},
		{"another path is not forwarded", http.MethodGet, "/latest/meta-data/", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, url+tt.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
}

func TestOptionsRefused(t *testing.T) {
	upstream := httptest.NewTLSServer(http.NotFoundHandler())
	defer upstream.Close()
	ca := caOf(upstream)
	tests := []struct {
		name     string
		o        Options
		source   string
		mentions string
	}{
		{"a listen address on every interface", Options{Listen: ":9911", Upstream: upstream.URL, CA: ca}, "--listen", "not a loopback address"},
		{"a listen address of the pod's network", Options{Listen: "10.0.0.7:9911", Upstream: upstream.URL, CA: ca}, "--listen", "not a loopback address"},
		{"a listen name, not an address", Options{Listen: "localhost:9911", Upstream: upstream.URL, CA: ca}, "--listen", "not a loopback address"},
		{"an http upstream", Options{Upstream: "http://leash-broker.leash-system.svc:8080", CA: ca}, "--upstream", "is not https"},
		{"no upstream", Options{CA: ca}, "--upstream", "is required"},
		{"an upstream with a path", Options{Upstream: upstream.URL + "/v1/credentials", CA: ca}, "--upstream", "base URL only"},
		{"no CA", Options{Upstream: upstream.URL}, "--upstream-ca-file", "is required"},
		{"a CA that is no PEM", Options{Upstream: upstream.URL, CA: []byte("not a certificate")}, "--upstream-ca-file", "no PEM certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.o, nil)
			var in *inputerr.Error
			if !errors.As(err, &in) || in.Source != tt.source || !strings.Contains(in.Msg, tt.mentions) {
				t.Errorf("error %v, want one of %s saying %q", err, tt.source, tt.mentions)
			}
		})
	}
	t.Run("the default listen address is the one admission gives the SDKs", func(t *testing.T) {
		if want := "http://" + DefaultListen + broker.CredentialsPath; broker.AgentURL != want || DefaultListen != "127.0.0.1:"+strconv.Itoa(broker.AgentPort) {
			t.Errorf("DefaultListen %s, broker.AgentURL %s", DefaultListen, broker.AgentURL)
		}
	})
	t.Run("loopback addresses, IPv4 and IPv6, are accepted", func(t *testing.T) {
		for _, l := range []string{DefaultListen, "127.0.0.2:9911", "[::1]:9911"} {
			if _, err := New(Options{Listen: l, Upstream: upstream.URL, CA: ca}, nil); err != nil {
				t.Errorf("%s: %v", l, err)
			}
		}
	})
	t.Run("--upstream-ca is the PEM in base64", func(t *testing.T) {
		got, err := CAFromBase64(base64.StdEncoding.EncodeToString(ca))
		if err != nil || string(got) != string(ca) {
			t.Errorf("decoded %q, %v", got, err)
		}
		if _, err := CAFromBase64("-----BEGIN"); err == nil {
			t.Error("a value that is not base64 was taken")
		}
	})
}

func TestRunServesUntilTheContextEnds(t *testing.T) {
	upstream := httptest.NewTLSServer(http.NotFoundHandler())
	defer upstream.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, Options{Listen: addr, Upstream: upstream.URL, CA: caOf(upstream)}, nil) }()
	var resp *http.Response
	for i := 0; i < 100; i++ {
		if resp, err = http.Get("http://" + addr + HealthPath); err == nil {
			_ = resp.Body.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run returned %v after its context ended", err)
	}
}
