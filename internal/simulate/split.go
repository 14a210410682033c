package simulate

import (
	"bufio"
	"errors"
	"io"
)

// splitter finds the bytes of one top-level JSON value after another in a
// stream, counting lines as it goes, without decoding them: decoding is the
// costly part, and it runs on the workers, on every core. It follows
// strings (with their escapes) and the nesting of objects and arrays only
// as far as needed to find where a value ends; whether the value is well
// formed is for the decoder to say. A value ends early at a raw control
// character inside a string, which no JSON string holds, so that a string
// left open does not swallow the rest of the input.
//
// It reads from br, or else from mem, the whole input already in memory (a
// mapped file): then each value is a slice of mem, neither copied nor
// allocated, and the input is one chunk.
type splitter struct {
	br   *bufio.Reader
	mem  []byte // the unread input, when br is nil
	line int    // line (from 1) of the next byte
}

// chunk returns the input buffered past the reading position, at least
// one byte; io.EOF at the end of the input, or an *errSplitRead.
func (s *splitter) chunk() ([]byte, error) {
	if s.br == nil {
		if len(s.mem) == 0 {
			return nil, io.EOF
		}
		return s.mem, nil
	}
	if buf, err := s.br.Peek(1); len(buf) == 0 {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, &errSplitRead{err}
	}
	chunk, _ := s.br.Peek(s.br.Buffered())
	return chunk, nil
}

// discard moves the reading position n bytes on, within the last chunk.
func (s *splitter) discard(n int) {
	if s.br == nil {
		s.mem = s.mem[n:]
		return
	}
	_, _ = s.br.Discard(n)
}

// errSplitRead marks a failure of the underlying reader, as against bad JSON.
type errSplitRead struct{ err error }

func (e *errSplitRead) Error() string { return e.err.Error() }

// peek returns the next byte without consuming it, skipping whitespace
// first; io.EOF at the end of the input.
func (s *splitter) peek() (byte, error) {
	for {
		chunk, err := s.chunk()
		if err != nil {
			return 0, err
		}
		for i, c := range chunk {
			switch c {
			case '\n':
				s.line++
			case ' ', '\t', '\r':
			default:
				s.discard(i)
				return c, nil
			}
		}
		s.discard(len(chunk))
	}
}

// skip consumes the byte peek returned.
func (s *splitter) skip() { s.discard(1) }

// value returns the bytes of the value that starts at the next byte (peek
// has skipped the whitespace before it), and whether the input ended inside
// it. The bytes are the caller's to keep, and never to change (they may be
// a read-only mapping).
func (s *splitter) value() (data []byte, truncated bool, err error) {
	var (
		depth    int
		inString bool
		escape   bool
		scalar   bool
		started  bool
	)
	for {
		chunk, perr := s.chunk()
		if perr == io.EOF {
			// A number or literal ends at the end of the input.
			return data, !scalar, nil
		}
		if perr != nil {
			return nil, false, perr
		}
		i := 0
		if !started {
			started = true
			switch chunk[0] {
			case '{', '[':
				depth = 1
			case '"':
				inString = true
			default:
				scalar = true
			}
			i = 1
		}
		end := -1
		if scalar {
			for ; i < len(chunk); i++ {
				if isDelimiter(chunk[i]) {
					end = i
					break
				}
			}
		} else {
		scan:
			for ; i < len(chunk); i++ {
				if inString {
					if escape {
						escape = false
						continue
					}
					for i < len(chunk) && !stringStop[chunk[i]] {
						i++
					}
					if i == len(chunk) {
						break
					}
					switch c := chunk[i]; c {
					case '\\':
						escape = true
					case '"':
						inString = false
						if depth == 0 {
							end = i + 1
							break scan
						}
					default: // a control character
						if c == '\n' {
							s.line++
						}
						end = i + 1
						break scan
					}
					continue
				}
				for i < len(chunk) && !structStop[chunk[i]] {
					i++
				}
				if i == len(chunk) {
					break
				}
				switch chunk[i] {
				case '"':
					inString = true
				case '{', '[':
					depth++
				case '}', ']':
					depth--
					if depth == 0 {
						end = i + 1
						break scan
					}
				case '\n':
					s.line++
				}
			}
		}
		if end >= 0 {
			if s.br == nil {
				data = chunk[:end:end]
			} else {
				data = append(data, chunk[:end]...)
			}
			s.discard(end)
			return data, false, nil
		}
		if s.br == nil {
			data = chunk
		} else {
			if data == nil {
				data = make([]byte, 0, 2*len(chunk))
			}
			data = append(data, chunk...)
		}
		s.discard(len(chunk))
	}
}

// stringStop and structStop are the bytes value must look at inside a
// string and outside one; it skips the others in a tight loop.
var stringStop, structStop = func() (in, out [256]bool) {
	for c := range 0x20 {
		in[c] = true
	}
	in['\\'], in['"'] = true, true
	for _, c := range []byte(`"{}[]`) {
		out[c] = true
	}
	out['\n'] = true
	return in, out
}()

// isDelimiter reports whether c ends a number or a literal.
func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}', '[', '{', '"', ':':
		return true
	}
	return false
}

// isValueStart reports whether c can begin a JSON value.
func isValueStart(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

// readFailed reports whether err is a failure to read, not bad JSON.
func readFailed(err error) (error, bool) {
	var rerr *errSplitRead
	if errors.As(err, &rerr) {
		return rerr.err, true
	}
	return nil, false
}
