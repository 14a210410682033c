// Package e2e tests the leash binary as people run it: `leash local` as a
// process, reached over loopback by the AWS CLI and the Go SDK, stopped by
// signals and killed outright.
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"leash.dev/leash/internal/iamclient"
)

// account is the account every test's endpoint holds.
const account = "111122223333"

// leashBin is the binary built once by TestMain.
var leashBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "leash-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	leashBin = filepath.Join(dir, "leash")
	build := exec.Command("go", "build", "-o", leashBin, "leash.dev/leash/cmd/leash")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// process is one `leash local` running as a child process.
type process struct {
	cmd            *exec.Cmd
	dir            string
	url            string
	stdout, stderr *syncBuffer
	exited         chan struct{}
	waitErr        error
}

// startLocal runs `leash local --data dir` on a free loopback port and
// returns once it answers HTTP. A process the test leaves running is killed
// at the end of the test.
func startLocal(t *testing.T, dir string, args ...string) *process {
	t.Helper()
	p := &process{dir: dir, stdout: &syncBuffer{}, stderr: &syncBuffer{}, exited: make(chan struct{})}
	args = append([]string{"local", "--data", dir, "--listen", "127.0.0.1:0"}, args...)
	if _, err := os.Stat(filepath.Join(dir, "state.db")); err != nil {
		// A new folder gets the tests' account; an existing one keeps its own.
		args = append(args, "--account-id", account)
	}
	p.cmd = exec.Command(leashBin, args...)
	p.cmd.Stdout, p.cmd.Stderr = p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start leash local: %v", err)
	}
	go func() { p.waitErr = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	const prefix = "leash local: listening on "
	deadline := time.Now().Add(30 * time.Second)
	for p.url == "" {
		sc := bufio.NewScanner(strings.NewReader(p.stdout.String()))
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				p.url = u
			}
		}
		select {
		case <-p.exited:
			t.Fatalf("leash local exited before it listened (%v)\nstdout:\n%s\nstderr:\n%s", p.waitErr, p.stdout, p.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("leash local printed no %q line in 30s\nstdout:\n%s\nstderr:\n%s", prefix, p.stdout, p.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for {
		// Any answer will do: an unsigned GET gets the Query protocol's error.
		resp, err := http.Get(p.url)
		if err == nil {
			_ = resp.Body.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("leash local at %s does not answer: %v", p.url, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends sig and returns the exit status, or -1 for a process ended by
// a signal.
func (p *process) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("leash local still running 20s after %v", sig)
	}
	return exitStatus(t, p.waitErr, "leash local")
}

// exitStatus is the exit status a command's Run or Wait error stands for;
// an error that is not an exit status (the command did not start) fails
// the test.
func exitStatus(t *testing.T, err error, what string) int {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	}
	t.Fatalf("%s: %v", what, err)
	return 0
}

func (p *process) credentialsPath() string { return filepath.Join(p.dir, "admin-credentials") }

// adminKey reads the administrator's key from the credentials file, as a
// person using leash local would.
func (p *process) adminKey(t *testing.T) (id, secret string) {
	t.Helper()
	key, err := iamclient.KeyFromFile(p.credentialsPath())
	if err != nil {
		t.Fatalf("admin credentials: %v", err)
	}
	return key.ID, key.Secret.Reveal()
}

func (p *process) iam(id, secret string) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(p.url),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

func (p *process) sts(id, secret string) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(p.url),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

// runLeash runs another leash command, such as `leash audit`, to its end.
func runLeash(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, leashBin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("leash %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

// syncBuffer is a bytes.Buffer that a process writes while a test reads.
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
