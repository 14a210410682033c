package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBrokerAgentRefusesBadInput pins that the agent does not start with
// settings that would expose the pod's token, naming the flag and the fix.
func TestBrokerAgentRefusesBadInput(t *testing.T) {
	upstream := httptest.NewTLSServer(http.NotFoundHandler())
	defer upstream.Close()
	ca := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: upstream.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a listen address off loopback", []string{"--listen", "0.0.0.0:9911", "--upstream", upstream.URL, "--upstream-ca-file", ca}, `--listen: "0.0.0.0:9911" is not a loopback address`},
		{"an http upstream", []string{"--upstream", "http://leash-broker.leash-system.svc:8080", "--upstream-ca-file", ca}, "--upstream: \"http://leash-broker.leash-system.svc:8080\" is not https"},
		{"the CA given twice", []string{"--upstream", upstream.URL, "--upstream-ca-file", ca, "--upstream-ca", "LS0t"}, "give the CA once"},
		{"a CA file that does not exist", []string{"--upstream", upstream.URL, "--upstream-ca-file", ca + ".missing"}, "--upstream-ca-file: open"},
		{"a CA that is not base64", []string{"--upstream", upstream.URL, "--upstream-ca", "-----BEGIN"}, "--upstream-ca: is not base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, append([]string{"broker", "agent"}, tt.args...)...)
			if code != ExitBadInput || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestBrokerAgentServes runs the command as the sidecar runs it (the CA
// in base64 in its arguments) and asks it for credentials: the broker's
// answer comes back, and the command ends with its context.
func TestBrokerAgentServes(t *testing.T) {
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"seen":"`+r.Header.Get("Authorization")+`"}`)
	}))
	defer upstream.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: upstream.Certificate().Raw}))
		done <- Run(ctx, []string{"broker", "agent", "--listen=" + addr, "--upstream=" + upstream.URL, "--upstream-ca=" + ca}, strings.NewReader(""), io.Discard, &stderr)
	}()
	var body []byte
	for i := 0; i < 100; i++ {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/credentials", nil)
		req.Header.Set("Authorization", "pod-token")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if string(body) != `{"seen":"pod-token"}` {
		t.Errorf("answer %q, want the broker's", body)
	}
	cancel()
	if code := <-done; code != ExitOK {
		t.Errorf("exit %d after its context ended: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "pod-token") {
		t.Error("the agent logged the token")
	}
}
