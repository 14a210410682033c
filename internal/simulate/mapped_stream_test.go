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

// truncatingWriter truncates file at its first write: the request file
// loses its pages while the stream still reads it.
type truncatingWriter struct {
	file string
	done bool
}

func (w *truncatingWriter) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		if err := os.Truncate(w.file, 0); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// A request file truncated while it is read (regenerated in place, say)
// makes the pages not yet read fault (SIGBUS): the run ends with an error
// that names the file and says it changed, rather than a crash, whichever
// goroutine was reading, in JSON and in table output.
func TestSimulateMappedFileTruncatedWhileRead(t *testing.T) {
	for _, output := range []string{simulate.OutputJSON, simulate.OutputTable} {
		file, _ := writeBatch(t, 12000, -1, true)
		err := simulate.Execute(simulate.Options{Request: file, Output: output}, nil, &truncatingWriter{file: file})
		if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "changed while it was read") {
			t.Errorf("%s: Execute = %v, want an error naming the file and the change", output, err)
		}
	}
}
