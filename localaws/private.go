package localaws

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"leash.dev/leash/localaws/audit"
)

// dataFile is one thing leash local keeps in the data folder, with the mode
// it makes it and what messages call it.
type dataFile struct {
	path string
	mode fs.FileMode
	what string
}

// dataFiles are the data folder and what leash local writes in it, the
// folder first: every one holds or guards secret keys.
func dataFiles(cfg *Config) []dataFile {
	files := []dataFile{
		{cfg.DataDir, 0o700, "data folder"},
		{filepath.Join(cfg.DataDir, StateFile), 0o600, "state file"},
		{filepath.Join(cfg.DataDir, AdminCredentialsFile), 0o600, "admin credentials file"},
		{filepath.Join(cfg.DataDir, audit.FileName), 0o600, "audit log"},
		{filepath.Join(cfg.DataDir, AccountsDir), 0o700, "accounts folder"},
	}
	for _, id := range cfg.OtherAccounts {
		dir := filepath.Join(cfg.DataDir, AccountsDir, id)
		files = append(files,
			dataFile{dir, 0o700, "account folder"},
			dataFile{filepath.Join(dir, StateFile), 0o600, "state file"},
			dataFile{filepath.Join(dir, AdminCredentialsFile), 0o600, "admin credentials file"})
	}
	return files
}

// checkDataFolder makes sure the data folder and the files leash local
// writes in it, those that exist, are this user's alone, before anything
// is read or written there: see makePrivate.
func checkDataFolder(cfg *Config) error {
	for _, f := range dataFiles(cfg) {
		if err := makePrivate(f.path, f.mode, f.what, cfg.Log); err != nil {
			return err
		}
	}
	return nil
}

// makePrivate makes sure that path, when it exists, belongs to this user
// (the effective uid, root included) and is open to its owner alone: the
// data folder holds every secret key and the administrator's credentials
// file a key that can do anything.
//
//   - One of another user is refused, whatever its mode: its owner could
//     read the keys leash local writes there, or change them.
//   - One writable by group or others is refused: someone else may already
//     have put or replaced a file in it, which tightening it now would not
//     undo.
//   - One only readable by group or others is tightened to mode want, with
//     a line on log saying so.
//
// Refusals name the owner or mode found and the fix. what names path in
// messages ("data folder").
func makePrivate(path string, want fs.FileMode, what string, log *slog.Logger) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	was := fi.Mode().Perm()
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s %s (mode %04o) belongs to uid %d, not to this user (uid %d): its owner could read or change "+
			"the keys leash local keeps there, so leash local will not use it; "+
			"run `chown %d %s && chmod %o %s`, or give leash local a data folder of its own (--data)",
			what, path, was, uid, os.Geteuid(), os.Geteuid(), path, want, path)
	}
	if was&0o022 != 0 {
		return fmt.Errorf("%s %s is mode %04o, writable by other users, who may have put or replaced what it holds, "+
			"so leash local will not use it: give leash local a new data folder of its own (--data), "+
			"or, if you know nobody else changed it, run `chmod %o %s`", what, path, was, want, path)
	}
	if was&0o077 == 0 {
		return nil
	}
	fix := fmt.Sprintf("as its owner, run `chmod %o %s`, or give leash local a %s of its own", want, path, what)
	if err := os.Chmod(path, want); err != nil {
		return fmt.Errorf("%s %s is mode %04o, open to other users, and cannot be made %04o: %w; %s", what, path, was, want, err, fix)
	}
	now, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	if got := now.Mode().Perm(); got != want {
		return fmt.Errorf("%s %s is mode %04o, open to other users, and is still %04o after a change to %04o "+
			"(does its file system keep modes?): %s", what, path, was, got, want, fix)
	}
	log.Warn(fmt.Sprintf("%s %s was mode %04o, open to other users; made it %04o", what, path, was, want))
	return nil
}

// modeOf says what mode path has, for a person: printed from the file
// itself, so that nothing claims a mode the file does not have.
func modeOf(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return "mode unknown: " + err.Error()
	}
	return fmt.Sprintf("mode %04o", fi.Mode().Perm())
}
