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

// parseDirectCases are inputs on both sides of parseDirect's line: what it
// takes must parse as the general path parses it, and what it leaves
// (invalid UTF-8, half a surrogate pair, bad syntax, repeated keys, invalid
// documents) goes to the general path, which words the error or accepts
// what it accepts.
var parseDirectCases = []struct {
	name, in string
	kind     Kind
	takes    bool
}{
	{"a document", `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:Get*"], "Resource": "*"}]}`, Identity, true},
	{"one statement, single values", `{"Version":"2012-10-17","Id":"x","Statement":{"Sid":"S","Effect":"Deny","NotAction":"iam:*","NotResource":"arn:aws:iam::111122223333:role/a"}}`, Identity, true},
	{"Version after the statements", `{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username}/*"}],"Version":"2012-10-17"}`, Identity, true},
	{"a variable in a 2008 document is text", `{"Version":"2008-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username"}]}`, Identity, true},
	{"no Version", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, true},
	{"conditions, sorted, numbers and booleans keep their text", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"StringLike":{"b":["x*","y"],"a":"z"},"NumericLessThan":{"ec2:VolumeSize":[10, -0.5E-2, 1e3]},"Bool":{"aws:SecureTransport":true},"StringEquals":{"k":[false,"t",7]}}}]}`, Identity, true},
	{"a trust policy", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com","AWS":["arn:aws:iam::111122223333:root"]},"Action":"sts:AssumeRole"}]}`, Trust, true},
	{"a bucket policy with a wildcard principal", `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"],"Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`, Resource, true},
	{"whitespace around everything", " \t{ \"Statement\" : [ { \"Effect\" : \"Allow\" , \"Action\" : [ \"s3:Get*\" ] , \"Resource\" : \"*\" } ] }\r\n", Identity, true},

	{"an escape", `{"Statement":[{"Effect":"Allow","Action":"s3:Get\u002a","Resource":"*"}]}`, Identity, true},
	{"non-ASCII bytes", `{"Statement":[{"Sid":"é","Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, true},
	{"escaped slashes in ARNs", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":["arn:aws:s3:::b\/donn\u00e9es\/*","arn:aws:s3:::b\/${aws:PrincipalTag\/team}\/*"]}]}`, Identity, true},
	{"escaped element and operator names", `{"\u0056ersion":"2012-10-17","Statement":{"\u0045ffect":"Allow","Action":"*","Resource":"*","Condition":{"String\u004cike":{"aws:PrincipalTag\/\u00e9quipe":["\u00c5*","\ud83d\ude80"]}}}}`, Identity, true},
	{"non-ASCII condition values and keys", `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":{"AWS":"arn:aws:iam::111122223333:role/r"},"Action":"s3:*","Resource":"arn:aws:s3:::b/日本語/*","Condition":{"StringNotEqualsIfExists":{"aws:PrincipalTag/équipe":"データ"}}}]}`, Resource, true},
	{"every escape in a Sid", `{"Statement":[{"Sid":"\"\\\/\b\f\n\r\t","Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, true},
	{"an escaped repeated key", `{"Statement":[{"Effect":"Deny","\u0045ffect":"Allow","Action":"*","Resource":"*"}]}`, Identity, false},
	{"half a surrogate pair", `{"Statement":[{"Sid":"\ud83d","Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, false},
	{"invalid UTF-8", "{\"Statement\":[{\"Sid\":\"\xff\",\"Effect\":\"Allow\",\"Action\":\"*\",\"Resource\":\"*\"}]}", Identity, false},
	{"a bad escape", `{"Statement":[{"Sid":"\x","Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, false},
	{"a repeated key", `{"Statement":[{"Effect":"Deny","Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, false},
	{"a repeated condition operator", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"Bool":{"a":"true"},"Bool":{"b":"true"}}}]}`, Identity, false},
	{"an empty Statement array", `{"Statement":[]}`, Identity, false},
	{"an empty Condition", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{}}]}`, Identity, false},
	{"an unknown element", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Foo":1}]}`, Identity, false},
	{"a bad action", `{"Statement":[{"Effect":"Allow","Action":"s3","Resource":"*"}]}`, Identity, false},
	{"a bad resource", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"bucket"}]}`, Identity, false},
	{"a bad variable", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"arn:aws:s3:::b/${aws:username"}]}`, Identity, false},
	{"a bad condition value", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"NumericEquals":{"n":"ten"}}}]}`, Identity, false},
	{"every operator family", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringEqualsIgnoreCase":{"a":"PROD"},"ArnLike":{"aws:PrincipalArn":"arn:aws:iam::*:role/app-*"},"NumericLessThan":{"n":[3600,"1.5"]},"DateGreaterThan":{"aws:CurrentTime":["2026-01-01T00:00:00Z","1780000000"]},"Bool":{"b":"TRUE"},"Null":{"c":false},"IpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"," 192.168.0.1"]},"BinaryEquals":{"d":"QmluYXJ5"},"ForAnyValue:StringLike":{"e":["x*"]},"StringEqualsIfExists":{"f":"${aws:username}"}}}]}`, Identity, true},
	{"a bad date", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"DateLessThan":{"aws:CurrentTime":"tomorrow"}}}]}`, Identity, false},
	{"a bad boolean", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"Bool":{"b":"yes"}}}]}`, Identity, false},
	{"a boolean of a non-ASCII letter", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"Bool":{"b":"fal\u017fe"}}}]}`, Identity, false},
	{"a bad address", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/33"}}}]}`, Identity, false},
	{"a bad binary", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"BinaryEquals":{"d":"not base64!"}}}]}`, Identity, false},
	{"a bad variable in a condition", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringLike":{"k":"${aws:username"}}}]}`, Identity, false},
	{"a bad variable in an ARN condition", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"ArnLike":{"k":"arn:aws:iam::${, 'x'}:role/r"}}}]}`, Identity, false},
	{"a null condition value", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"StringEquals":{"n":null}}}]}`, Identity, false},
	{"a principal in an identity policy", `{"Statement":[{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}]}`, Identity, false},
	{"no principal in a trust policy", `{"Statement":[{"Effect":"Allow","Action":"sts:AssumeRole"}]}`, Trust, false},
	{"missing Resource", `{"Statement":[{"Effect":"Allow","Action":"*"}]}`, Identity, false},
	{"an unknown Version", `{"Version":"2020-01-01","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`, Identity, false},
	{"a trailing comma", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},]}`, Identity, false},
	{"data after the document", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]} x`, Identity, false},
	{"a leading zero", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*","Condition":{"NumericEquals":{"n":01}}}]}`, Identity, false},
	{"unclosed", `{"Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}`, Identity, false},
	{"empty", ``, Identity, false},
}

func TestParseDirectAgreesWithParse(t *testing.T) {
	for _, c := range parseDirectCases {
		t.Run(c.name, func(t *testing.T) {
			_, took := parseDirect(c.in, c.kind)
			if took != c.takes {
				t.Errorf("parseDirect takes it: %v, want %v", took, c.takes)
			}
			checkParseDirect(t, []byte(c.in), c.kind)
		})
	}
	// Every file of the reference cases, fuzz seeds and fixtures, as every
	// kind: most are taken as some kind, and what is taken must agree.
	n, taken := 0, 0
	eachTestdataDocument(t, func(doc []byte) {
		for k := range Kind(numKinds) {
			checkParseDirect(t, doc, k)
			if _, ok := parseDirect(string(doc), k); ok {
				taken++
			}
		}
		n++
	})
	if n < 100 || taken < n {
		t.Fatalf("parseDirect took %d parses of %d documents under testdata; the check needs documents it takes", taken, n)
	}
}

// eachTestdataDocument calls f with every document under testdata: each
// file of the reference cases, fuzz seeds and fixtures, and every document
// inside one (documentsIn).
func eachTestdataDocument(t *testing.T, f func(doc []byte)) {
	t.Helper()
	err := filepath.WalkDir("testdata", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, doc := range documentsIn(data) {
			f(doc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// numKinds is how many kinds there are, Identity through RCP.
const numKinds = 7

// documentsIn returns data and every object in it that has a Statement, so
// that the documents inside reference cases are checked too.
func documentsIn(data []byte) [][]byte {
	out := [][]byte{data}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if _, ok := x["Statement"]; ok {
				if b, err := json.Marshal(x); err == nil {
					out = append(out, b)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		walk(v)
	}
	return out
}

// checkParseDirect fails when parseDirect takes data and parses it
// otherwise than the general path.
func checkParseDirect(t *testing.T, data []byte, kind Kind) {
	t.Helper()
	got, ok := parseDirect(string(data), kind)
	if !ok {
		return
	}
	want, err := parseGeneral(data, kind)
	if err != nil {
		t.Fatalf("parseDirect took %q as %s, which the general path refuses: %v", data, kind, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseDirect(%q, %s) = %#v, the general path %#v", data, kind, got, want)
	}
}

func FuzzParseDirect(f *testing.F) {
	for _, c := range parseDirectCases {
		f.Add([]byte(c.in), uint8(c.kind))
	}
	f.Add(bytes.Repeat([]byte("["), 100), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		checkParseDirect(t, data, Kind(k%numKinds))
	})
}
