package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLocalWritesACPUProfileWhenAsked pins the hidden --cpuprofile that
// bench/local.sh profiles the server with: a whole gzip-compressed pprof
// file once local has stopped, and no mention of the flag in --help.
func TestLocalWritesACPUProfileWhenAsked(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "cpu.prof")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	status := make(chan int, 1)
	go func() {
		status <- Run(ctx, []string{"local", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0", "--cpuprofile", profile}, nil, &out, &errOut)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "Stop with") {
		if time.Now().After(deadline) {
			t.Fatalf("no start message after 10s; stderr:\n%s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if s := <-status; s != ExitOK {
		t.Fatalf("status %d after the context was cancelled, want %d; stderr: %s", s, ExitOK, errOut.String())
	}
	data, err := os.ReadFile(profile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Errorf("the profile is %d bytes and not gzip, as pprof writes it", len(data))
	}

	var help syncBuffer
	if s := Run(context.Background(), []string{"local", "--help"}, nil, &help, &help); s != ExitOK {
		t.Fatalf("local --help: status %d", s)
	}
	if strings.Contains(help.String(), "cpuprofile") {
		t.Errorf("--help shows the hidden --cpuprofile:\n%s", help.String())
	}
}

// TestLocalRefusesAnUnwritableCPUProfile pins that a profile that cannot
// be created stops local before it listens, naming the flag.
func TestLocalRefusesAnUnwritableCPUProfile(t *testing.T) {
	dir := t.TempDir()
	var out, errOut syncBuffer
	s := Run(context.Background(), []string{"local", "--data", filepath.Join(dir, "data"), "--listen", "127.0.0.1:0",
		"--cpuprofile", filepath.Join(dir, "missing", "cpu.prof")}, nil, &out, &errOut)
	if s != ExitBadInput || !strings.Contains(errOut.String(), "--cpuprofile") {
		t.Errorf("status %d, stderr %q; want %d and a message naming --cpuprofile", s, errOut.String(), ExitBadInput)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Errorf("the data folder was created: %v", err)
	}
}
