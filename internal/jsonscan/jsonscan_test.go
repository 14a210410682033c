package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
)

// valueCases are inputs on both sides of the Scanner's line: what it takes
// must be valid JSON with the same text, and what it leaves is either not
// valid or not of the common shape.
var valueCases = []struct {
	name, in string
	takes    bool
}{
	{"an object", `{"a": [1, -0.5E-2, 1e3, "x"], "b": {"c": null, "d": true, "e": false}, "f": {}, "g": []}`, true},
	{"a string alone", `"x"`, true},
	{"a number alone", `-12.5`, true},
	{"an escape", `{"a": "x\"y"}`, false},
	{"a unicode escape", `"\u00e9"`, false},
	{"non-ASCII bytes", `"é"`, false},
	{"a control character", "\"x\ty\"", false},
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
