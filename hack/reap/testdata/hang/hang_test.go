// Package hang is a package that go test times out: its test starts a
// process in a session of its own, as envtest starts kube-apiserver, and
// never returns, so its cleanup never runs.
package hang

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestHang(t *testing.T) {
	sleep := exec.Command("sleep", "600")
	sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill() })
	if err := os.WriteFile(os.Getenv("REAP_TEST_PIDFILE"), []byte(strconv.Itoa(sleep.Process.Pid)), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Hour)
}
