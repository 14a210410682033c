package operator

import (
	"fmt"
	"strings"
	"testing"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/policy/catalog"
)

// TestPlanPolicy pins where a minted user's policy goes: inline, one
// managed policy, or whole statements packed into several, leash's own
// statement always finding room; and the refusals that name the size.
func TestPlanPolicy(t *testing.T) {
	u := mintedUser{name: "unit-apps-big-abcdefgh", policy: policyName("unit-apps-big-abcdefgh"),
		arn: "arn:aws:iam::123456789012:user/leash/unit/unit-apps-big-abcdefgh", policyARNs: "arn:aws:iam::123456789012:policy/leash/unit/"}
	own := policyStatement{Effect: "Allow", Action: []string{"iam:GetUser"}, Resource: u.arn}
	tests := []struct {
		name    string
		entries []leashv1.StatementEntry
		// parts is how many policies the plan has; 0 when refused.
		parts  int
		inline bool
		// refused is a piece of the refusal's message.
		refused string
	}{
		{"a policy under 2,048 characters is inline", []leashv1.StatementEntry{allow("*", "iam:ListUsers")}, 1, true, ""},
		{"a policy under 6,144 characters is one managed policy", largeEntries(), 1, false, ""},
		{"leash's own statement does not push statements that fit one managed policy over: they are split in two",
			[]leashv1.StatementEntry{bulkyStatement("ec2:Describe*", managedPolicyLimit)}, 2, false, ""},
		{"statements over one managed policy are packed whole into as few as fit", splitEntries(), 2, false, ""},
		{"a statement over 6,144 characters on its own is refused, naming it and its size",
			[]leashv1.StatementEntry{allow("*", "iam:ListUsers"), bulkyStatement("ec2:*", 6300)}, 0, false,
			"spec.providerSpec.statementEntries[1]: makes a policy of "},
		{"statements that need more than 10 managed policies are refused with their sizes",
			repeatStatement(bulkyStatement("ec2:Describe*", 4000), 11), 0, false,
			"they need 11, over IAM's default quota of 10 managed policies attached to a user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := planPolicy(&leashv1.AWSProviderSpec{StatementEntries: tt.entries}, u, own)
			if tt.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tt.refused) {
					t.Fatalf("plan error %v, want one saying %q", err, tt.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.parts) != tt.parts || plan.inline != tt.inline {
				t.Fatalf("plan of %d parts, inline %v; want %d, %v", len(plan.parts), plan.inline, tt.parts, tt.inline)
			}
			statements := 0
			for i, part := range plan.parts {
				if part.want.Size > managedPolicyLimit {
					t.Errorf("part %d is %d characters, over %d", i, part.want.Size, managedPolicyLimit)
				}
				if wantName := partName(u.name, i); part.name != wantName || (!plan.inline && part.arn != u.partARN(i)) {
					t.Errorf("part %d named %s (%s), want %s", i, part.name, part.arn, wantName)
				}
				statements += len(part.want.Statements)
			}
			if want := len(tt.entries) + 1; statements != want {
				t.Errorf("the parts hold %d statements, want the request's and leash's own, %d, each once", statements, want)
			}
			if n := strings.Count(strings.Join(docsOf(plan), ""), `"iam:GetUser"`); n != 1 {
				t.Errorf("leash's own statement appears %d times, want once", n)
			}
		})
	}
}

// TestPartUser pins which policy names the sweep takes for a user's parts.
func TestPartUser(t *testing.T) {
	tests := []struct{ name, user string }{
		{"u-abc-policy", "u-abc"},
		{"u-abc-policy-2", "u-abc"},
		{"u-abc-policy-10", "u-abc"},
		{"u-abc-policy-x", ""},
		{"someone-elses", ""},
	}
	for _, tt := range tests {
		if user, ok := partUser(tt.name); user != tt.user || ok != (tt.user != "") {
			t.Errorf("partUser(%q) = %q, %v; want %q", tt.name, user, ok, tt.user)
		}
	}
}

func docsOf(plan policyPlan) []string {
	var docs []string
	for _, p := range plan.parts {
		docs = append(docs, p.doc)
	}
	return docs
}

// bulkyStatement allows actions the catalog expands pattern to, as many as
// make a policy of the statement alone of at most size characters, and more
// than size-40.
func bulkyStatement(pattern string, size int) leashv1.StatementEntry {
	e := allow("*")
	n := 0
	for _, a := range catalog.Default().Expand(pattern) {
		try := allow("*", append(e.Action, a.String())...)
		_, doc, err := requestedPolicy(&leashv1.AWSProviderSpec{StatementEntries: []leashv1.StatementEntry{try}})
		if err != nil {
			panic(err)
		}
		if doc.Size > size {
			break
		}
		e, n = try, doc.Size
	}
	if n <= size-40 {
		panic(fmt.Sprintf("%s expands to too few actions for %d characters", pattern, size))
	}
	return e
}

func repeatStatement(e leashv1.StatementEntry, n int) []leashv1.StatementEntry {
	out := make([]leashv1.StatementEntry, n)
	for i := range out {
		out[i] = e
	}
	return out
}

// splitEntries make a policy over one managed policy: two statements of
// about 3,500 characters, each granting one action the tests call.
func splitEntries() []leashv1.StatementEntry {
	a, b := bulkyStatement("ec2:Describe*", 3500), bulkyStatement("rds:*", 3500)
	a.Action = append(a.Action, "iam:ListUsers")
	b.Action = append(b.Action, "iam:ListPolicies")
	return []leashv1.StatementEntry{a, b}
}
