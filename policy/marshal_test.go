package policy_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"leash.dev/leash/internal/reference"
	"leash.dev/leash/policy"
)

// TestMarshalKeepsTheAuthorsSpelling pins that a document in AWS's element
// order and without whitespace is written back byte for byte: strings and
// arrays, numbers and booleans, Statement as an object, as the author wrote
// them.
func TestMarshalKeepsTheAuthorsSpelling(t *testing.T) {
	tests := []struct {
		name string
		kind policy.Kind
		doc  string
	}{
		{"single strings stay strings", policy.Identity,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`},
		{"arrays of one stay arrays", policy.Identity,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["*"]}]}`},
		{"Statement as one object stays an object", policy.Identity,
			`{"Version":"2012-10-17","Id":"doc-1","Statement":{"Sid":"Read","Effect":"Allow","Action":["s3:Get*","S3:list?ucket"],"Resource":"*"}}`},
		{"NotAction, NotResource and a document without Version", policy.Identity,
			`{"Statement":[{"Effect":"Deny","NotAction":"iam:*","NotResource":["arn:aws:s3:::b","arn:aws:s3:::b/*"]}]}`},
		{"numbers and booleans in conditions stay unquoted", policy.Identity,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":true,"aws:ViaAWSService":"false"},"NumericLessThan":{"ec2:VolumeSize":[100,"2.5e2",1e3]},"StringEquals":{"aws:RequestedRegion":["eu-north-1"],"aws:username":"${aws:username}"}}}]}`},
		{"principal types keep their forms", policy.Resource,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:root"],"Service":"ec2.amazonaws.com"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"},{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam::111122223333:user/alice"},"Action":"s3:*","Resource":"*"}]}`},
		{"the wildcard principal", policy.Trust,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sts:AssumeRole","Condition":{"StringEquals":{"aws:PrincipalOrgID":"o-a1b2c3d4e5"}}}]}`},
		{"text encoding/json escapes is escaped alike", policy.Identity,
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/café\u0026co/*","Condition":{"StringLike":{"s3:prefix":"a\"b\\c\u003c"}}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := policy.Parse([]byte(tt.doc), tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.doc {
				t.Errorf("written as\n%s\nwant\n%s", got, tt.doc)
			}
		})
	}
}

// TestMarshalRoundTrip checks Parse(Marshal(d)) == d, Size aside, for every
// accepted fuzz seed and every policy of the reference cases.
func TestMarshalRoundTrip(t *testing.T) {
	type doc struct {
		name string
		text []byte
	}
	var docs []doc
	for i, s := range parseSeeds {
		docs = append(docs, doc{name: "seed " + string(rune('0'+i/10)) + string(rune('0'+i%10)), text: []byte(s)})
	}
	cases, err := reference.Load(filepath.Join("testdata", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r := c.Request
		add := func(what string, raw json.RawMessage) {
			if len(raw) > 0 {
				docs = append(docs, doc{name: c.Name + ": " + what, text: raw})
			}
		}
		for _, n := range r.IdentityPolicies {
			add("identity policy "+n.Name, n.Document)
		}
		add("resource policy", r.ResourcePolicy)
		add("boundary", r.PermissionsBoundary)
		add("session policy", r.SessionPolicy)
		for _, level := range append(r.SCPs, r.RCPs...) {
			for _, n := range level {
				add("organization policy "+n.Name, n.Document)
			}
		}
	}
	checked := 0
	for _, d := range docs {
		for k := policy.Identity; k <= policy.RCP; k++ {
			parsed, err := policy.Parse(d.text, k)
			if err != nil {
				continue // a rejected seed, or a document of another kind
			}
			checkRoundTrip(t, d.name+" as "+k.String(), parsed, k)
			checked++
		}
	}
	if checked < len(cases) {
		t.Errorf("only %d documents parsed, fewer than the %d reference cases", checked, len(cases))
	}
}

// checkRoundTrip fails t unless d written and parsed again is d, and writing
// that gives the same text.
func checkRoundTrip(t *testing.T, name string, d *policy.Document, kind policy.Kind) {
	t.Helper()
	text, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("%s: Marshal: %v", name, err)
	}
	back, err := policy.Parse(text, kind)
	if err != nil {
		t.Fatalf("%s: Parse rejects what Marshal wrote: %v\n%s", name, err, text)
	}
	want := *d
	want.Size = back.Size
	if !reflect.DeepEqual(*back, want) {
		t.Errorf("%s: the document written and parsed again differs\n got %+v\nwant %+v\ntext %s", name, *back, want, text)
	}
	again, err := json.Marshal(back)
	if err != nil || string(again) != string(text) {
		t.Errorf("%s: writing it again gives\n%s (err %v)\nnot\n%s", name, again, err, text)
	}
}

// TestMarshalOfBuiltDocument pins how a document made in Go is written: the
// zero Singles and Unquoted write arrays of strings, a value marked unquoted
// that is no JSON number stays quoted, and a key twice under one operator is
// an error rather than JSON that would lose one of them.
func TestMarshalOfBuiltDocument(t *testing.T) {
	d := policy.Document{Version: policy.Version2012, Statements: []policy.Statement{{
		Effect: policy.Allow, Action: []string{"s3:GetObject"}, Resource: []string{"*"},
		Conditions: []policy.Condition{
			{Operator: "StringEquals", Key: "aws:username", Values: []string{"alice"}},
			{Operator: "NumericLessThan", Key: "s3:max-keys", Values: []string{"ten", "10"}, Unquoted: []bool{true, true}},
			{Operator: "StringEquals", Key: "aws:PrincipalTag/team", Values: []string{"web"}, Single: true},
		},
	}}}
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["*"],"Condition":{"StringEquals":{"aws:username":["alice"],"aws:PrincipalTag/team":"web"},"NumericLessThan":{"s3:max-keys":["ten",10]}}}]}`
	if string(got) != want {
		t.Errorf("written as\n%s\nwant\n%s", got, want)
	}

	d.Statements[0].Conditions = append(d.Statements[0].Conditions, policy.Condition{Operator: "StringEquals", Key: "aws:username", Values: []string{"bob"}})
	if _, err := json.Marshal(d); err == nil || !strings.Contains(err.Error(), "statement 0: condition key aws:username appears twice under StringEquals") {
		t.Errorf("a key twice under one operator: %v, want an error naming it", err)
	}
}

// FuzzMarshal checks the round trip on whatever Parse accepts.
func FuzzMarshal(f *testing.F) {
	for _, s := range parseSeeds {
		for k := uint8(0); k < numKinds; k++ {
			f.Add([]byte(s), k)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		kind := policy.Kind(k % numKinds)
		d, err := policy.Parse(data, kind)
		if err != nil {
			return
		}
		checkRoundTrip(t, "document", d, kind)
	})
}
