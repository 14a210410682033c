// Command reap runs a command and, when it ends, ends every process the
// command left behind. `make test` runs each `go test` under it:
//
//	bin/reap go test -timeout 45m ./test/e2e
//
// Tests start kube-apiserver and etcd (controller-runtime's envtest puts
// them in a process group of their own, so a terminal's ^C never reaches
// them) and `leash local` processes. When a package times out, go test
// kills the test binary, its cleanups never run, and those processes would
// keep running after `make test` has ended. reap makes itself a child
// subreaper (prctl PR_SET_CHILD_SUBREAPER), so every process whose parent
// dies is re-parented to reap rather than to init; when the command ends,
// reap sends SIGTERM to every process still below it, then SIGKILL to those
// that are still there after a grace period, and names each on stderr.
//
// SIGINT and SIGTERM sent to reap are passed on to the command. reap exits
// with the command's status (128+N when signal N ended it).
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// grace is how long a process has between SIGTERM and SIGKILL: long enough
// for etcd and kube-apiserver to shut down, short enough that an
// interrupted `make test` returns promptly.
const grace = 5 * time.Second

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "usage: reap COMMAND [ARG...]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:]))
}

func run(argv []string) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "reap: PR_SET_CHILD_SUBREAPER: %v (reap needs Linux 3.4 or later)\n", err)
		return 2
	}
	path, err := lookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "reap: %v\n", err)
		return 127
	}
	// Signals are caught before the command starts, so none is lost, and
	// passed on while it runs.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "reap: starting %s: %v\n", argv[0], err)
		return 127
	}
	go func() {
		for s := range sigs {
			_ = proc.Signal(s)
		}
	}()
	status, usage := waitFor(proc.Pid)
	fmt.Fprintf(os.Stderr, "reap: %s ended (%s) after %v wall, %v CPU\n", short(argv), describe(status),
		time.Since(start).Round(time.Second), cpu(usage).Round(time.Second))
	reapAll()
	switch {
	case status.Exited():
		return status.ExitStatus()
	case status.Signaled():
		return 128 + int(status.Signal())
	}
	return 1
}

// waitFor waits for pid, reaping on the way every orphan re-parented to us
// that ends first (they would otherwise stay zombies until the command
// ends). The rusage is the command's and its waited-for descendants'.
func waitFor(pid int) (unix.WaitStatus, unix.Rusage) {
	for {
		var ws unix.WaitStatus
		var ru unix.Rusage
		got, err := unix.Wait4(-1, &ws, 0, &ru)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			// ECHILD: the command is gone and was reaped; nothing else to wait for.
			fmt.Fprintf(os.Stderr, "reap: wait: %v\n", err)
			return unix.WaitStatus(1 << 8), ru
		}
		if got == pid {
			return ws, ru
		}
	}
}

// reapAll ends every process below us, in rounds: a process may start
// another while it is being ended, and that one is ended in the next
// round.
func reapAll() {
	self := os.Getpid()
	killed := map[int]bool{}
	for round := 0; round < 10; round++ {
		left := descendants(self)
		if len(left) == 0 {
			break
		}
		for _, p := range left {
			if !killed[p.pid] {
				fmt.Fprintf(os.Stderr, "reap: left behind: pid %d %s; sending SIGTERM\n", p.pid, p.cmdline)
				killed[p.pid] = true
			}
			_ = unix.Kill(p.pid, unix.SIGTERM)
		}
		deadline := time.Now().Add(grace)
		for time.Now().Before(deadline) && len(descendants(self)) > 0 {
			reapZombies()
			time.Sleep(50 * time.Millisecond)
		}
		for _, p := range descendants(self) {
			fmt.Fprintf(os.Stderr, "reap: pid %d %s outlived SIGTERM by %v; sending SIGKILL\n", p.pid, p.cmdline, grace)
			_ = unix.Kill(p.pid, unix.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
		reapZombies()
	}
	reapZombies()
	if n := len(killed); n > 0 {
		fmt.Fprintf(os.Stderr, "reap: ended %d process(es) the command left behind\n", n)
	}
}

// reapZombies collects every child of ours that has ended.
func reapZombies() {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

// short is the command line for a log line: go test's list of packages can
// run to thousands of characters.
func short(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 120 {
		s = s[:120] + fmt.Sprintf("… (%d arguments)", len(argv))
	}
	return s
}

func describe(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return fmt.Sprintf("exit status %d", ws.ExitStatus())
}

func cpu(ru unix.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
