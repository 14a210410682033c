package v1_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesUpToDate regenerates the deepcopy code and the CRD into a
// temporary folder and fails when the committed files differ.
func TestGeneratedFilesUpToDate(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "crd", "generate.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/crd/generate.sh: %v\n%s", err, b)
	}
	for committed, fresh := range map[string]string{
		"zz_generated.deepcopy.go": filepath.Join(out, "zz_generated.deepcopy.go"),
		filepath.Join("..", "..", "deploy", "crd", "cloudcredential.openshift.io_credentialsrequests.yaml"): filepath.Join(out, "cloudcredential.openshift.io_credentialsrequests.yaml"),
	} {
		want, err := os.ReadFile(fresh)
		if err != nil {
			t.Fatalf("generator did not write %s: %v", filepath.Base(fresh), err)
		}
		got, err := os.ReadFile(committed)
		if err != nil {
			t.Errorf("%s: %v; run hack/crd/generate.sh from the repository root", committed, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the types in api/v1; run hack/crd/generate.sh from the repository root and commit the result", committed)
		}
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("generator wrote %v; want only the deepcopy file and one CRD", names)
	}
}
