package simulate

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestAppendIndentedMatchesJSONIndent pins that the answers' indenter
// writes what json.Indent writes, byte for byte, for what the encoder
// gives: strings holding brackets, commas, colons and escapes, and empty
// objects and arrays.
func TestAppendIndentedMatchesJSONIndent(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"an object of scalars", map[string]any{"a": 1, "b": true, "c": nil, "d": -2.5e-3}},
		{"empty object and array stay on one line", map[string]any{"o": map[string]any{}, "a": []any{}}},
		{"nested arrays of objects", []any{map[string]any{"x": []any{1, []any{}, map[string]any{"y": "z"}}}, 2}},
		{"punctuation inside strings is not indented", map[string]any{"s": `a{b}[c],d:e`, "t": "]}"}},
		{"escaped quotes and a trailing backslash", map[string]any{"q": `say "a, b: [c]" and {x}`, "b": `ends in \`, "u": "\u2028<&>"}},
		{"an outcome with statements and reasons", Outcome{Action: "s3:GetObject", Decision: "Error", Error: `x: "y" [z]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			compact, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Indent(&want, compact, "  ", "  "); err != nil {
				t.Fatal(err)
			}
			if got := appendIndented(nil, compact, "  ", "  "); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want.Bytes())
			}
		})
	}
}
