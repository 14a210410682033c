package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/broker"
	"leash.dev/leash/localaws/faults"
)

// TestBrokerReplicaKilledMidRequest: two broker replicas over TLS behind a
// round-robin TCP balancer (what a Service's kube-proxy does; none runs
// here), and the pod's agent in front. A replica is killed with SIGKILL
// while it serves a pod's first fetch (leash local answers each call a
// second late, so the fetch is under way); the agent tries once more, the
// balancer sends that to the other replica, and the AWS SDK for Go gets
// its session with no error.
func TestBrokerReplicaKilledMidRequest(t *testing.T) {
	w := newBrokerWorld(t, clusterOptions{faults: faults.Config{Latency: time.Second}})
	dir := t.TempDir()
	pool, caFile, certFile, keyFile := loopbackCert(t, dir)
	tlsArgs := []string{"--tls-cert-file", certFile, "--tls-key-file", keyFile}
	a := runBroker(t, w.cl, w.brokerCreds, pool, tlsArgs...)
	b := runBroker(t, w.cl, w.brokerCreds, pool, tlsArgs...)
	lb, served := roundRobin(t, a.addr, b.addr)

	agentAddr := freeLoopbackAddr(t)
	agent := exec.Command(leashBin, "broker", "agent", "--listen", agentAddr, "--upstream", "https://"+lb, "--upstream-ca-file", caFile)
	agentLog := &syncBuffer{}
	agent.Stdout, agent.Stderr = agentLog, agentLog
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Process.Kill(); _ = agent.Wait() })
	waitFor(t, 30*time.Second, "the agent to serve", func() (bool, string) {
		resp, err := http.Get("http://" + agentAddr + "/healthz")
		if err != nil {
			return false, err.Error() + "\n" + agentLog.String()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})

	for _, kv := range w.env(t, "http://"+agentAddr+broker.CredentialsPath) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"} {
		t.Setenv(name, "")
		_ = os.Unsetenv(name)
	}
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{os.DevNull}), config.WithSharedConfigFiles([]string{os.DevNull}))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var arn string
	go func() {
		id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err == nil {
			arn = aws.ToString(id.Arn)
		}
		done <- err
	}()
	waitFor(t, 10*time.Second, "the first fetch to reach replica A", func() (bool, string) { return served[0].Load() == 1, "" })
	time.Sleep(300 * time.Millisecond) // A is waiting on TokenReview or AssumeRole
	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || arn != w.wantARN() {
		t.Fatalf("GetCallerIdentity with replica A killed mid-fetch: %q, %v; want %s\nagent log:\n%s", arn, err, w.wantARN(), agentLog.String())
	}
	if served[1].Load() == 0 {
		t.Errorf("replica B served no connection: the session did not come from the other replica")
	}
}

// roundRobin is a TCP balancer on a free loopback port that hands each
// connection to the next backend in turn, skipping one it cannot reach,
// as kube-proxy spreads a Service's connections; served counts each
// backend's connections.
func roundRobin(t *testing.T, backends ...string) (string, []*atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	served := make([]*atomic.Int64, len(backends))
	for i := range served {
		served[i] = &atomic.Int64{}
	}
	var next atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				for range backends {
					i := int(next.Add(1)-1) % len(backends)
					up, err := net.Dial("tcp", backends[i])
					if err != nil {
						continue
					}
					served[i].Add(1)
					defer func() { _ = up.Close() }()
					var wg sync.WaitGroup
					wg.Add(2)
					go func() { defer wg.Done(); _, _ = io.Copy(up, c); _ = up.(*net.TCPConn).CloseWrite() }()
					go func() { defer wg.Done(); _, _ = io.Copy(c, up); _ = c.(*net.TCPConn).CloseWrite() }()
					wg.Wait()
					return
				}
			}()
		}
	}()
	return l.Addr().String(), served
}

// loopbackCert writes a CA and a certificate it signs for 127.0.0.1, made
// at run time, and returns the CA as a pool and the files' paths.
func loopbackCert(t *testing.T, dir string) (pool *x509.CertPool, caFile, certFile, keyFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e broker CA"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	caFile, certFile, keyFile = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for f, b := range map[string]*pem.Block{caFile: {Type: "CERTIFICATE", Bytes: caDER}, certFile: {Type: "CERTIFICATE", Bytes: leafDER}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(f, pem.EncodeToMemory(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool = x509.NewCertPool()
	pool.AddCert(ca)
	return pool, caFile, certFile, keyFile
}

// freeLoopbackAddr is a loopback address with a port free a moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}
