package image

import (
	"debug/macho"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseBinaries runs make release's script for one platform that is
// not this machine's (darwin/arm64) and checks what a user downloads: the
// binary named by version and platform, a Mach-O for arm64, and a
// SHA256SUMS that sha256sum -c accepts. hack/image.sh builds the linux
// binaries through the same script (TestImageArchives).
func TestReleaseBinaries(t *testing.T) {
	dist := t.TempDir()
	build := exec.Command("hack/release.sh")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "DIST="+dist, "VERSION="+version, "PLATFORMS=darwin/arm64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("hack/release.sh: %v\n%s", err, out)
	}
	name := "leash-" + version + "-darwin-arm64"
	f, err := macho.Open(filepath.Join(dist, name))
	if err != nil {
		t.Fatalf("%s is not a Mach-O binary: %v", name, err)
	}
	if f.Cpu != macho.CpuArm64 {
		t.Errorf("%s is for %v, want arm64", name, f.Cpu)
	}
	_ = f.Close()
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dist
	out, err := check.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != name+": OK" {
		t.Errorf("sha256sum -c SHA256SUMS: %v\n%s", err, out)
	}

	bad := exec.Command("hack/release.sh")
	bad.Dir = build.Dir
	bad.Env = append(os.Environ(), "DIST="+t.TempDir(), "VERSION=v1 two", "PLATFORMS=darwin/arm64")
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "VERSION v1 two") {
		t.Errorf("a VERSION with a space: %v\n%s; want it refused, naming VERSION", err, out)
	}
}
