//go:build unix

package mapfile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapped maps the file read-only; the mapping outlives the file's closing.
func mapped(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
}

// forget drops the whole pages of data[:n] from the process's memory.
// MADV_DONTNEED on a shared file mapping only unmaps the pages: the file's
// bytes are read again from the page cache when next touched.
func forget(data []byte, n int) {
	n -= n % os.Getpagesize()
	if n > 0 {
		_ = unix.Madvise(data[:n], unix.MADV_DONTNEED)
	}
}

// unmap releases a mapping made by mapped.
func unmap(data []byte) { _ = syscall.Munmap(data) }
