package localaws

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
)

// makePrivate makes sure that path, when it exists, is open to its owner
// alone: the data folder holds every secret key and the administrator's
// credentials file a key that can do anything. One with group or other
// permission bits is tightened to mode want, with a line on log saying so;
// one leash local cannot tighten (another user's, or on a file system that
// keeps no modes) is refused with the fix, never reported private. what
// names it in messages ("data folder").
func makePrivate(path string, want fs.FileMode, what string, log *slog.Logger) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, path, err)
	}
	was := fi.Mode().Perm()
	if was&0o077 == 0 {
		return nil
	}
	fix := fmt.Sprintf("as its owner, run `chmod %o %s`, or give leash local a %s of its own", want, path, what)
	if uid, ok := ownerOf(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s %s is mode %04o, open to other users, and belongs to uid %d, not to this user (uid %d), "+
			"so leash local will not change it: %s", what, path, was, uid, os.Geteuid(), fix)
	}
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
