package analyze

import (
	"slices"
	"testing"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// TestCheckJoinsEveryQuestion pins what leash check asks of one principal:
// the review of its policies, its boundary's validation, the --only
// allowlist and the assertions, in one sorted list.
func TestCheckJoinsEveryQuestion(t *testing.T) {
	cat := catalog.Default()
	parse := func(name, doc string) policy.Named {
		d, err := policy.Parse([]byte(doc), policy.Identity)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return policy.Named{Name: name, Document: d}
	}
	identity := []policy.Named{parse("krops-users.json", kropsUsersDoc)}
	boundary := parse("boundary.json", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstancez","Resource":"*"}]}`)
	deny, err := ParseAssertion(cat, "--must-deny", "iam:CreateUser", false)
	if err != nil {
		t.Fatal(err)
	}
	allowAlice, err := ParseAssertion(cat, "--must-allow", "iam:GetUser@arn:aws:iam::123456789012:user/krops-alice", true)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		p       Principal
		only    []string
		asserts []Assertion
		want    []string // finding IDs that must be present
		absent  []string // finding IDs that must not be
	}{
		{name: "the review alone", p: Principal{Identity: identity},
			absent: []string{"LEASH-ONLY-001", "LEASH-ASSERT-DENY", "LEASH-VAL-002"}},
		{name: "the boundary is validated", p: Principal{Identity: identity, Boundary: &boundary},
			want: []string{"LEASH-VAL-002"}},
		{name: "actions outside --only are reported", p: Principal{Identity: identity}, only: []string{"ec2:Describe*"},
			want: []string{"LEASH-ONLY-001"}},
		{name: "a failing assertion is reported and a holding one is not", p: Principal{Identity: identity},
			asserts: []Assertion{deny, allowAlice}, want: []string{"LEASH-ASSERT-DENY"}, absent: []string{"LEASH-ASSERT-ALLOW"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Check(tt.p, tt.only, tt.asserts, cat)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]string, len(got))
			for i, f := range got {
				ids[i] = f.ID
			}
			for _, id := range tt.want {
				if !slices.Contains(ids, id) {
					t.Errorf("findings %v lack %s", ids, id)
				}
			}
			for _, id := range tt.absent {
				if slices.Contains(ids, id) {
					t.Errorf("findings %v hold %s", ids, id)
				}
			}
			sorted := slices.Clone(got)
			SortFindings(sorted)
			if !slices.EqualFunc(got, sorted, func(a, b Finding) bool { return a.ID == b.ID && a.Path == b.Path && a.Policy == b.Policy }) {
				t.Errorf("findings are not sorted: %v", ids)
			}
		})
	}
}
