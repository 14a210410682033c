//go:build unix

package mapfile

import (
	"os"
	"syscall"
)

// mapped maps the file read-only; the mapping outlives the file's closing.
func mapped(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}
