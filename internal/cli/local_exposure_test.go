package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// runLocalUntilStarted runs `leash local` with args until it has printed
// its start message, then stops it, and returns stdout and stderr.
func runLocalUntilStarted(t *testing.T, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	status := make(chan int, 1)
	go func() { status <- Run(ctx, append([]string{"local"}, args...), nil, &out, &errOut) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Stop with") {
		if time.Now().After(deadline) {
			t.Fatalf("no start message after 10s; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if s := <-status; s != ExitOK {
		t.Fatalf("status %d, want %d; stderr: %s", s, ExitOK, errOut.String())
	}
	return out.String(), errOut.String()
}

// TestLocalAllowRemoteWarns pins that listening where other hosts can
// reach the endpoint is said on stderr with what it exposes, and no
// secret; on loopback nothing is said.
func TestLocalAllowRemoteWarns(t *testing.T) {
	t.Run("a remote address with --allow-remote warns", func(t *testing.T) {
		dir := t.TempDir()
		_, stderr := runLocalUntilStarted(t, "--data", dir, "--listen", "0.0.0.0:0", "--allow-remote")
		for _, w := range []string{"level=WARN", "reachable from other hosts", "--allow-remote", "plain HTTP", "unencrypted", "administrator's key"} {
			if !strings.Contains(stderr, w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr)
			}
		}
		key, err := iamclient.KeyFromFile(filepath.Join(dir, localaws.AdminCredentialsFile))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(stderr, key.Secret.Reveal()) || strings.Contains(stderr, key.ID) {
			t.Error("stderr holds the administrator's key")
		}
	})
	t.Run("loopback says nothing", func(t *testing.T) {
		_, stderr := runLocalUntilStarted(t, "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--allow-remote")
		if strings.Contains(stderr, "reachable from other hosts") {
			t.Errorf("a loopback address was called reachable:\n%s", stderr)
		}
	})
}

// TestLocalTightensALooseDataFolder pins what a person sees when the data
// folder and credentials file were left open to others: a line on stderr
// for each, and the mode printed on start is the file's real one.
func TestLocalTightensALooseDataFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	runLocalUntilStarted(t, "--data", dir, "--listen", "127.0.0.1:0")
	creds := filepath.Join(dir, localaws.AdminCredentialsFile)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(creds, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := runLocalUntilStarted(t, "--data", dir, "--listen", "127.0.0.1:0")
	for _, w := range []string{"data folder " + dir + " was mode 0755, open to other users; made it 0700",
		"admin credentials file " + creds + " was mode 0644, open to other users; made it 0600"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	if want := creds + " (profile default, mode 0600)"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
}
