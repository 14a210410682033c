package termsafe

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestEscapeShowsWhatCouldForgeOrHideALine(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"printable ASCII is kept", "arn:aws:iam::111122223333:role/ci-deploy", "arn:aws:iam::111122223333:role/ci-deploy"},
		{"the empty string is kept", "", ""},
		{"printable Unicode is kept", "rôle-é-ü 東京 Ελλάδα 🙂", "rôle-é-ü 東京 Ελλάδα 🙂"},
		{"a space and a no-break space are kept", "a b\u00a0c", "a b\u00a0c"},
		{"newline, carriage return and tab are escaped by name", "a\nb\rc\td", `a\nb\rc\td`},
		{"a forged table row stays on one line", "x\nadmin\tiam:DeleteUser alice Allowed\x1b[8m", `x\nadmin\tiam:DeleteUser alice Allowed\x1b[8m`},
		{"ESC of an ANSI sequence is escaped", "\x1b]8;;http://evil\x1b\\link", `\x1b]8;;http://evil\x1b\\link`},
		{"other C0 controls, vertical tab and form feed included, are escaped in hex", "\x00\x07\x08\v\f\x1f", `\x00\x07\x08\x0b\x0c\x1f`},
		{"DEL is escaped", "a\x7fb", `a\x7fb`},
		{"C1 controls are escaped: CSI, NEL", "a\u009b31mb\u0085c\u0080", `a\u009b31mb\u0085c\u0080`},
		{"bidi overrides and embeddings are escaped", "a\u202eexe.txt\u202c", `a\u202eexe.txt\u202c`},
		{"bidi isolates are escaped", "\u2066\u2067\u2068\u2069", `\u2066\u2067\u2068\u2069`},
		{"bidi marks are escaped: LRM, RLM, ALM", "\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"zero-width characters and the BOM are escaped", "ad\u200bmin\u200c\u200d\u2060\ufeff", `ad\u200bmin\u200c\u200d\u2060\ufeff`},
		{"the soft hyphen is escaped", "ad\u00admin", `ad\u00admin`},
		{"line and paragraph separators are escaped", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"invisible tag characters are escaped", "ok\U000e0041\U000e007f", `ok\U000e0041\U000e007f`},
		{"each invalid UTF-8 byte is escaped", "a\xffb\xc3(\xed\xa0\x80", `a\xffb\xc3(\xed\xa0\x80`},
		{"a valid U+FFFD is kept, unlike an invalid byte", "\ufffd\xef", "\ufffd\\xef"},
		{"a backslash is doubled, so a written escape differs from an escaped control", `a\nb`, `a\\nb`},
		{"a lone backslash is doubled", `C:\temp\`, `C:\\temp\\`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Escape(c.in); got != c.want {
				t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestEscapeOfASafeStringAllocatesNothing(t *testing.T) {
	for _, s := range []string{"arn:aws:sts::111122223333:assumed-role/ci/run-1", "Grüße 東京"} {
		if n := testing.AllocsPerRun(100, func() { _ = Escape(s) }); n != 0 {
			t.Errorf("Escape(%q) allocates %v times, want 0", s, n)
		}
	}
}

// FuzzEscape checks the two promises on any input: the result holds nothing
// that Escape escapes (so nothing that moves, hides or reorders text), and it
// decodes back to the input (so no two inputs print the same).
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "x\nadmin\tiam:DeleteUser alice Allowed\x1b[8m", `a\nb`, "\u202e\u2066", "\xff\xc3", "é\u0085", "\U000e0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q: not valid UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
				t.Fatalf("Escape(%q) = %q: holds %U", s, got, r)
			}
		}
		back, err := strconv.Unquote(`"` + strings.ReplaceAll(got, `"`, `\"`) + `"`)
		if err != nil || back != s {
			t.Fatalf("Escape(%q) = %q decodes to %q (%v), want the input", s, got, back, err)
		}
		if got == s != (firstToEscape(s) == len(s)) {
			t.Fatalf("Escape(%q) = %q: changed %v, but firstToEscape = %d", s, got, got != s, firstToEscape(s))
		}
	})
}
