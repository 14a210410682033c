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

// forget drops the pages of data, whole pages from a page boundary, from
// the process's memory. MADV_DONTNEED on a shared file mapping only unmaps
// them: the file's bytes are read again from the page cache when next
// touched. With Strict, the pages are made unreadable as well.
func forget(data []byte) {
	if Strict {
		_ = unix.Mprotect(data, unix.PROT_NONE)
	}
	_ = unix.Madvise(data, unix.MADV_DONTNEED)
}

// unmap releases a mapping made by mapped.
func unmap(data []byte) { _ = syscall.Munmap(data) }
