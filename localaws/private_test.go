package localaws_test

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"leash.dev/leash/localaws"
)

// nobody is a uid that is not the test's, for files leash local must not
// change.
const nobody = 65534

// openLogged opens dir and returns the server (nil when refused), what was
// logged and the error.
func openLogged(t *testing.T, dir string) (*localaws.Server, string, error) {
	t.Helper()
	var log bytes.Buffer
	srv, err := localaws.Open(localaws.Config{DataDir: dir, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err == nil {
		t.Cleanup(func() { _ = srv.Close() })
	}
	return srv, log.String(), err
}

func modeOf(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// TestLooseDataFolderIsTightened pins that an existing data folder or
// admin credentials file open to group or others is made 0700 or 0600 on
// start, with a line saying what it was; a private one is left alone and
// nothing is said.
func TestLooseDataFolderIsTightened(t *testing.T) {
	cases := []struct {
		name            string
		folder, file    fs.FileMode // 0: leave as created
		wantLog         []string
		wantNoLogPhrase string
	}{
		{"a folder of mode 0755 becomes 0700", 0o755, 0, []string{"data folder", "was mode 0755", "made it 0700"}, "admin credentials file"},
		{"a folder of mode 0710 becomes 0700", 0o710, 0, []string{"was mode 0710", "made it 0700"}, ""},
		{"a credentials file of mode 0644 becomes 0600", 0, 0o644, []string{"admin credentials file", "was mode 0644", "made it 0600"}, "data folder"},
		{"a credentials file of mode 0604 becomes 0600", 0, 0o604, []string{"was mode 0604", "made it 0600"}, ""},
		{"a private folder and file are left alone", 0, 0, nil, "mode"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			first, _, err := openLogged(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := first.Close(); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, localaws.AdminCredentialsFile)
			if tc.folder != 0 {
				if err := os.Chmod(dir, tc.folder); err != nil {
					t.Fatal(err)
				}
			}
			if tc.file != 0 {
				if err := os.Chmod(file, tc.file); err != nil {
					t.Fatal(err)
				}
			}
			_, log, err := openLogged(t, dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := modeOf(t, dir); got != 0o700 {
				t.Errorf("data folder mode %04o, want 0700", got)
			}
			if got := modeOf(t, file); got != 0o600 {
				t.Errorf("credentials file mode %04o, want 0600", got)
			}
			for _, w := range tc.wantLog {
				if !strings.Contains(log, w) {
					t.Errorf("the log lacks %q:\n%s", w, log)
				}
			}
			if tc.wantNoLogPhrase != "" && strings.Contains(log, tc.wantNoLogPhrase) {
				t.Errorf("the log speaks of %q, which was private:\n%s", tc.wantNoLogPhrase, log)
			}
		})
	}
}

// TestLooseFolderOfAnotherUserIsRefused pins that a loose data folder or
// credentials file that is not the user's is refused with the fix and left
// as it was, and nothing is created in the folder.
func TestLooseFolderOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		// Only root can give a file away; a folder root owns stands in.
		_, _, err := openLogged(t, "/usr")
		if err == nil || !strings.Contains(err.Error(), "belongs to uid 0, not to this user") {
			t.Fatalf("Open /usr as uid %d: %v, want a refusal naming the owner", os.Geteuid(), err)
		}
		return
	}
	t.Run("a folder of another user's", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		_, _, err := openLogged(t, dir)
		for _, w := range []string{"data folder " + dir, "mode 0755", "belongs to uid " + strconv.Itoa(nobody), "chmod 700 " + dir} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Open: %v, want a refusal with %q", err, w)
			}
		}
		if got := modeOf(t, dir); got != 0o755 {
			t.Errorf("the refused folder's mode is %04o, want it left at 0755", got)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("the refused start left %d files in the folder", len(entries))
		}
	})
	t.Run("a credentials file of another user's", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		first, _, err := openLogged(t, dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, localaws.AdminCredentialsFile)
		if err := os.Chmod(file, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(file, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		_, _, err = openLogged(t, dir)
		for _, w := range []string{"admin credentials file " + file, "mode 0644", "chmod 600 " + file} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Open: %v, want a refusal with %q", err, w)
			}
		}
		if got := modeOf(t, file); got != 0o644 {
			t.Errorf("the refused file's mode is %04o, want it left at 0644", got)
		}
	})
}

// TestDataFolderOfAnotherUserOrWritableByOthersIsRefused pins that leash
// local, root included, will not start on a data folder (or on a file it
// writes there) that belongs to another uid, whatever its mode: that user
// would hold the administrator's key; nor on one writable by group or
// others, where someone else may already have put or replaced a file.
// The refusal names the path, the owner or mode found and the fix, and
// leaves everything as it was.
func TestDataFolderOfAnotherUserOrWritableByOthersIsRefused(t *testing.T) {
	const other = 12345
	type setup struct {
		started      bool        // open the folder once first, so that its files exist
		path         string      // in the folder, "" for the folder itself
		mode         fs.FileMode // 0: leave as created
		owner        int         // 0: leave as created
		needsAnother bool        // needs root to give the file away
	}
	cases := []struct {
		name  string
		setup setup
		words []string
	}{
		{"a private folder of another uid is refused", setup{mode: 0o700, owner: other, needsAnother: true},
			[]string{"data folder", "belongs to uid 12345", "not to this user", "chown", "a data folder of its own"}},
		{"a private credentials file of another uid is refused", setup{started: true, path: localaws.AdminCredentialsFile, mode: 0o600, owner: other, needsAnother: true},
			[]string{"admin credentials file", "belongs to uid 12345", "chown"}},
		{"a private state file of another uid is refused", setup{started: true, path: localaws.StateFile, mode: 0o600, owner: other, needsAnother: true},
			[]string{"state file", "belongs to uid 12345", "chown"}},
		{"a folder of our own with mode 0777 is refused", setup{mode: 0o777},
			[]string{"data folder", "mode 0777, writable by other users", "a new data folder", "chmod 700"}},
		{"a folder of our own with mode 0770 is refused", setup{started: true, mode: 0o770},
			[]string{"data folder", "mode 0770, writable by other users"}},
		{"a credentials file of mode 0622 is refused", setup{started: true, path: localaws.AdminCredentialsFile, mode: 0o622},
			[]string{"admin credentials file", "mode 0622, writable by other users", "chmod 600"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.setup.needsAnother && os.Geteuid() != 0 {
				// Only root can give a file away; a folder root owns
				// stands in.
				_, _, err := openLogged(t, "/usr")
				if err == nil || !strings.Contains(err.Error(), "belongs to uid 0, not to this user") {
					t.Fatalf("Open /usr as uid %d: %v, want a refusal naming the owner", os.Geteuid(), err)
				}
				return
			}
			dir := filepath.Join(t.TempDir(), "data")
			if tc.setup.started {
				first, _, err := openLogged(t, dir)
				if err != nil {
					t.Fatal(err)
				}
				if err := first.Close(); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, tc.setup.path)
			if tc.setup.mode != 0 {
				if err := os.Chmod(path, tc.setup.mode); err != nil {
					t.Fatal(err)
				}
			}
			if tc.setup.owner != 0 {
				if err := os.Chown(path, tc.setup.owner, tc.setup.owner); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadDir(dir)
			mode := modeOf(t, path)
			srv, _, err := openLogged(t, dir)
			if err == nil {
				t.Fatalf("Open started on %s; want a refusal", path)
			}
			if srv != nil {
				t.Fatal("Open returned a server with its error")
			}
			for _, w := range append([]string{path + " "}, tc.words...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Open: %v\nwant a refusal with %q", err, w)
				}
			}
			if got := modeOf(t, path); got != mode {
				t.Errorf("the refused %s is mode %04o now, want it left at %04o", path, got, mode)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("the refused start changed the folder's files from %d to %d", len(before), len(after))
			}
		})
	}
	t.Run("a fresh folder starts", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if _, _, err := openLogged(t, dir); err != nil {
			t.Fatalf("Open a fresh folder: %v", err)
		}
		if got := modeOf(t, dir); got != 0o700 {
			t.Errorf("fresh data folder mode %04o, want 0700", got)
		}
	})
}
