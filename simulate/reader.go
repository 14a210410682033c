package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"leash.dev/leash/internal/inputerr"
)

// Reader reads requests one at a time from a JSON array, one object, JSON
// Lines or objects one after another, so that a batch of any size is read in
// constant memory. A request that is JSON but not a request object comes back
// as a Case whose Compile fails, and reading goes on; JSON that is not well
// formed ends the reading, since no decoder can tell where the next request
// starts.
type Reader struct {
	source string
	dec    *json.Decoder
	lines  *lineCounter
	array  bool
	n      int // requests read
	done   bool
	// alone receives, once the reader has looked past the first object of
	// a non-array input, whether that object was the only one.
	alone chan bool
}

// NewReader checks that in starts like requests (an array or an object) and
// returns a Reader over them.
func NewReader(in io.Reader, source string) (*Reader, error) {
	br := bufio.NewReader(in)
	skipped := 0 // newlines before the first value
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return nil, &inputerr.Error{Source: source, Msg: "is empty; give a request object, an array of them, or JSON Lines"}
		}
		if err != nil {
			return nil, &inputerr.Error{Source: source, Msg: "cannot read: " + err.Error()}
		}
		switch b {
		case ' ', '\t', '\r':
			continue
		case '\n':
			skipped++
			continue
		}
		_ = br.UnreadByte()
		if b != '[' && b != '{' {
			return nil, &inputerr.Error{Source: source, Msg: fmt.Sprintf(
				"not valid JSON requests: starts with %q; give a request object, an array of them, or JSON Lines", b)}
		}
		break
	}
	lines := &lineCounter{r: br, counted: skipped}
	r := &Reader{source: source, dec: json.NewDecoder(lines), lines: lines}
	r.dec.DisallowUnknownFields()
	if first, _ := br.Peek(1); first[0] == '[' {
		r.array = true
		if _, err := r.dec.Token(); err != nil {
			return nil, r.syntax(err)
		}
	}
	return r, nil
}

// Next returns the next request, or io.EOF after the last. Any other error
// is input that cannot be read further, an *inputerr.Error.
func (r *Reader) Next() (*Case, error) {
	if r.done {
		return nil, io.EOF
	}
	more := r.dec.More()
	if r.alone != nil {
		r.alone <- !more
		r.alone = nil
	}
	if !more {
		return nil, r.end()
	}
	i := r.n
	r.n++
	c := new(Case)
	err := r.dec.Decode(c)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		r.done = true
		return nil, r.syntax(err)
	}
	if r.array {
		c.path = fmt.Sprintf("[%d]", i)
	} else {
		line := fmt.Sprintf("line %d", r.lines.before(r.dec.InputOffset()))
		if i == 0 {
			// A lone object's errors need no line. Whether it is alone is
			// known only when the next Next looks on; an error waits for
			// that, an answer does not, lest a caller feeding one request
			// at a time wait for its own next request.
			alone := make(chan bool, 1)
			r.alone = alone
			c.locate = func() string {
				if <-alone {
					return ""
				}
				return line
			}
		} else {
			c.path = line
		}
	}
	if err != nil {
		// The fields read are kept to name the request in the output.
		c.bad = "not a request object: " + err.Error() +
			" (fields: principal, action, resource, resourceAccount, context, identityPolicies, resourcePolicy, permissionsBoundary, scps, rcps, sessionPolicy)"
	}
	return c, nil
}

// end checks what follows the last request: the closing bracket of an
// array, then nothing.
func (r *Reader) end() error {
	r.done = true
	if r.array {
		if _, err := r.dec.Token(); err != nil {
			return r.syntax(err)
		}
	}
	if _, err := r.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the requests")
		}
		return r.syntax(err)
	}
	return io.EOF
}

// syntax reports JSON that is not well formed, at the request it broke.
func (r *Reader) syntax(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	var rerr *readError
	if errors.As(err, &rerr) {
		return &inputerr.Error{Source: r.source, Msg: "cannot read: " + rerr.err.Error()}
	}
	field := fmt.Sprintf("request %d", r.n)
	if r.n == 0 {
		field = ""
	}
	return &inputerr.Error{Source: r.source, Field: field, Msg: fmt.Sprintf(
		"not valid JSON at line %d: %v", r.lines.before(r.dec.InputOffset()), err)}
}

// lineCounter passes reads through, remembering where the newlines are so
// that a request can be named by its line without keeping the input.
type lineCounter struct {
	r       io.Reader
	off     int64   // bytes read so far
	nl      []int64 // offsets of newlines not yet counted
	counted int     // newlines before the last offset asked for
}

// readError marks a failure of the underlying reader, as against bad JSON.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }

func (l *lineCounter) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			break
		}
		l.nl = append(l.nl, l.off+int64(i+j))
		i += j + 1
	}
	l.off += int64(n)
	if err != nil && err != io.EOF {
		err = &readError{err}
	}
	return n, err
}

// before returns the line number (from 1) of the byte just before end.
// Offsets asked for never go back, so counted newlines are dropped.
func (l *lineCounter) before(end int64) int {
	i := 0
	for i < len(l.nl) && l.nl[i] < end-1 {
		i++
	}
	l.counted += i
	l.nl = l.nl[i:]
	return l.counted + 1
}
