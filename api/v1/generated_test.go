package v1_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesUpToDate regenerates the deepcopy code of every API
// package and the CRDs into a temporary folder and fails when the committed
// files differ, or when the generator writes a file nothing here compares.
func TestGeneratedFilesUpToDate(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "hack", "crd", "generate.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/crd/generate.sh: %v\n%s", err, b)
	}
	repo := filepath.Join("..", "..")
	// generated: the committed file of each fresh one, both from the
	// repository root and from out.
	generated := map[string]string{
		filepath.Join("v1", "zz_generated.deepcopy.go"):       filepath.Join("api", "v1", "zz_generated.deepcopy.go"),
		filepath.Join("v1alpha1", "zz_generated.deepcopy.go"): filepath.Join("api", "v1alpha1", "zz_generated.deepcopy.go"),
	}
	for _, crd := range []string{"cloudcredential.openshift.io_credentialsrequests.yaml", "leash.dev_credentialsupgradechecks.yaml"} {
		generated[filepath.Join("crd", crd)] = filepath.Join("deploy", "crd", crd)
	}
	for fresh, committed := range generated {
		want, err := os.ReadFile(filepath.Join(out, fresh))
		if err != nil {
			t.Fatalf("generator did not write %s: %v", fresh, err)
		}
		got, err := os.ReadFile(filepath.Join(repo, committed))
		if err != nil {
			t.Errorf("%s: %v; run hack/crd/generate.sh from the repository root", committed, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the types in api/; run hack/crd/generate.sh from the repository root and commit the result", committed)
		}
	}
	err := filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		if _, ok := generated[rel]; !ok {
			t.Errorf("generator wrote %s, which this test does not compare; add it here (and a CRD to deploy/crd/kustomization.yaml)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
