package simulate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	gojson "github.com/goccy/go-json"

	"leash.dev/leash/internal/inputerr"
)

// Reader reads requests one at a time from a JSON array, one object, JSON
// Lines or objects one after another, so that a batch of any size is read in
// constant memory. A request that is JSON but not a request object comes back
// as a Case whose Compile fails, and reading goes on; JSON that is not well
// formed ends the reading, since no decoder can tell where the next request
// starts.
//
// Reading is split in two so that a stream decodes on every core: next
// only finds each request's bytes (one goroutine must, in input order), and
// decode, which may run anywhere, makes the Case of them.
type Reader struct {
	source string
	s      splitter
	array  bool
	n      int // requests read
	done   bool
	// alone receives, once the reader has looked past the first object of
	// a non-array input, whether that object was the only one.
	alone chan bool
	size  int // the length of input held in memory
}

// offset is how far the reader has read input held in memory (0 for input
// from a reader).
func (r *Reader) offset() int { return r.size - len(r.s.mem) }

// request is one request's bytes as read, before decoding.
type request struct {
	data      []byte
	n         int  // its number in the input, from 1
	line      int  // the line of its first byte
	truncated bool // the input ended inside it
	path      string
	locate    func() string
}

// NewReader checks that in starts like requests (an array or an object) and
// returns a Reader over them.
func NewReader(in io.Reader, source string) (*Reader, error) {
	return newReader(splitter{br: bufio.NewReaderSize(in, 64<<10), line: 1}, source)
}

// newMemReader is NewReader over input already in memory: the requests'
// bytes are slices of data, which must stay unchanged while they are used.
func newMemReader(data []byte, source string) (*Reader, error) {
	return newReader(splitter{mem: data, line: 1}, source)
}

func newReader(s splitter, source string) (*Reader, error) {
	r := &Reader{source: source, s: s, size: len(s.mem)}
	c, err := r.s.peek()
	if err == io.EOF {
		return nil, &inputerr.Error{Source: source, Msg: "is empty; give a request object, an array of them, or JSON Lines"}
	}
	if err != nil {
		return nil, r.syntax(err)
	}
	if c != '[' && c != '{' {
		return nil, &inputerr.Error{Source: source, Msg: fmt.Sprintf(
			"not valid JSON requests: starts with %q; give a request object, an array of them, or JSON Lines", c)}
	}
	if c == '[' {
		r.array = true
		r.s.skip()
	}
	return r, nil
}

// Next returns the next request, or io.EOF after the last. Any other error
// is input that cannot be read further, an *inputerr.Error.
func (r *Reader) Next() (*Case, error) {
	req, err := r.next()
	if err != nil {
		return nil, err
	}
	return req.decode(r.source)
}

// next finds the bytes of the next request, or io.EOF after the last.
func (r *Reader) next() (*request, error) {
	if r.done {
		return nil, io.EOF
	}
	c, err := r.s.peek()
	if err != nil && err != io.EOF {
		r.done = true
		return nil, r.syntax(err)
	}
	if r.array {
		if err == io.EOF {
			r.done = true
			return nil, r.syntax(io.ErrUnexpectedEOF)
		}
		if c == ']' {
			r.s.skip()
			return nil, r.end()
		}
		if r.n > 0 {
			r.n++
			if c != ',' {
				r.done = true
				return nil, r.syntax(errors.New("expected comma after array element"))
			}
			r.s.skip()
			if c, err = r.s.peek(); err != nil {
				r.done = true
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, r.syntax(err)
			}
			r.n--
		}
	} else {
		more := err == nil && c != ']' && c != '}'
		if r.alone != nil {
			r.alone <- !more
			r.alone = nil
		}
		if !more {
			return nil, r.end()
		}
	}
	r.n++
	if !isValueStart(c) {
		r.done = true
		return nil, r.syntax(fmt.Errorf("invalid character %s looking for beginning of value", quoteChar(c)))
	}
	req := &request{n: r.n, line: r.s.line}
	req.data, req.truncated, err = r.s.value()
	if err != nil {
		r.done = true
		return nil, r.syntax(err)
	}
	if r.array {
		req.path = "[" + strconv.Itoa(r.n-1) + "]"
		return req, nil
	}
	line := "line " + strconv.Itoa(r.s.line)
	if r.n > 1 {
		req.path = line
		return req, nil
	}
	// A lone object's errors need no line. Whether it is alone is known
	// only when the next call looks on; an error waits for that, an
	// answer does not, lest a caller feeding one request at a time wait
	// for its own next request.
	alone := make(chan bool, 1)
	r.alone = alone
	req.locate = func() string {
		if <-alone {
			return ""
		}
		return line
	}
	return req, nil
}

// end checks that nothing follows the last request.
func (r *Reader) end() error {
	r.done = true
	c, err := r.s.peek()
	switch {
	case err == io.EOF:
		return io.EOF
	case err != nil:
		return r.syntax(err)
	case isValueStart(c):
		return r.syntax(errors.New("unexpected data after the requests"))
	}
	return r.syntax(fmt.Errorf("invalid character %s looking for beginning of value", quoteChar(c)))
}

// syntax reports JSON that is not well formed where the reader stands, or
// input that could not be read.
func (r *Reader) syntax(err error) error {
	if rerr, ok := readFailed(err); ok {
		return &inputerr.Error{Source: r.source, Msg: "cannot read: " + rerr.Error()}
	}
	return notJSON(r.source, r.n, r.s.line, err)
}

// notJSON is the error for JSON that is not well formed at line, in the
// n-th request (0: before the first).
func notJSON(source string, n, line int, err error) error {
	field := ""
	if n > 0 {
		field = "request " + strconv.Itoa(n)
	}
	return &inputerr.Error{Source: source, Field: field, Msg: fmt.Sprintf(
		"not valid JSON at line %d: %v", line, err)}
}

// decode makes the Case of a request's bytes. A request that is JSON but
// not a request object is a Case that says why; JSON that is not well
// formed is an error, which ends the reading.
//
// The common request is decoded by decodeDirect; what it leaves, by
// github.com/goccy/go-json (about half the time of encoding/json); when
// that refuses it, encoding/json decodes it again, for the messages the
// contract has always given.
func (req *request) decode(source string) (*Case, error) {
	c := new(Case)
	if req.truncated || !decodeDirect(req.data, c) && goccyDecode(req.data, resetCase(c)) != nil {
		*c = Case{}
		dec := json.NewDecoder(bytes.NewReader(req.data))
		dec.DisallowUnknownFields()
		err := dec.Decode(c)
		var syntax *json.SyntaxError
		switch {
		case errors.As(err, &syntax):
			at := min(max(int(syntax.Offset)-1, 0), len(req.data))
			return nil, notJSON(source, req.n, req.line+bytes.Count(req.data[:at], []byte{'\n'}), err)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, notJSON(source, req.n, req.line+bytes.Count(req.data, []byte{'\n'}), io.ErrUnexpectedEOF)
		case err != nil:
			// The fields read are kept to name the request in the output.
			c.bad = "not a request object: " + err.Error() +
				" (fields: principal, action, resource, resourceAccount, context, identityPolicies, resourcePolicy, permissionsBoundary, scps, rcps, sessionPolicy)"
		}
	}
	c.path, c.locate = req.path, req.locate
	return c, nil
}

// resetCase empties c, which a fast path that gave up may have half
// filled, and returns it.
func resetCase(c *Case) *Case {
	*c = Case{}
	return c
}

// goccyDecode decodes data into c with github.com/goccy/go-json, refusing
// unknown fields as encoding/json is told to.
func goccyDecode(data []byte, c *Case) error {
	dec := gojson.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(c)
}

// quoteChar formats c as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(c))
	return "'" + s[1:len(s)-1] + "'"
}
