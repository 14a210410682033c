// Package peer_test compares leash's policy engine with a reference engine,
// @cloud-copilot/iam-simulate, run as a separate node process (peer.js).
// The reference engine is AGPL-3.0: it is installed by `npm ci` in this
// folder and only ever spoken to over a pipe.
package peer_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"leash.dev/leash/internal/simulate"
)

// peerPackage is the reference engine; its version is pinned in package.json.
const peerPackage = "@cloud-copilot/iam-simulate"

// answer is the peer's reply to one case.
type answer struct {
	// Decision is Allowed, ExplicitDeny, ImplicitDeny, or Error when the peer
	// rejected the case as invalid.
	Decision           string          `json:"decision"`
	IgnoredContextKeys []string        `json:"ignoredContextKeys"`
	Errors             json.RawMessage `json:"errors"`
}

// peer is one running `node peer.js`. Answers come back in request order.
type peer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *bytes.Buffer
	mu     sync.Mutex
}

// startPeer starts the reference engine for one test and stops it when the
// test ends. It fails the test, with what to do, when node or the installed
// package is missing.
func startPeer(t testing.TB) *peer {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: the peer tests run %s with Node.js 20 or later; install Node.js, then run `npm ci` in test/peer", peerPackage)
	}
	checkInstalled(t)
	cmd := exec.Command(node, "peer.js")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatalf("peer stdin: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("peer stdout: %v", err)
	}
	p := &peer{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 1<<20), stderr: &bytes.Buffer{}}
	cmd.Stderr = &lockedWriter{w: p.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node peer.js: %v", err)
	}
	t.Cleanup(func() {
		_ = p.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && !t.Failed() {
				t.Errorf("node peer.js exited: %v\n%s", err, p.stderrText())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Logf("node peer.js after kill: %v", <-done)
			t.Errorf("node peer.js did not exit within 10s of its input closing")
		}
	})
	return p
}

// checkInstalled fails the test unless node_modules holds the pinned version
// of the reference engine.
func checkInstalled(t testing.TB) {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	data, err := os.ReadFile("package.json")
	if err != nil {
		t.Fatalf("read test/peer/package.json: %v", err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("test/peer/package.json: %v", err)
	}
	want := pkg.Dependencies[peerPackage]
	installed := filepath.Join("node_modules", filepath.FromSlash(peerPackage), "package.json")
	data, err = os.ReadFile(installed)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("test/peer/node_modules has no %s: run `npm ci` in test/peer (it installs the pinned reference engine from package-lock.json)", peerPackage)
	}
	if err != nil {
		t.Fatalf("read %s: %v", installed, err)
	}
	var got struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%s: %v", installed, err)
	}
	if got.Version != want {
		t.Fatalf("test/peer/node_modules has %s %s, package.json pins %s: run `npm ci` in test/peer", peerPackage, got.Version, want)
	}
}

// decide sends every case to the peer and returns its answers in order.
// Each case is one JSON object (a simulate.Case).
func (p *peer) decide(t testing.TB, cases [][]byte) []answer {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.stdin, 1<<20)
		var line bytes.Buffer
		for i, c := range cases {
			line.Reset()
			// One case per line: compact away any newlines.
			if err := json.Compact(&line, c); err != nil {
				werr <- fmt.Errorf("case %d is not valid JSON: %w", i, err)
				return
			}
			line.WriteByte('\n')
			if _, err := w.Write(line.Bytes()); err != nil {
				werr <- fmt.Errorf("write case %d to the peer: %w", i, err)
				return
			}
		}
		werr <- w.Flush()
	}()
	out := make([]answer, len(cases))
	for i := range out {
		line, err := p.stdout.ReadBytes('\n')
		if err != nil {
			t.Fatalf("read the peer's answer %d of %d: %v\npeer stderr:\n%s", i+1, len(cases), err, p.stderrText())
		}
		if err := json.Unmarshal(line, &out[i]); err != nil {
			t.Fatalf("the peer's answer %d is not JSON: %v: %s", i+1, err, line)
		}
	}
	if err := <-werr; err != nil {
		t.Fatalf("%v\npeer stderr:\n%s", err, p.stderrText())
	}
	return out
}

func (p *peer) stderrText() string {
	w := p.cmd.Stderr.(*lockedWriter)
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(p.stderr.String())
}

// lockedWriter lets the exec package's copier and the test read stderr safely.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// leashDecide answers a case with leash's engine.
func leashDecide(c *simulate.Case, source, path string) (string, error) {
	compiled, err := c.Compile(source, path)
	if err != nil {
		return "", err
	}
	return compiled.Policies.Decide(&compiled.Request).String(), nil
}
