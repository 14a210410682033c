package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// process is a running process below reap, as /proc shows it.
type process struct {
	pid     int
	cmdline string
}

// descendants lists the live processes below root (zombies, which have
// ended and wait only to be reaped, are left out), read from every
// /proc/PID/stat's parent field.
func descendants(root int) []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := stat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		parent[pid] = ppid
	}
	var out []process
	for pid := range parent {
		for p := parent[pid]; p != 0; p = parent[p] {
			if p == root {
				out = append(out, process{pid: pid, cmdline: cmdline(pid)})
				break
			}
			if _, known := parent[p]; !known {
				break
			}
		}
	}
	return out
}

// stat reads the state and parent of pid from /proc/PID/stat, whose second
// field, the command name in parentheses, may itself hold spaces and
// parentheses: the fields that follow start after the last ')'.
func stat(pid int) (ppid int, state byte, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0][0], err == nil
}

// cmdline is pid's command line as /proc shows it, shortened for a log line.
func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if s == "" {
		return "(no command line)"
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

// lookPath finds the command as a shell would, and says so when it cannot.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return filepath.Abs(p)
}
