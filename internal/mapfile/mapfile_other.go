//go:build !unix

package mapfile

import (
	"errors"
	"os"
)

// mapped is not offered here: Read reads the file instead.
func mapped(*os.File, int) ([]byte, error) {
	return nil, errors.New("files are not mapped on this platform")
}

// forget and unmap are never called here: nothing is mapped.
func forget([]byte) {}
func unmap([]byte)  {}
