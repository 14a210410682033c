package policy

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// decodeSimpleCases are inputs on both sides of decodeSimple's line: what it
// takes must decode as encoding/json decodes it, and what it leaves
// (escapes, other bytes, bad syntax, data after the value) goes to
// encoding/json, which words the error or accepts what it accepts.
var decodeSimpleCases = []struct {
	name, in string
	takes    bool
}{
	{"a document", `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:Get*"], "Resource": "*"}]}`, true},
	{"numbers keep their text", `{"a": [0, -1, 12.50, 1e3, -0.5E-2, 10]}`, true},
	{"literals and empty containers", "\t{\"t\": true, \"f\": false, \"n\": null, \"o\": {}, \"a\": []}\r\n", true},
	{"the last of repeated keys", `{"k": 1, "k": "two"}`, true},
	{"a string alone", `"x"`, true},
	{"an escape goes to encoding/json", `{"a": "x\"y"}`, false},
	{"a unicode escape", `{"a": "\u00e9"}`, false},
	{"non-ASCII bytes", `{"a": "é"}`, false},
	{"invalid UTF-8", "{\"a\": \"\xff\"}", false},
	{"a control character", "{\"a\": \"x\ty\"}", false},
	{"a leading zero", `{"a": 01}`, false},
	{"a bare minus", `{"a": -}`, false},
	{"a dot without digits", `{"a": 1.}`, false},
	{"an exponent without digits", `{"a": 1e}`, false},
	{"a trailing comma", `{"a": 1,}`, false},
	{"a missing colon", `{"a" 1}`, false},
	{"an unquoted key", `{a: 1}`, false},
	{"a misspelt literal", `{"a": tru}`, false},
	{"a literal run on", `{"a": truex}`, false},
	{"data after the value", `{"a": 1} x`, false},
	{"a closing bracket after the value", `{"a": 1}}`, false},
	{"two values", `{} {}`, false},
	{"unclosed", `{"a": [1, 2}`, false},
	{"empty", ``, false},
	{"deep nesting", string(bytes.Repeat([]byte("["), 100)) + string(bytes.Repeat([]byte("]"), 100)), false},
}

func TestDecodeSimpleAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range decodeSimpleCases {
		t.Run(c.name, func(t *testing.T) {
			_, took := decodeSimple([]byte(c.in))
			if took != c.takes {
				t.Errorf("decodeSimple takes it: %v, want %v", took, c.takes)
			}
			checkDecodeSimple(t, []byte(c.in))
		})
	}
	// Every document of the reference cases and fuzz seeds.
	n := 0
	err := filepath.WalkDir("testdata", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checkDecodeSimple(t, data)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no files under testdata")
	}
}

// checkDecodeSimple fails when decodeSimple takes data and decodes it
// otherwise than encoding/json.
func checkDecodeSimple(t *testing.T, data []byte) {
	t.Helper()
	got, ok := decodeSimple(data)
	if !ok {
		return
	}
	want, err := decodeJSON(data)
	if err != nil {
		t.Fatalf("decodeSimple took %q, which encoding/json refuses: %v", data, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decodeSimple(%q) = %#v, encoding/json %#v", data, got, want)
	}
}

func FuzzDecodeSimple(f *testing.F) {
	for _, c := range decodeSimpleCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecodeSimple(t, data)
		if _, ok := decodeSimple(data); ok && !json.Valid(data) {
			t.Errorf("decodeSimple took %q, which is not valid JSON", data)
		}
	})
}
