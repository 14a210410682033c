package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// TestLeastPrivilegeAppliesDenies pins that the least-privilege findings
// account for the set's own unconditional Deny statements, in the same
// document or another one of the set.
func TestLeastPrivilegeAppliesDenies(t *testing.T) {
	cases := []struct {
		name string
		docs []string
		id   string
		// want: "" no finding; otherwise a finding whose message holds it.
		want string
	}{
		{"Allow iam:* with Deny iam:* grants nothing",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`},
			"LEASH-LP-002", ""},
		{"Allow iam:* with Deny iam:* in another policy of the set grants nothing",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"}]}`,
				`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`},
			"LEASH-LP-002", ""},
		{"Allow * with Deny * grants nothing",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"*","Resource":"*"}]}`},
			"LEASH-LP-001", ""},
		{"Allow * with Deny iam:* is everything but IAM",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`},
			"LEASH-LP-001", `every action of every AWS service but every iam action (denied by policy "p0" Statement[1])`},
		{"Allow iam:* with Deny iam:Delete* leaves the rest",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","Action":"iam:Delete*","Resource":"*"}]}`},
			"LEASH-LP-002", "iam actions (denied by"},
		{"a Deny of NotAction s3:* takes every iam action, future ones too",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","NotAction":"s3:*","Resource":"*"}]}`},
			"LEASH-LP-002", ""},
		{"a conditional Deny takes nothing away",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"Bool":{"aws:MultiFactorAuthPresent":"false"}}}]}`},
			"LEASH-LP-002", "allows every iam action, present and future"},
		{"a Deny on one role takes nothing away from every resource",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"arn:aws:iam::*:role/admin"}]}`},
			"LEASH-LP-002", "allows every iam action, present and future"},
		{"PassRole denied is no PassRole finding",
			[]string{`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","Action":"iam:PassRole","Resource":"*"}]}`},
			"LEASH-LP-005", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var docs []policy.Named
			for i, d := range c.docs {
				docs = append(docs, policy.Named{Name: "p" + string(rune('0'+i)), Document: docOf(t, policy.Identity, d)})
			}
			fs := withID(Review(docs, "", nil), c.id)
			if c.want == "" {
				if len(fs) != 0 {
					t.Fatalf("reported: %v", fs)
				}
				return
			}
			if len(fs) != 1 || !strings.Contains(fs[0].Message, c.want) {
				t.Fatalf("got %v, want one %s saying %q", fs, c.id, c.want)
			}
		})
	}
	// LeastPrivilege alone applies the document's own denies.
	doc := docOf(t, policy.Identity, c0Own)
	if fs := LeastPrivilege(doc, "p"); len(withID(fs, "LEASH-LP-002")) != 0 {
		t.Errorf("LeastPrivilege reported a grant its own Deny takes away: %v", fs)
	}
}

// c0Own allows iam:* and denies it in the same document.
const c0Own = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`
