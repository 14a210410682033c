package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApplyRefusesBadGuardrails pins that leash apply refuses to start,
// exit 2 and naming the problem, on a ceiling or severity it cannot use.
func TestApplyRefusesBadGuardrails(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ceiling.json")
	if err := os.WriteFile(bad, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*"`), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a ceiling that does not parse", []string{"--ceiling", bad}, "ceiling: "},
		{"a ceiling file that does not exist", []string{"--ceiling", filepath.Join(dir, "none.json")}, "--ceiling: "},
		{"a ceiling with a permissions boundary", []string{"--ceiling", good, "--permissions-boundary", "arn:aws:iam::123456789012:policy/b"}, "give one of them"},
		{"an unknown severity", []string{"--refuse-escalation", "severe"}, "--refuse-escalation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"apply", "-f", filepath.Join("..", "examples"), "--data", filepath.Join(t.TempDir(), "data")}, tt.args...)
			_, stderr, code := run(t, args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}
