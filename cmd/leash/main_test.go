package main

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitStatus builds the real binary and checks that main passes the exit
// status of cli.Run to the shell, which scripts and CI depend on.
func TestExitStatus(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "leash")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const examples = "../../examples/simulate/"
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"every request allowed exits 0", []string{"simulate", "--identity", examples + "cloud-controller-manager.json", "--action", "ec2:DescribeInstances"}, 0, "Allowed", ""},
		{"a denied request exits 1", []string{"simulate", "--request", examples + "requests.json"}, 1, "ImplicitDeny", ""},
		{"bad input exits 2 with the message on stderr", []string{"simulate", "--identity", examples + "cloud-controller-manager.json"}, 2, "", "leash simulate: --action: missing"},
		{"--help exits 0", []string{"simulate", "--help"}, 0, "Examples:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(bin, tt.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantCode {
				t.Errorf("exit status %d, want %d\nstderr: %s", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, stdout.String())
			}
			if tt.wantStderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestVersionShowsBuild builds the binary as make release does, with a
// stamped version and the commit recorded, and checks that leash version
// and --version print both: what a user quotes in a bug report.
func TestVersionShowsBuild(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v (the test runs in a clone, as CI's is)", err)
	}
	commit := strings.TrimSpace(string(head))
	bin := filepath.Join(t.TempDir(), "leash")
	build := exec.Command("go", "build", "-buildvcs=true", "-ldflags", "-X leash.dev/leash/internal/buildinfo.version=v9.9.9-test", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("leash %v: %v", args, err)
		}
		if !strings.HasPrefix(string(out), "leash v9.9.9-test commit "+commit) || !strings.Contains(string(out), " go1.") {
			t.Errorf("leash %v printed %q; want the version, commit %s and the Go version", args, out, commit)
		}
	}
	out, err := exec.Command(bin, "version", "--output", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"version": "v9.9.9-test"`) || !strings.Contains(string(out), `"commit": "`+commit+`"`) {
		t.Errorf("leash version --output json:\n%s", out)
	}
}
