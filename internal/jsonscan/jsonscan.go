// Package jsonscan reads JSON of the common shape (ASCII strings without
// escapes) straight into a caller's types, for the fast paths that decode
// policy documents and simulate's requests without a generic tree or
// reflection. It says only whether the input is of that shape and well
// formed; a caller that gets false decodes the input again with
// encoding/json, which has the final word on what is valid and words the
// errors.
package jsonscan

// Scanner reads one JSON text. Strings it returns are slices of the text,
// so that reading them allocates nothing.
type Scanner struct {
	text string
	i    int
}

// New returns a Scanner at the start of text.
func New(text string) *Scanner {
	return &Scanner{text: text}
}

// maxDepth bounds the nesting Value follows; deeper input is refused.
const maxDepth = 64

// Space skips whitespace.
func (s *Scanner) Space() {
	for s.i < len(s.text) {
		switch s.text[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// At reports whether the next byte is c, and steps past it when it is.
func (s *Scanner) At(c byte) bool {
	if s.Next(c) {
		s.i++
		return true
	}
	return false
}

// Next reports whether the next byte is c, without stepping past it.
func (s *Scanner) Next(c byte) bool {
	return s.i < len(s.text) && s.text[s.i] == c
}

// End skips whitespace and reports whether the text ends there.
func (s *Scanner) End() bool {
	s.Space()
	return s.i == len(s.text)
}

// Str reads a string of printable ASCII without escapes.
func (s *Scanner) Str() (string, bool) {
	if !s.Next('"') {
		return "", false
	}
	start := s.i + 1
	j := start
	for j < len(s.text) && plain[s.text[j]] {
		j++
	}
	if j == len(s.text) || s.text[j] != '"' {
		return "", false
	}
	s.i = j + 1
	return s.text[start:j], true
}

// plain is the bytes Str takes inside a string: printable ASCII but the
// quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Object reads an object, calling member for each key with the scanner at
// its value (whitespace skipped); member must read the value.
func (s *Scanner) Object(member func(key string) bool) bool {
	if !s.At('{') {
		return false
	}
	s.Space()
	if s.At('}') {
		return true
	}
	for {
		k, ok := s.Str()
		if !ok {
			return false
		}
		s.Space()
		if !s.At(':') {
			return false
		}
		s.Space()
		if !member(k) {
			return false
		}
		s.Space()
		switch {
		case s.At(','):
			s.Space()
		case s.At('}'):
			return true
		default:
			return false
		}
	}
}

// Array reads an array, calling elem with the scanner at each element
// (whitespace skipped); elem must read it.
func (s *Scanner) Array(elem func() bool) bool {
	if !s.At('[') {
		return false
	}
	s.Space()
	if s.At(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		s.Space()
		switch {
		case s.At(','):
			s.Space()
		case s.At(']'):
			return true
		default:
			return false
		}
	}
}

// Literal reads word (true, false or null).
func (s *Scanner) Literal(word string) bool {
	if len(s.text)-s.i < len(word) || s.text[s.i:s.i+len(word)] != word {
		return false
	}
	s.i += len(word)
	return true
}

// Number reads a number by JSON's grammar and returns its text.
func (s *Scanner) Number() (string, bool) {
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.text) && s.text[s.i] >= '0' && s.text[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	s.At('-')
	switch {
	case s.At('0'):
	case digits() == 0:
		return "", false
	}
	if s.At('.') && digits() == 0 {
		return "", false
	}
	if s.At('e') || s.At('E') {
		if !s.At('+') {
			s.At('-')
		}
		if digits() == 0 {
			return "", false
		}
	}
	return s.text[start:s.i], true
}

// Value reads any value and returns where it starts and ends in the text.
func (s *Scanner) Value() (start, end int, ok bool) {
	start = s.i
	if !s.skip(0) {
		return 0, 0, false
	}
	return start, s.i, true
}

func (s *Scanner) skip(depth int) bool {
	if s.i >= len(s.text) || depth > maxDepth {
		return false
	}
	switch s.text[s.i] {
	case '{':
		return s.Object(func(string) bool { return s.skip(depth + 1) })
	case '[':
		return s.Array(func() bool { return s.skip(depth + 1) })
	case '"':
		_, ok := s.Str()
		return ok
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	}
	_, ok := s.Number()
	return ok
}
