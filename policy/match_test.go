package policy

import (
	"strings"
	"testing"
)

// ? stands for one character, not one byte: "donn?es" matches "données",
// whose é takes two bytes in UTF-8, and "??" does not match one character
// of three bytes, even after a star.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html
// ("a question mark (?) represents any single character").
func TestQuestionMarkMatchesOneCharacter(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"donn?es", "donnees", true},
		{"donn?es", "données", true},
		{"donn??es", "données", false},
		{"?", "日", true},
		{"??", "日", false},
		{"*??", "日", false},
		{"*??", "a日", true},
		{"*?", "🚀", true},
		{"a*?b", "a日本b", true},
		{"bucket-*/donn?es/*", "bucket-11/données/rapport-31.csv", true},
		{"proj-?-*", "proj-é-1", true},
		{"proj-?-*", "proj-éé-1", false},
	}
	for _, c := range cases {
		t.Run(c.pattern+" "+c.s, func(t *testing.T) {
			p, err := compilePattern(c.pattern, true, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.match(c.s, nil, false); got != c.want {
				t.Errorf("%q matches %q: %v, want %v", c.pattern, c.s, got, c.want)
			}
		})
	}
}

// coversAction answers as the compiled action pattern does, for every
// pattern and action of these lists and of the fuzzer's.
func TestCoversActionAgreesWithThePattern(t *testing.T) {
	patterns := []string{"*", "s3:*", "s3:Get*", "S3:GETOBJECT", "s3:GetObject", "s3:Get?bject", "*:List*", "s?:*Object*", "dynamodb:*Item", "??", "*?", "a*b*c", "", "s3:", "*Object"}
	actions := []string{"s3:GetObject", "S3:getobject", "s3:PutObject", "sqs:ListQueues", "dynamodb:GetItem", "s3:Get日bject", "ab", "日", "", "abc", "aXbYc"}
	for _, p := range patterns {
		for _, a := range actions {
			checkCoversAction(t, p, a)
		}
	}
}

func checkCoversAction(t *testing.T, p, action string) {
	t.Helper()
	if !isASCII(p) {
		return // not an action of a parsed document, which checkAction holds to ASCII
	}
	compiled, err := compilePattern(strings.ToLower(p), true, false)
	if err != nil {
		return
	}
	if got, want := coversAction(p, action), compiled.match(action, nil, true); got != want {
		t.Errorf("coversAction(%q, %q) = %v, the compiled pattern %v", p, action, got, want)
	}
}

func FuzzCoversAction(f *testing.F) {
	f.Add("s3:Get*", "s3:GetObject")
	f.Add("*?", "日")
	f.Fuzz(func(t *testing.T, p, action string) {
		checkCoversAction(t, p, action)
	})
}
