package policy

import "testing"

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
