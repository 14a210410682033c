package cli

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWhoCanStopsOnSIGTERM runs leash as a process on a generated account
// of 10,000 principals with the broad-IAM profile, whose escalation
// question takes seconds, sends it SIGTERM as `timeout` does, and checks
// that it stops with the signal's exit status and says where it stopped,
// with no answer printed.
func TestWhoCanStopsOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	leash, account := filepath.Join(dir, "leash"), filepath.Join(dir, "account.json")
	for _, c := range [][]string{
		{"build", "-o", leash, "../../cmd/leash"},
		{"run", "../../bench/cmd/accountgen", "-principals", "10000", "-policies", "10000", "-broad-iam", "5", "-o", account},
	} {
		if out, err := exec.Command("go", c...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	cmd := exec.Command(leash, "who-can", "s3:GetObject", "--account", account, "--escalation")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // inside reading the 40 MB account, or building the graph
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitInterrupted {
		t.Fatalf("after SIGTERM: %v, want exit status %d\nstderr: %s", err, ExitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") || stdout.Len() != 0 {
		t.Errorf("stderr %q, stdout %d bytes: want the stop said and no answer", stderr.String(), stdout.Len())
	}
}
