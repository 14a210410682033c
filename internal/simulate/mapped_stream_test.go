package simulate_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"leash.dev/leash/internal/mapfile"
	"leash.dev/leash/internal/simulate"
)

// A request file of more than a megabyte is read mapped, the requests
// slices of the mapping, which the writer forgets as it answers and the
// stream releases at its end. Its answers are those of the same bytes read
// from stdin, in an array and in JSON Lines. The pages forgotten are made
// unreadable (mapfile.Strict): nothing reads a request's bytes once it is
// answered, not even the document cache, whose shared SCP every request
// names alike.
func TestSimulateMappedFileAnswersAsStdin(t *testing.T) {
	mapfile.Strict = true
	defer func() { mapfile.Strict = false }()
	for _, lines := range []bool{false, true} {
		file, want := writeBatch(t, 12000, 7000, lines)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 4<<20 {
			t.Fatalf("the batch is %d bytes; it must be over 4 MiB to be mapped and forgotten in part", len(data))
		}
		var fromFile, fromStdin bytes.Buffer
		errFile := simulate.Execute(simulate.Options{Request: file, Output: simulate.OutputJSON}, nil, &fromFile)
		errStdin := simulate.Execute(simulate.Options{Request: "-", Output: simulate.OutputJSON}, bytes.NewReader(data), &fromStdin)
		if errFile == nil || errStdin == nil || strings.ReplaceAll(errFile.Error(), file, "stdin") != errStdin.Error() {
			t.Errorf("errors differ:\nfile:  %v\nstdin: %v", errFile, errStdin)
		}
		got := strings.ReplaceAll(fromFile.String(), file, "stdin")
		if got != fromStdin.String() {
			t.Errorf("lines=%v: the mapped file's answers differ from stdin's", lines)
		}
		if n := strings.Count(got, `"decision"`); n != len(want) {
			t.Errorf("lines=%v: %d answers, want %d", lines, n, len(want))
		}
	}
}

// failingWriter takes n bytes and then fails.
type failingWriter struct{ n int }

var errFull = errors.New("no space left")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errFull
	}
	w.n -= len(p)
	return len(p), nil
}

// A writer that fails early ends the stream while requests are in flight:
// the stream waits for its workers before releasing the mapping they read,
// so it returns the write error rather than faulting, every time.
func TestSimulateMappedFileWriterFailsEarly(t *testing.T) {
	file, _ := writeBatch(t, 12000, -1, true)
	if st, err := os.Stat(file); err != nil || st.Size() < 1<<20 {
		t.Fatalf("the batch must be over 1 MiB to be mapped: %v", err)
	}
	for range 20 {
		err := simulate.Execute(simulate.Options{Request: file, Output: simulate.OutputJSON}, nil, &failingWriter{n: 100 << 10})
		if !errors.Is(err, errFull) {
			t.Fatalf("Execute = %v, want the write error", err)
		}
	}
}
