// Package termsafe makes a string that came from outside leash (a name in a
// request or a policy, an IAM or STS answer, a CloudTrail record) safe to
// print as part of one line of a terminal or a table. Such a string can hold
// a newline that starts a forged line, a tab that shifts a table's columns,
// an ANSI escape sequence that hides or recolours text, or a Unicode bidi
// control that shows its characters in another order than they are stored.
// Evidence printed from it must show what was stored, not what its author
// wanted a reader to see.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character that could change how a line is
// shown written as a visible Go escape, and s itself (no copy) when it holds
// none. Escaped are:
//   - the C0 controls (U+0000–U+001F, among them \t \n \r and ESC), DEL and
//     the C1 controls (U+0080–U+009F);
//   - the format characters (Unicode category Cf): the bidi embeddings,
//     overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069,
//     U+200E, U+200F, U+061C), the zero-width characters (U+200B–U+200D,
//     U+2060, U+FEFF), the soft hyphen and the invisible tag characters
//     (U+E0000 block);
//   - the line and paragraph separators U+2028 and U+2029;
//   - each byte that is not part of valid UTF-8.
//
// They are written \t \n \r for those three, \xNN for any other byte below
// U+0080 and for each invalid byte, and \uNNNN or \UNNNNNNNN for a
// character. A backslash is written \\, so the result is unambiguous: two
// different strings never print the same, and strconv.Unquote of the result
// with its double quotes escaped and wrapped in double quotes gives s back.
// Every other character, printable Unicode such as é or 東 included, is
// kept as it is.
//
// Since tabs, \v and \f are escaped and so is every byte 0xff (which is
// never valid UTF-8), an escaped field cannot move a text/tabwriter column
// either.
func Escape(s string) string {
	i := firstToEscape(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, `\x`, uint32(s[i]), 2)
		case !needsEscape(r):
			b.WriteString(s[i : i+size])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < utf8.RuneSelf:
			writeHex(&b, `\x`, uint32(r), 2)
		case r <= 0xffff:
			writeHex(&b, `\u`, uint32(r), 4)
		default:
			writeHex(&b, `\U`, uint32(r), 8)
		}
		i += size
	}
	return b.String()
}

// firstToEscape is the index of the first byte of s that Escape changes, or
// len(s); printable ASCII, the common case, is checked a byte at a time.
func firstToEscape(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if needsEscape(rune(c)) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || needsEscape(r) {
			return i
		}
		i += size
	}
	return len(s)
}

// needsEscape reports whether r is written as an escape: a control, a format
// character, a line or paragraph separator, or the backslash that starts an
// escape.
func needsEscape(r rune) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f || r == '\\'
	}
	return r <= 0x9f || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

func writeHex(b *strings.Builder, prefix string, v uint32, digits int) {
	const hex = "0123456789abcdef"
	b.WriteString(prefix)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[v>>uint(shift)&0xf])
	}
}
