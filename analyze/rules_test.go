package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// ruleCase pins one rule: a document that has the finding (severity and
// path) or, with severity -1, one that does not.
type ruleCase struct {
	name     string
	kind     policy.Kind
	doc      string
	id       string
	severity Severity
	path     string
	// want is text the finding's Message or Fix must hold.
	want string
}

func checkRuleCases(t *testing.T, cases []ruleCase, run func(doc *policy.Document) []Finding) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := run(docOf(t, c.kind, c.doc))
			got := withID(fs, c.id)
			if c.severity < 0 {
				if len(got) != 0 {
					t.Errorf("want no %s, got %v", c.id, got)
				}
				return
			}
			if len(got) != 1 {
				logFindings(t, fs)
				t.Fatalf("want one %s, got %d", c.id, len(got))
			}
			f := got[0]
			if f.Severity != c.severity || f.Path != c.path || f.Policy != "app-policy" {
				t.Errorf("got %v, want %s at %s", f, c.severity, c.path)
			}
			if f.Message == "" || f.Fix == "" {
				t.Errorf("finding without message or fix: %v", f)
			}
			if c.want != "" && !strings.Contains(f.Message+" "+f.Fix, c.want) {
				t.Errorf("got %v, want it to say %q", f, c.want)
			}
		})
	}
}
