// Package atomicfile replaces a file's contents whole or not at all, so a
// crash or a full disk never leaves a reader half a file: leash local's
// administrator credentials and the folder cluster's Secrets are read back
// after a restart.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data and mode. It writes a temporary file in
// path's folder (a rename is atomic only within one file system), syncs it,
// renames it over path and syncs the folder so the rename itself survives a
// crash. On error path is unchanged and no temporary file is left.
func Write(path string, data []byte, mode fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(mode); err == nil {
		if _, err = tmp.Write(data); err == nil {
			err = tmp.Sync()
		}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a folder's entries durable: the rename lives in the folder,
// not in the file.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
