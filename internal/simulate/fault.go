package simulate

import (
	"runtime/debug"
	"unsafe"

	"leash.dev/leash/internal/inputerr"
)

// mappedInput is the request file a stream reads mapped, for telling a
// fault in its pages from any other. A file truncated while it is read
// loses pages, and reading them faults (SIGBUS); each goroutine that reads
// the requests asks the runtime for a panic rather than a crash on such a
// fault (debug.SetPanicOnFault), and recovers it as an error that says
// what happened. A zero mappedInput (input streamed from a reader: stdin,
// a pipe, a small file) has no pages to lose.
type mappedInput struct {
	source     string
	start, end uintptr
}

func newMappedInput(source string, data []byte) mappedInput {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return mappedInput{source: source, start: start, end: start + uintptr(len(data))}
}

// guard makes a fault of the calling goroutine a panic, when m is a
// mapping; the returned function puts its setting back.
func (m mappedInput) guard() (restore func()) {
	if m.end == 0 {
		return func() {}
	}
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// fault returns the error of v, a value recovered, when it is a fault in
// the file's pages, and panics again with any other.
func (m mappedInput) fault(v any) error {
	if f, ok := v.(interface{ Addr() uintptr }); ok && m.start <= f.Addr() && f.Addr() < m.end {
		return &inputerr.Error{Source: m.source, Msg: "changed while it was read: it was truncated or rewritten; give a file that nothing is writing"}
	}
	panic(v)
}
