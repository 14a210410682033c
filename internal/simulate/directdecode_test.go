package simulate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// directCases are requests on both sides of decodeDirect's line.
var directCases = []struct {
	name, in string
	takes    bool
}{
	{"every field", `{"principal":"arn:aws:iam::111122223333:user/alice","action":"s3:GetObject","resource":"arn:aws:s3:::b/k","resourceAccount":"111122223333",
		"context":{"aws:SourceIp":"10.0.0.1","n":5,"b":true,"l":["a","b"],"e":[]},
		"identityPolicies":[{"name":"p","document":{"Statement":[]}},{"document":{}}],
		"resourcePolicy":{"a":1},"permissionsBoundary":{"b":[1]},"sessionPolicy":{"c":{}},
		"scps":[[{"name":"FullAWSAccess","document":{"x":"y"}}],[]],"rcps":[]}`, true},
	{"empty containers", `{"action":"s3:GetObject","context":{},"identityPolicies":[],"scps":[[]]}`, true},
	{"whitespace", " \n{ \"action\" : \"s3:GetObject\" }\n", true},
	{"an escape", `{"action":"s3:Get\u004fbject"}`, true},
	{"non-ASCII", `{"action":"s3:GetObject","context":{"k":"é"}}`, true},
	{"escapes and non-ASCII everywhere", `{"principal":"arn:aws:sts::111122223333:assumed-role\/app\/s","action":"s3:GetObject","resource":"arn:aws:s3:::b\/donn\u00e9es\/\ud83d\ude80",
		"\u0063ontext":{"aws:PrincipalTag\/\u00e9quipe":"\u30c7\u30fc\u30bf","aws:PrincipalTag/projet":"Åland"},
		"identityPolicies":[{"name":"politique-\u00e7","document":{"Statement":{"Resource":"arn:aws:s3:::b\/日本\/*"}}}]}`, true},
	{"an escaped field in another case", `{"\u0041ction":"s3:GetObject"}`, false},
	{"half a surrogate pair", `{"action":"s3:GetObject","resource":"\ud83d"}`, false},
	{"invalid UTF-8", "{\"action\":\"s3:GetObject\",\"resource\":\"\xff\"}", false},
	{"a field in another case", `{"Action":"s3:GetObject"}`, false},
	{"an unknown field", `{"action":"s3:GetObject","extra":1}`, false},
	{"a repeated field", `{"action":"s3:GetObject","action":"s3:PutObject"}`, false},
	{"a repeated context key", `{"action":"s3:GetObject","context":{"k":"a","k":"b"}}`, false},
	{"a null", `{"action":"s3:GetObject","resourcePolicy":null}`, false},
	{"a null document", `{"action":"s3:GetObject","identityPolicies":[{"document":null}]}`, false},
	{"a number for a string", `{"action":5}`, false},
	{"an unknown field in a named document", `{"action":"s3:GetObject","identityPolicies":[{"doc":{}}]}`, false},
	{"not an object", `["s3:GetObject"]`, false},
	{"bad JSON", `{"action":"s3:GetObject",}`, false},
}

func TestDecodeDirectAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range directCases {
		t.Run(c.name, func(t *testing.T) {
			if got := checkDecodeDirect(t, []byte(c.in)); got != c.takes {
				t.Errorf("decodeDirect takes it: %v, want %v", got, c.takes)
			}
		})
	}
	// Every request of the reference cases, the examples and the test
	// data: most are taken, and what is taken must agree.
	var reqs [][]byte
	refs, _ := filepath.Glob("../../policy/testdata/reference/*.json")
	for _, file := range refs {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Case json.RawMessage `json:"case"`
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, c := range cases {
			reqs = append(reqs, c.Case)
		}
	}
	files, _ := filepath.Glob("testdata/*.json*")
	more, _ := filepath.Glob("../../examples/simulate/*.json")
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(data), file)
		if err != nil {
			continue // not requests
		}
		for {
			req, err := r.next()
			if err != nil {
				break
			}
			reqs = append(reqs, req.data)
		}
	}
	taken := 0
	for _, req := range reqs {
		if checkDecodeDirect(t, req) {
			taken++
		}
	}
	if len(reqs) < 300 || taken < len(reqs)*9/10 {
		t.Fatalf("decodeDirect took %d of %d requests; the check needs requests it takes", taken, len(reqs))
	}
}

// checkDecodeDirect fails when decodeDirect takes data and decodes it
// otherwise than encoding/json, and reports whether it took it.
func checkDecodeDirect(t *testing.T, data []byte) bool {
	t.Helper()
	var got Case
	if !decodeDirect(data, &got) {
		return false
	}
	var want Case
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("decodeDirect took %q, which encoding/json refuses: %v", data, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("decodeDirect took %q, which has data after the request", data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decodeDirect(%q) = %#v, encoding/json %#v", data, got, want)
	}
	return true
}

func FuzzDecodeDirect(f *testing.F) {
	for _, c := range directCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkDecodeDirect(t, data) })
}
