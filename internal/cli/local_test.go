package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

func TestLocalRefusesBadFlags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"--data is required", nil, []string{"--data is required", "--data ./leash-data"}},
		{"a non-loopback address needs --allow-remote", []string{"--data", dir, "--listen", "0.0.0.0:4566"},
			[]string{"--listen 0.0.0.0:4566", "not a loopback address", "plain HTTP", "--allow-remote"}},
		{"an address without a port", []string{"--data", dir, "--listen", "127.0.0.1"}, []string{"--listen 127.0.0.1", "host:port"}},
		{"a throttle rate above 1", []string{"--data", dir, "--throttle-rate", "2"}, []string{"--throttle-rate", "from 0 to 1"}},
		{"a negative error rate", []string{"--data", dir, "--error-rate", "-0.1"}, []string{"--error-rate", "from 0 to 1"}},
		{"throttle and error rates adding to more than 1", []string{"--data", dir, "--throttle-rate", "0.6", "--error-rate", "0.6"},
			[]string{"--throttle-rate and --error-rate", "exceed 1"}},
		{"a negative latency", []string{"--data", dir, "--latency", "-1s"}, []string{"--latency", "must not be negative"}},
		{"a duration without a unit", []string{"--data", dir, "--propagation-delay", "5"}, []string{`"--propagation-delay"`, "missing unit"}},
		{"an account ID that is not 12 digits", []string{"--data", dir, "--account-id", "1234"}, []string{`--account-id "1234"`, "12 digits"}},
		{"another account ID that is not 12 digits", []string{"--data", dir, "--other-account", "1111222233334"}, []string{`--other-account "1111222233334"`, "12 digits"}},
		{"--oidc-jwks without a file", []string{"--data", dir, "--oidc-jwks", "https://kubernetes.default.svc"}, []string{"--oidc-jwks", "ISSUER=FILE"}},
		{"--oidc-jwks with a missing file", []string{"--data", dir, "--oidc-jwks", "https://kubernetes.default.svc=" + filepath.Join(dir, "none.json")},
			[]string{"--oidc-jwks https://kubernetes.default.svc", "no such file"}},
		{"--oidc-jwks for an http issuer", []string{"--data", dir, "--oidc-jwks", "http://kubernetes.default.svc=" + filepath.Join(dir, "none.json")},
			[]string{"--oidc-jwks http://kubernetes.default.svc", "https://HOST[/PATH] exactly"}},
		{"--oidc-jwks for an issuer with a trailing slash", []string{"--data", dir, "--oidc-jwks", "https://kubernetes.default.svc/=" + filepath.Join(dir, "none.json")},
			[]string{"--oidc-jwks https://kubernetes.default.svc/", "without a trailing slash"}},
		{"an argument instead of --data", []string{dir}, []string{"unexpected argument", "--data DIR"}},
		{"a clock offset beyond ten years", []string{"--data", dir, "--clock-offset", "87601h"}, []string{"--clock-offset", "beyond ±10 years"}},
		{"a clock offset beyond ten years back", []string{"--data", dir, "--clock-offset", "-87601h"}, []string{"--clock-offset", "beyond ±10 years"}},
		{"a clock offset without a unit", []string{"--data", dir, "--clock-offset", "48"}, []string{`"--clock-offset"`, "missing unit"}},
		{"a read timeout of zero", []string{"--data", dir, "--read-timeout", "0"}, []string{"--read-timeout 0s", "must be positive"}},
		{"a negative idle timeout", []string{"--data", dir, "--idle-timeout", "-1s"}, []string{"--idle-timeout -1s", "must be positive"}},
		{"a write timeout the latency outlasts", []string{"--data", dir, "--write-timeout", "1s", "--latency", "2s"},
			[]string{"--write-timeout and --latency", "write timeout 1s is not longer than the latency 2s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			status := Run(context.Background(), append([]string{"local"}, tt.args...), nil, &out, &errOut)
			if status != ExitBadInput {
				t.Fatalf("status %d, want %d; stderr: %s", status, ExitBadInput, errOut.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("bad flags created the data folder")
			}
		})
	}
}

// TestLocalPrintsWhereAndHowThenStops pins what a person sees on start: the
// URL first, the account, the path of the credentials file but never the
// key in it, and a command to try; and that a cancelled context (a signal)
// stops it with status 0.
func TestLocalPrintsWhereAndHowThenStops(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	status := make(chan int, 1)
	go func() {
		status <- Run(ctx, []string{"local", "--data", dir, "--listen", "127.0.0.1:0", "--account-id", "123456789012", "--other-account", "111122223333"}, nil, &out, &errOut)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Stop with") {
		if time.Now().After(deadline) {
			t.Fatalf("no start message after 10s; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if s := <-status; s != ExitOK {
		t.Fatalf("status %d after the context was cancelled, want %d; stderr: %s", s, ExitOK, errOut.String())
	}
	got := out.String()
	creds := filepath.Join(dir, localaws.AdminCredentialsFile)
	if !strings.HasPrefix(got, "leash local: listening on http://127.0.0.1:") {
		t.Errorf("the first line is not the URL:\n%s", got)
	}
	otherCreds := filepath.Join(dir, localaws.AccountsDir, "111122223333", localaws.AdminCredentialsFile)
	for _, w := range []string{"123456789012", creds, "other account:     111122223333, admin credentials " + otherCreds, "AWS_SHARED_CREDENTIALS_FILE=" + creds, "aws --endpoint-url http://127.0.0.1:", "iam list-users", "stopped"} {
		if !strings.Contains(got, w) {
			t.Errorf("stdout lacks %q:\n%s", w, got)
		}
	}
	key, err := iamclient.KeyFromFile(creds)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got+errOut.String(), key.Secret.Reveal()) {
		t.Errorf("the output holds the administrator's secret key")
	}
	otherKey, err := iamclient.KeyFromFile(otherCreds)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got+errOut.String(), otherKey.Secret.Reveal()) {
		t.Errorf("the output holds the other account's administrator's secret key")
	}
}

// syncBuffer is a bytes.Buffer that one goroutine writes while another reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
