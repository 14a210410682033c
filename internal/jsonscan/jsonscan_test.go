package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// valueCases are inputs on both sides of the Scanner's line: what it takes
// must be valid JSON with the same text, and what it leaves is either not
// valid or a string encoding/json would change (invalid UTF-8, half a
// surrogate pair).
var valueCases = []struct {
	name, in string
	takes    bool
}{
	{"an object", `{"a": [1, -0.5E-2, 1e3, "x"], "b": {"c": null, "d": true, "e": false}, "f": {}, "g": []}`, true},
	{"a string alone", `"x"`, true},
	{"a number alone", `-12.5`, true},
	{"an escape", `{"a": "x\"y"}`, true},
	{"a unicode escape", `"\u00e9"`, true},
	{"every escape", `"\"\\\/\b\f\n\r\t\u0041\ud83d\ude80"`, true},
	{"non-ASCII bytes", `"é日🚀"`, true},
	{"a control character", "\"x\ty\"", false},
	{"an unknown escape", `"\x"`, false},
	{"a short unicode escape", `"\u00e"`, false},
	{"half a surrogate pair", `"\ud83d"`, false},
	{"a low surrogate first", `"\ude80\ud83d"`, false},
	{"a surrogate and a letter", `"\ud83d\u0041"`, false},
	{"invalid UTF-8", "\"\xff\"", false},
	{"a UTF-8 surrogate", "\"\xed\xa0\x80\"", false},
	{"a backslash at the end", `"\`, false},
	{"a leading zero", `01`, false},
	{"a bare minus", `-`, false},
	{"a dot without digits", `1.`, false},
	{"an exponent without digits", `1e`, false},
	{"a trailing comma", `{"a": 1,}`, false},
	{"a trailing comma in an array", `[1,]`, false},
	{"a missing colon", `{"a" 1}`, false},
	{"an unquoted key", `{a: 1}`, false},
	{"a misspelt literal", `tru`, false},
	{"a literal run on", `truex`, false},
	{"data after the value", `{"a": 1} x`, false},
	{"two values", `{} {}`, false},
	{"unclosed", `{"a": [1, 2}`, false},
	{"empty", ``, false},
	{"deep nesting", string(bytes.Repeat([]byte("["), 100)) + string(bytes.Repeat([]byte("]"), 100)), false},
}

func TestValueTakesOnlyValidJSON(t *testing.T) {
	for _, c := range valueCases {
		t.Run(c.name, func(t *testing.T) {
			if got := takes([]byte(c.in)); got != c.takes {
				t.Errorf("takes %q: %v, want %v", c.in, got, c.takes)
			}
		})
	}
}

// takes reports whether the Scanner reads data as one value, and fails
// the caller's test when it does so with data that is not valid JSON.
func takes(data []byte) bool {
	s := New(string(data))
	s.Space()
	start, end, ok := s.Value()
	if !ok || !s.End() {
		return false
	}
	v := data[start:end]
	if !json.Valid(data) || !bytes.Equal(bytes.TrimSpace(data), v) {
		panic("jsonscan took " + string(data) + ", which is not valid JSON or not the value's text")
	}
	return true
}

func FuzzValue(f *testing.F) {
	for _, c := range valueCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) { takes(data) })
}

// strCases are strings Str decodes as encoding/json does, or leaves.
var strCases = []string{
	`"plain"`, `""`, `"x\"y"`, `"a\\b"`, `"arn:aws:s3:::b\/k"`, `"\u00e9t\u00C9"`,
	`"\ud83d\ude80 rocket"`, `"données"`, `"日本語/\u65e5"`, `"\b\f\n\r\t"`, `"\u0000"`,
	`"\ud83d"`, `"\ud83dx"`, `"\u12"`, `"\q"`, "\"\xc3\"", `"unclosed`, "\"tab\there\"",
}

func TestStrDecodesAsEncodingJSON(t *testing.T) {
	for _, in := range strCases {
		t.Run(in, func(t *testing.T) { checkStr(t, []byte(in)) })
	}
}

// checkStr fails when Str takes data as a string other than encoding/json
// decodes it, or takes what encoding/json refuses.
func checkStr(t *testing.T, data []byte) {
	t.Helper()
	s := New(string(data))
	got, ok := s.Str()
	if !ok || !s.End() {
		return
	}
	var want string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatalf("Str took %q, which encoding/json refuses: %v", data, err)
	}
	if got != want {
		t.Errorf("Str(%q) = %q, encoding/json %q", data, got, want)
	}
	if v := New(string(data)); !v.skipStr() || !v.End() {
		t.Errorf("skipStr refuses %q, which Str takes", data)
	}
}

func FuzzStr(f *testing.F) {
	for _, in := range strCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkStr(t, data) })
}
