package simulate

import (
	"encoding/json"
	"fmt"
	"testing"
)

// plainScalar takes only values that decode to its answer, and leaves the
// rest (invalid UTF-8, half a surrogate pair, numbers, arrays, bad JSON) to
// the decoder.
func TestPlainScalarAgreesWithTheDecoder(t *testing.T) {
	cases := []struct {
		name, raw string
		takes     bool
	}{
		{"a plain string", `"10.0.0.1"`, true},
		{"an empty string", `""`, true},
		{"true", `true`, true},
		{"false", `false`, true},
		{"an escape", `"a\"b"`, true},
		{"a unicode escape", `"\u00e9"`, true},
		{"a surrogate pair", `"\ud83d\ude80"`, true},
		{"half a surrogate pair", `"\ud83d"`, false},
		{"non-ASCII", `"é"`, true},
		{"invalid UTF-8", "\"\xff\"", false},
		{"a control character", "\"a\tb\"", false},
		{"a quote inside, not JSON", `"a"b"`, false},
		{"a number", `10`, false},
		{"an array", `["a"]`, false},
		{"a lone quote", `"`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := plainScalar(json.RawMessage(c.raw))
			if ok != c.takes {
				t.Fatalf("takes %v, want %v", ok, c.takes)
			}
			if !ok {
				return
			}
			var v any
			if err := json.Unmarshal([]byte(c.raw), &v); err != nil {
				t.Fatalf("took %s, which is not JSON: %v", c.raw, err)
			}
			if want := fmt.Sprint(v); got != want {
				t.Errorf("got %q, the decoder %q", got, want)
			}
		})
	}
}
