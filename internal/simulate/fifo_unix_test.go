//go:build unix

package simulate_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"leash.dev/leash/internal/cli"
)

// A --request naming a pipe (a named pipe, or the /dev/fd/N that a shell's
// process substitution gives) streams as stdin does: the first answer is
// written while the writer still holds the rest back. Only a large regular
// file is mapped.
func TestSimulateRequestFromANamedPipeStreams(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "requests")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	first, _ := batchRequest(2)
	second, _ := batchRequest(1)
	out := &signalWriter{first: make(chan struct{})}
	done := make(chan int)
	go func() {
		done <- cli.Run(context.Background(), []string{"simulate", "--request", fifo, "--output", "json"}, nil, out, io.Discard)
	}()
	pw, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(pw, first+"\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-out.first:
	case <-time.After(10 * time.Second):
		_ = pw.Close()
		<-done
		t.Fatal("no answer was written while the pipe was still open")
	}
	if _, err := io.WriteString(pw, second+"\n"); err != nil {
		t.Fatal(err)
	}
	_ = pw.Close()
	if code := <-done; code != 1 {
		t.Errorf("exit status %d, want 1 (the second request is denied)\n%s", code, out.String())
	}
	if got := out.String(); strings.Count(got, "Allowed") != 1 || strings.Count(got, "ImplicitDeny") != 1 {
		t.Errorf("answers:\n%s", got)
	}
}
