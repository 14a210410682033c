package simulate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"leash.dev/leash/policy"
)

// encodeReference is what appendOutcome stands for: encoding/json without
// HTML escapes, then json.Indent.
func encodeReference(t testing.TB, o *Outcome) []byte {
	e := *o
	if e.Statements == nil {
		e.Statements = []policy.StatementRef{}
	}
	if e.Reasons == nil {
		e.Reasons = []policy.Reason{}
	}
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&e); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSuffix(compact.Bytes(), []byte("\n")), "  ", "  "); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestAppendOutcomeAgreesWithEncodingJSON(t *testing.T) {
	level := 2
	outcomes := []Outcome{
		{Action: "s3:GetObject", Decision: "Error", Error: "x: \"y\" [z] \\ \t\n\r\b\f\x01\x1f <&> \u2028\u2029 é \xff\xfe 😀"},
		{Principal: "p", Action: "a", Resource: "r", Decision: "ExplicitDeny",
			Statements: []policy.StatementRef{{PolicyType: "scp", Policy: "FullAWSAccess", Index: 3, Sid: "S", Effect: policy.Allow, Level: &level}},
			Reasons: []policy.Reason{
				{Code: "c", Message: "m", Statement: &policy.StatementRef{Policy: "x"}, Page: "https://docs.aws.amazon.com/"},
				{Code: "c", Condition: &policy.ConditionFailure{Operator: "StringEquals", Key: "k", PolicyValues: []string{"a", "b"}, KeyMissing: true, Multivalued: true}},
				{Condition: &policy.ConditionFailure{PolicyValues: []string{}, ContextValues: []string{"v"}}},
			}},
	}
	// And the outcome of every reference case and example request.
	files, _ := filepath.Glob("../../policy/testdata/reference/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []struct {
			Case Case `json:"case"`
		}
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, c := range cases {
			out, err := Run([]Case{c.Case}, file)
			if err != nil {
				continue // a case that expects an error
			}
			outcomes = append(outcomes, out...)
		}
	}
	withReasons := 0
	for i := range outcomes {
		o := &outcomes[i]
		if got, want := appendOutcome(nil, o), encodeReference(t, o); !bytes.Equal(got, want) {
			t.Fatalf("appendOutcome:\n%s\nencoding/json:\n%s", got, want)
		}
		if len(o.Reasons) > 0 {
			withReasons++
		}
	}
	if len(outcomes) < 200 || withReasons < 100 {
		t.Fatalf("only %d outcomes, %d with reasons: the check needs more", len(outcomes), withReasons)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\t\x00\x7f", "\u2028é\xff", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Errorf("appendJSONString(%q) = %s, encoding/json %s", s, got, want.Bytes())
		}
	})
}
