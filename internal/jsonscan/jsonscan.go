// Package jsonscan reads JSON straight into a caller's types, for the fast
// paths that decode policy documents and simulate's requests without a
// generic tree or reflection. It takes well-formed JSON whose strings are
// valid UTF-8 and whose escapes stand for whole characters (a \u escape of
// half a surrogate pair alone, which encoding/json turns into U+FFFD, is
// left); it says only whether the input is of that kind and well formed. A
// caller that gets false decodes the input again with encoding/json, which
// has the final word on what is valid and words the errors.
package jsonscan

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads one JSON text. Strings it returns are slices of the text
// unless they hold escapes, so that reading them allocates nothing in the
// common case.
type Scanner struct {
	text string
	i    int
}

// New returns a Scanner at the start of text.
func New(text string) *Scanner {
	return &Scanner{text: text}
}

// Reset makes s read text from its start, as New(text) would.
func (s *Scanner) Reset(text string) {
	s.text, s.i = text, 0
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

// Str reads a string and returns its value, as encoding/json decodes it.
func (s *Scanner) Str() (string, bool) {
	if !s.Next('"') {
		return "", false
	}
	start := s.i + 1
	j := start
	for j < len(s.text) && plain[s.text[j]] {
		j++
	}
	if j < len(s.text) && s.text[j] == '"' {
		s.i = j + 1
		return s.text[start:j], true
	}
	return s.str(start, j, true)
}

// str reads the rest of a string whose text starts at start and is plain
// up to j: non-ASCII characters, which must be valid UTF-8, and escapes,
// decoded into a copy when decode is set (else only checked).
func (s *Scanner) str(start, j int, decode bool) (string, bool) {
	t := s.text
	var buf []byte
	escaped := false
	seg := start // the text from seg to j is not yet in buf
	for j < len(t) {
		c := t[j]
		switch {
		case plain[c]:
			j++
			for j < len(t) && plain[t[j]] {
				j++
			}
			continue
		case c == '"':
			s.i = j + 1
			if !escaped || !decode {
				return t[start:j], true
			}
			return string(append(buf, t[seg:j]...)), true
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(t[j:])
			if r == utf8.RuneError && n == 1 {
				return "", false // encoding/json would make it U+FFFD
			}
			j += n
			continue
		case c != '\\' || j+1 == len(t):
			return "", false // a control character, or the text ends
		}
		r, n := escape(t, j)
		if n == 0 {
			return "", false
		}
		if decode {
			if !escaped {
				buf = make([]byte, 0, j-start+16)
			}
			buf = utf8.AppendRune(append(buf, t[seg:j]...), r)
		}
		escaped = true
		j += n
		seg = j
	}
	return "", false
}

// escape decodes the escape at t[j] (a backslash) as encoding/json does,
// and returns the character and the escape's length, 0 for one it leaves:
// an unknown escape, and half a surrogate pair alone (which encoding/json
// makes U+FFFD and the caller's general path words).
func escape(t string, j int) (rune, int) {
	switch e := t[j+1]; e {
	case '"', '\\', '/':
		return rune(e), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r := hex4(t, j+2)
		if r < 0 {
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		if j+12 > len(t) || t[j+6] != '\\' || t[j+7] != 'u' {
			return 0, 0
		}
		if r = utf16.DecodeRune(r, hex4(t, j+8)); r == utf8.RuneError {
			return 0, 0
		}
		return r, 12
	}
	return 0, 0
}

// hex4 is the value of the four hex digits at t[i:], or -1.
func hex4(t string, i int) rune {
	if i+4 > len(t) {
		return -1
	}
	var r rune
	for _, c := range []byte(t[i : i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// skipStr reads a string without keeping its value.
func (s *Scanner) skipStr() bool {
	start := s.i + 1
	j := start
	for j < len(s.text) && plain[s.text[j]] {
		j++
	}
	if j < len(s.text) && s.text[j] == '"' {
		s.i = j + 1
		return true
	}
	_, ok := s.str(start, j, false)
	return ok
}

// plain is the bytes Str takes inside a string without a second look:
// printable ASCII but the quote and the backslash.
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
		return s.skipStr()
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
