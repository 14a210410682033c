package policy

import (
	"reflect"
	"testing"
)

// parseForActions are the actions ParseFor is checked for: some that the
// test documents cover, in several cases, and one none covers.
var parseForActions = []string{"s3:GetObject", "S3:getobject", "iam:PassRole", "sts:AssumeRole", "ec2:RunInstances", "kms:Decrypt", "zz:Nothing"}

// checkParseFor fails when ParseFor(data, kind, action) differs from
// ParseString for what CompileOneFor makes of it: the same error, or the
// same compiled document, and the same statements where it keeps them.
func checkParseFor(t *testing.T, data []byte, kind Kind, action string) {
	t.Helper()
	got, gerr := ParseFor(string(data), kind, action)
	want, werr := ParseString(string(data), kind)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("ParseFor(%q, %s, %s) error %v, ParseString %v", data, kind, action, gerr, werr)
	}
	if werr != nil {
		return
	}
	gc, gerr := CompileOneFor(Named{Name: "p", Document: got}, kind, action)
	wc, werr := CompileOneFor(Named{Name: "p", Document: want}, kind, action)
	if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() {
		t.Fatalf("CompileOneFor of ParseFor(%q, %s, %s): %v, of ParseString: %v", data, kind, action, gerr, werr)
	}
	if gerr == nil && !reflect.DeepEqual(gc, wc) {
		t.Errorf("ParseFor(%q, %s, %s) compiles to %#v, ParseString to %#v", data, kind, action, gc.doc, wc.doc)
	}
	if len(got.Statements) != len(want.Statements) {
		t.Fatalf("ParseFor(%q, %s, %s) has %d statements, ParseString %d", data, kind, action, len(got.Statements), len(want.Statements))
	}
	for i, s := range got.Statements {
		if coversAny(want.Statements[i], action) && !reflect.DeepEqual(s, want.Statements[i]) {
			t.Errorf("ParseFor(%q, %s, %s): Statement[%d] = %#v, ParseString's %#v", data, kind, action, i, s, want.Statements[i])
		}
	}
}

// ParseFor, on the parser's cases and every document under testdata, as
// every kind and for several actions, compiles for the action as
// ParseString does, and refuses what it refuses with its words.
func TestParseForCompilesAsParse(t *testing.T) {
	hollowed := 0
	check := func(data []byte, kind Kind) {
		for _, a := range parseForActions {
			checkParseFor(t, data, kind, a)
			if doc, err := ParseFor(string(data), kind, a); err == nil {
				for _, s := range doc.Statements {
					if s.Action == nil && s.NotAction == nil {
						hollowed++
					}
				}
			}
		}
	}
	for _, c := range parseDirectCases {
		check([]byte(c.in), c.kind)
	}
	eachTestdataDocument(t, func(doc []byte) {
		for k := range Kind(numKinds) {
			check(doc, k)
		}
	})
	if hollowed < 100 {
		t.Fatalf("only %d statements were left out; the check needs statements that do not cover the action", hollowed)
	}
}

// A statement that does not cover the action is still checked: its bad
// variable (in a 2012-10-17 document, whose Version comes last), bad
// condition value or missing Resource is the document's error, as
// ParseString words it. In a 2008-10-17 document the variable is text.
func TestParseForChecksWhatItLeavesOut(t *testing.T) {
	for _, doc := range []string{
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws:s3:::b/${aws:username"}],"Version":"2012-10-17"}`,
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws:s3:::b/${aws:username"}],"Version":"2008-10-17"}`,
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"NumericLessThan":{"n":"ten"}}}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Deny","Action":"iam:*"}]}`,
		`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Deny","Principal":"*","Action":"iam:*","Resource":"*"}]}`,
	} {
		checkParseFor(t, []byte(doc), Identity, "s3:GetObject")
	}
	if _, err := ParseFor(`{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},{"Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws:s3:::b/${aws:username"}],"Version":"2012-10-17"}`, Identity, "s3:GetObject"); err == nil {
		t.Error("a bad variable in a statement left out was not refused")
	}
}

func FuzzParseFor(f *testing.F) {
	for _, c := range parseDirectCases {
		f.Add([]byte(c.in), uint8(c.kind), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, k, a uint8) {
		checkParseFor(t, data, Kind(k%numKinds), parseForActions[int(a)%len(parseForActions)])
	})
}
