package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// reapBin is reap built once by TestMain.
var reapBin string

// helperEnv makes this test binary act as the command under reap: it
// starts a grandchild in a session of its own (as envtest starts
// kube-apiserver and etcd in a process group of their own), writes the
// grandchild's pid to the file the variable names, and then does what
// helperMode says.
const (
	helperEnv  = "REAP_TEST_PIDFILE"
	helperMode = "REAP_TEST_MODE"
)

func TestMain(m *testing.M) {
	if pidFile := os.Getenv(helperEnv); pidFile != "" {
		os.Exit(helper(pidFile, os.Getenv(helperMode)))
	}
	dir, err := os.MkdirTemp("", "reap")
	if err != nil {
		panic(err)
	}
	reapBin = filepath.Join(dir, "reap")
	if out, err := exec.Command("go", "build", "-o", reapBin, ".").CombinedOutput(); err != nil {
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

func helper(pidFile, mode string) int {
	sleep := exec.Command("sleep", "600")
	sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sleep.Start(); err != nil {
		return 3
	}
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(sleep.Process.Pid)), 0o600); err != nil {
		return 3
	}
	if mode == "hang" {
		time.Sleep(time.Hour)
	}
	return 7
}

// The three ways a package ends and leaves a process: it returns, go test
// kills it at its -timeout, or the run is interrupted. In each, the
// grandchild, in a session of its own, is gone once reap returns, and reap
// exits as the command did.
func TestReapEndsWhatTheCommandLeft(t *testing.T) {
	t.Run("the command exits and leaves a grandchild in its own session", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		cmd := exec.Command(reapBin, os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+pidFile)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 7 {
			t.Errorf("reap: %v, want exit status 7, the command's\n%s", err, out)
		}
		assertGone(t, pidFile, string(out))
	})

	t.Run("go test times out a package that started a grandchild", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		cmd := exec.Command(reapBin, "go", "test", "-count=1", "-timeout=3s", "-run=^TestHang$", "./testdata/hang")
		cmd.Env = append(os.Environ(), helperEnv+"="+pidFile)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "test timed out after 3s") {
			t.Errorf("reap go test: %v after %v; want go test's timeout to fail it\n%s", err, time.Since(start), out)
		}
		assertGone(t, pidFile, string(out))
	})

	t.Run("reap is interrupted while the command runs", func(t *testing.T) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		cmd := exec.Command(reapBin, os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+pidFile, helperMode+"=hang")
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitForFile(t, pidFile)
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGINT) {
			t.Errorf("reap: %v, want exit status %d (the command ended by SIGINT)\n%s", err, 128+int(syscall.SIGINT), out.String())
		}
		assertGone(t, pidFile, out.String())
	})
}

// assertGone fails the test when the pid in pidFile still runs (and then
// ends it), and when reap did not name it.
func assertGone(t *testing.T, pidFile, out string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the command wrote no grandchild pid: %v\n%s", err, out)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("grandchild %d is still there after reap returned (kill 0: %v)\n%s", pid, err, out)
	}
	if want := "reap: left behind: pid " + string(b) + " sleep 600"; !strings.Contains(out, want) {
		t.Errorf("reap's output does not say %q\n%s", want, out)
	}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return
		}
	}
	t.Fatalf("%s was not written within a minute", path)
}
