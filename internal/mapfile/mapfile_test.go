package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Small files are read, large ones mapped; both give the file's bytes.
func TestReadGivesTheFilesBytes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 10, minMapped - 1, minMapped, 3*minMapped + 17} {
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path)
		if err != nil {
			t.Fatalf("%d bytes: %v", size, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%d bytes: read %d bytes that differ", size, len(got))
		}
	}
	if _, err := Read(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want a not-exist error", err)
	}
}
