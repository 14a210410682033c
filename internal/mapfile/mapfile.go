// Package mapfile reads a large input file by mapping it into memory. A
// snapshot of a large account is tens or hundreds of megabytes read once
// and sliced into strings that live as long as the answer: mapped, its
// pages come from the page cache as they are read, where reading it would
// first fault in and zero as much fresh memory, the larger cost on a
// virtual machine. The bytes are read-only: writing to them faults.
package mapfile

import "os"

// minMapped is the smallest file mapped; smaller ones are read.
const minMapped = 1 << 20

// Read returns the file's bytes, mapped when it is a regular file of at
// least a megabyte and the platform maps files, else read. The mapping is
// never released: callers keep slices of it for the life of the process.
// A file truncated while mapped makes later reads of the lost pages fault
// (SIGBUS): give a snapshot nothing is writing.
func Read(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	return f.Data, nil
}

// File is a file's bytes, mapped or read, for a caller done with them
// before the process ends.
type File struct {
	Data      []byte
	mapped    bool
	forgotten int // Data[:forgotten] is forgotten (whole pages)
}

// Open returns the file's bytes as Read does; Close releases them.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if m := Map(f); m != nil {
		return m, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &File{Data: data}, nil
}

// Map maps the open file f when it is a regular file of at least a
// megabyte and the platform maps files; else it returns nil, and f is
// for the caller to read (a pipe, a device or a small file). The mapping
// outlives f's closing.
func Map(f *os.File) *File {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < minMapped || int64(int(st.Size())) != st.Size() {
		return nil
	}
	data, err := mapped(f, int(st.Size()))
	if err != nil {
		return nil
	}
	return &File{Data: data, mapped: true}
}

// Forget tells the system that Data[:n] will not be read again soon: a
// mapped file's pages there leave the process's memory (they stay in the
// page cache, and a later read brings them back). A file read sequentially
// then holds only the pages in use, however large it is.
func (f *File) Forget(n int) {
	if !f.mapped {
		return
	}
	n -= n % os.Getpagesize()
	if n > f.forgotten {
		forget(f.Data[f.forgotten:n])
		f.forgotten = n
	}
}

// Strict makes Forget also take away access to the pages it forgets, so
// that reading them faults: tests set it to prove that a reader lets go of
// what it forgets.
var Strict bool

// Close releases the bytes: no slice of Data may be used after it.
func (f *File) Close() {
	if f.mapped {
		unmap(f.Data)
	}
	f.Data = nil
}
