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

// Forgetting the start of a mapped file changes none of its bytes: the
// pages are read again from the page cache when next touched. A read file
// is left as it is.
func TestForgetKeepsTheBytes(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{minMapped / 2, 5*minMapped + 123} {
		want := bytes.Repeat([]byte("leash maps files "), size/17+1)[:size]
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.mapped != (size >= minMapped) {
			t.Errorf("%d bytes: mapped = %v", size, f.mapped)
		}
		f.Forget(size / 2)
		f.Forget(size)
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%d bytes: the bytes differ after Forget", size)
		}
		f.Close()
		if f.Data != nil {
			t.Errorf("%d bytes: Data kept after Close", size)
		}
	}
}
