package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteKeepsTheRequestedMode(t *testing.T) {
	for _, mode := range []fs.FileMode{0o600, 0o644, 0o400} {
		t.Run(mode.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f")
			if err := Write(path, []byte("x"), mode); err != nil {
				t.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if info.Mode().Perm() != mode {
				t.Errorf("mode %v, want %v", info.Mode().Perm(), mode)
			}
		})
	}
}

func TestWriteReplacesTheContentWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "credentials")
	if err := os.WriteFile(path, []byte("a much longer first version of the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "short\n" {
		t.Errorf("file holds %q (%v), want exactly %q", got, err, "short\n")
	}
	assertOnly(t, dir, "credentials")
}

func TestWriteLeavesNoTemporaryFileOnError(t *testing.T) {
	dir := t.TempDir()
	// A non-empty folder where the file should be: the rename fails after
	// the temporary file is written.
	path := filepath.Join(dir, "secret.yaml")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("data"), 0o600); err == nil {
		t.Fatal("Write over a non-empty folder succeeded")
	}
	assertOnly(t, dir, "secret.yaml")
	if info, err := os.Stat(path); err != nil || !info.IsDir() {
		t.Errorf("the folder in the way was changed: %v, %v", info, err)
	}
}

func TestWriteIntoAMissingFolderFails(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "missing", "f"), []byte("x"), 0o600); err == nil {
		t.Error("Write created the folder or wrote nowhere without an error")
	}
}

// assertOnly fails unless dir holds exactly the named entry.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != name {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only %s", names, name)
	}
}
