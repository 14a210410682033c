package whocan

import (
	"fmt"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// A principal whose snapshot lacks identity policies is listed with its
// "no" only when the missing policies could turn it into a yes: asked
// again with an identity policy allowing everything in their place (its
// boundary, the organization's policies and the resource's policy kept),
// it would be allowed.
func TestWhoCanIncompleteListedOnlyWhenMissingCouldAllow(t *testing.T) {
	onlyEC2 := policy.Named{Name: "only-ec2", Document: mustDoc(t, policy.SCP, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*","Resource":"*"}]}`)}
	// frank (examples/check/account.json) is in group ghosts and has
	// managed policy Missing, neither in the snapshot.
	frank := acct + "user/frank"
	cases := []struct {
		name       string
		org        Org
		q          Question
		escalation bool
		listed     bool
	}{
		{"iam:CreateUser: a missing policy could allow it", Org{}, Question{Action: "iam:CreateUser"}, false, true},
		{"sts:AssumeRole on role a, whose trust names alice alone: nothing frank holds could let him in",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/a"}, false, false},
		{"a trust policy given with --resource-policy naming bob alone",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/a", ResourcePolicy: trustNaming(t, acct+"user/bob")}, false, false},
		{"sts:AssumeRole on role bounded, whose trust names the account: his identity policies decide",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/bounded"}, false, true},
		{"an SCP allowing only ec2:* refuses iam:CreateUser whatever his policies say",
			Org{SCPs: [][]policy.Named{{onlyEC2}}}, Question{Action: "iam:CreateUser"}, false, false},
		{"with --escalation, under that SCP no principal and no path can",
			Org{SCPs: [][]policy.Named{{onlyEC2}}}, Question{Action: "iam:CreateUser"}, true, false},
		{"with --escalation, a missing policy could give him a path to alice, who may assume role a",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/a"}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := testModel(t, c.org)
			var a *Answer
			var err error
			if c.escalation {
				a, err = m.WhoCanReach(c.q, m.Graph())
			} else {
				a, err = m.WhoCan(c.q)
			}
			if err != nil {
				t.Fatal(err)
			}
			listed := false
			for _, r := range a.Rows {
				if r.ARN == frank {
					listed = true
					if r.Decision != policy.ImplicitDeny.String() || len(r.Incomplete) != 2 {
						t.Errorf("frank: %s with incomplete %q, want ImplicitDeny and his two missing policies", r.Decision, r.Incomplete)
					}
				}
			}
			if listed != c.listed {
				t.Errorf("frank listed %v, want %v: %v", listed, c.listed, rowsText(a))
			}
		})
	}
}

// A boundary is kept when asking with everything allowed in place of the
// missing policies; a missing boundary is taken as absent, which only
// widens, so it alone never lists a denied principal, and an allowed one
// still carries its warning.
func TestWhoCanIncompleteBoundaries(t *testing.T) {
	const a = "arn:aws:iam::111122223333:"
	s3Get := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`
	data := `{"GroupDetailList":[],"RoleDetailList":[],
		"Policies":[{"PolicyName":"s3-get","Arn":"` + a + `policy/s3-get","DefaultVersionId":"v1","PolicyVersionList":[{"VersionId":"v1","IsDefaultVersion":true,"Document":` + s3Get + `}]}],
		"UserDetailList":[
		{"UserName":"capped","Arn":"` + a + `user/capped","GroupList":[],"UserPolicyList":[],
		 "AttachedManagedPolicies":[{"PolicyName":"gone","PolicyArn":"` + a + `policy/gone"}],
		 "PermissionsBoundary":{"PermissionsBoundaryType":"Policy","PermissionsBoundaryArn":"` + a + `policy/s3-get"}},
		{"UserName":"noboundary","Arn":"` + a + `user/noboundary","GroupList":[],"AttachedManagedPolicies":[],
		 "UserPolicyList":[{"PolicyName":"get","PolicyDocument":` + s3Get + `}],
		 "PermissionsBoundary":{"PermissionsBoundaryType":"Policy","PermissionsBoundaryArn":"` + a + `policy/lost-boundary"}}]}`
	s, err := Parse([]byte(data), "boundaries.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		action string
		want   []string // "ARN decision incomplete-count"
	}{
		// capped's missing policy could allow s3:GetObject, which its
		// boundary allows; noboundary's own inline policy allows it, and its
		// line warns that its boundary is missing.
		{"s3:GetObject", []string{a + "user/noboundary Allowed 1", a + "user/capped ImplicitDeny 1"}},
		// capped's boundary refuses iam:CreateUser whatever the missing
		// policy says; noboundary lacks only its boundary.
		{"iam:CreateUser", nil},
	}
	for _, c := range cases {
		t.Run(c.action, func(t *testing.T) {
			ans, err := m.WhoCan(Question{Action: c.action})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range ans.Rows {
				got = append(got, fmt.Sprintf("%s %s %d", r.ARN, r.Decision, len(r.Incomplete)))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func mustDoc(t *testing.T, kind policy.Kind, src string) *policy.Document {
	t.Helper()
	d, err := policy.Parse([]byte(src), kind)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
