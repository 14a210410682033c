package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// escaped is s as encoding/json writes it, without the quotes.
func escaped(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1 : len(b)-1])
}

func TestCapValue(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		wantCut     bool
		wantDropped int
	}{
		{"a short value is kept", "ListUsers", false, 0},
		{"a value of MaxValue plain bytes is kept", strings.Repeat("a", MaxValue), false, 0},
		{"a megabyte action is cut and says how much went", strings.Repeat("A", 1<<20), true, 1<<20 - (MaxValue - len(truncatedMark(1<<20)))},
		{"characters JSON escapes to six bytes count six", strings.Repeat("<", MaxValue/2), true, MaxValue/2 - (MaxValue-len(truncatedMark(MaxValue/2)))/6},
		{"invalid bytes count as the six of \\ufffd", strings.Repeat("\xff", MaxValue), true, -1},
		{"a value is not cut inside a character", "a" + strings.Repeat("é", MaxValue), true, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := capValue(tt.in)
			if len(escaped(t, got)) > MaxValue {
				t.Errorf("capped value is %d bytes escaped, want at most %d", len(escaped(t, got)), MaxValue)
			}
			if !tt.wantCut {
				if got != tt.in {
					t.Errorf("value changed")
				}
				return
			}
			kept, mark, ok := strings.Cut(got, "…[truncated ")
			if !ok || !strings.HasSuffix(mark, " bytes]") {
				t.Fatalf("capped value does not end with the mark: …%q", got[max(len(got)-40, 0):])
			}
			if !strings.HasPrefix(tt.in, kept) {
				t.Errorf("the kept part is not a prefix of the value")
			}
			dropped := len(tt.in) - len(kept)
			if mark != strings.TrimPrefix(truncatedMark(dropped), "…[truncated ") {
				t.Errorf("mark %q, want it to name the %d bytes dropped", mark, dropped)
			}
			if tt.wantDropped >= 0 && dropped != tt.wantDropped {
				t.Errorf("dropped %d bytes, want %d", dropped, tt.wantDropped)
			}
			if utf8.ValidString(tt.in) && !utf8.ValidString(kept) {
				t.Errorf("the value was cut inside a character")
			}
		})
	}
}

// fill sets every string of v (and the elements of its slices) to s, and
// gives slices n elements.
func fill(v reflect.Value, s string, n int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				fill(f, s, n)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), s, n)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), n, n))
		for i := range n {
			fill(v.Index(i), s, n)
		}
	}
}

// TestAppendBoundsEveryLine pins MaxLine: an event whose every string
// value is a megabyte of the characters JSON writes longest, with a
// hundred resources and 2 MB each of request parameters and response
// elements, still takes at most MaxLine, and reads back.
func TestAppendBoundsEveryLine(t *testing.T) {
	for _, worst := range []string{strings.Repeat("<", 1<<20), strings.Repeat("\x01", 1<<20), strings.Repeat("\xff", 1<<20), strings.Repeat("é", 1<<19)} {
		var e Event
		fill(reflect.ValueOf(&e).Elem(), worst, 100)
		params, _ := json.Marshal(map[string]string{"policyDocument": strings.Repeat("x", 2<<20)})
		e.RequestParameters = params
		e.ResponseElements = params
		path := filepath.Join(t.TempDir(), FileName)
		l, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(&e); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > MaxLine {
			t.Errorf("a worst-case event took %d bytes, above MaxLine (%d)", len(data), MaxLine)
		}
		if bytes.Count(data, []byte("\n")) != 1 {
			t.Errorf("a worst-case event took %d lines, want 1", bytes.Count(data, []byte("\n")))
		}
		n := 0
		bad, err := Read(bytes.NewReader(data), Filter{}, func(got *Event) error {
			n++
			if len(got.Resources) != MaxResources {
				t.Errorf("kept %d resources, want %d", len(got.Resources), MaxResources)
			}
			return nil
		})
		if err != nil || len(bad) > 0 || n != 1 {
			t.Errorf("read back %d events, bad lines %v, err %v; want 1 event", n, bad, err)
		}
		t.Logf("worst case of %q: %d bytes", worst[:2], len(data))
	}
}

// TestCapJSONKeepsTheShape: request parameters or response elements longer
// than MaxValue keep their members, each string cut to a share of
// MaxValue, so that a long policy document does not hide the names beside
// it; a document of too many members becomes the mark of the bytes
// dropped. Either way it takes at most MaxValue.
func TestCapJSONKeepsTheShape(t *testing.T) {
	long, _ := json.Marshal(map[string]any{"userName": "alice", "policyDocument": strings.Repeat("<", 1<<20)})
	many := make([]string, 20000)
	for i := range many {
		many[i] = "arn:aws:iam::111122223333:user/u"
	}
	crowded, _ := json.Marshal(map[string]any{"userNames": many})
	tests := []struct {
		name      string
		in        json.RawMessage
		wantShape bool
	}{
		{"a megabyte policy document is cut and the user name kept", long, true},
		{"twenty thousand names become the mark", crowded, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Event{RequestParameters: tt.in, ResponseElements: tt.in}
			limit(&e)
			for _, got := range []json.RawMessage{e.RequestParameters, e.ResponseElements} {
				if len(got) > MaxValue {
					t.Errorf("capped to %d bytes, want at most %d", len(got), MaxValue)
				}
				var doc map[string]any
				isObject := json.Unmarshal(got, &doc) == nil
				if isObject != tt.wantShape {
					t.Fatalf("capped to %.80s…, want an object: %v", got, tt.wantShape)
				}
				if !tt.wantShape {
					var mark string
					if json.Unmarshal(got, &mark) != nil || mark != truncatedMark(len(tt.in)) {
						t.Errorf("capped to %.80s, want the mark of %d bytes", got, len(tt.in))
					}
					continue
				}
				if doc["userName"] != "alice" || !strings.Contains(doc["policyDocument"].(string), "…[truncated ") {
					t.Errorf("capped to userName %v and a policy document of %d bytes; want alice and a cut document", doc["userName"], len(doc["policyDocument"].(string)))
				}
			}
		})
	}
}

// FuzzCapValue checks capValue's promises on any input: the result takes
// at most MaxValue bytes JSON-escaped, a value that fits is kept as it is,
// and a cut value is a prefix of the input with the mark of what went.
func FuzzCapValue(f *testing.F) {
	f.Add("ListUsers")
	f.Add(strings.Repeat("<", MaxValue))
	f.Add(strings.Repeat("\xff", MaxValue/5))
	f.Add(strings.Repeat("é", MaxValue/2+1))
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) < MaxValue/8 {
			s = strings.Repeat(s, MaxValue/8/max(len(s), 1)+1)
		}
		got := capValue(s)
		if len(escaped(t, got)) > MaxValue {
			t.Fatalf("capped value is %d bytes escaped", len(escaped(t, got)))
		}
		if got == s {
			return
		}
		i := strings.LastIndex(got, "…[truncated ")
		if i < 0 || !strings.HasPrefix(s, got[:i]) || got[i:] != truncatedMark(len(s)-i) {
			t.Fatalf("cut value is not a prefix of the input with the mark of the bytes dropped")
		}
	})
}
