package whocan

import (
	"fmt"
	"strings"
	"testing"

	"leash.dev/leash/analyze"
)

// writeThroughSnapshot is an account where user u may assume role r (r's
// trust names u), user v may assume role far, and admin holds
// AdministratorAccess. u's inline policy "w" has the statements given; r
// has rAttached attached, far has the customer managed policy q.
func writeThroughSnapshot(t *testing.T, statements, rAttached string) *Model {
	t.Helper()
	const a = "arn:aws:iam::111122223333:"
	pol := func(arn, doc string) string {
		name := arn[strings.LastIndex(arn, "/")+1:]
		return fmt.Sprintf(`{"PolicyName":%q,"Arn":%q,"DefaultVersionId":"v1","PolicyVersionList":[{"VersionId":"v1","IsDefaultVersion":true,"Document":%s}]}`, name, arn, doc)
	}
	doc := func(action string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"` + action + `","Resource":"*"}]}`
	}
	trust := func(user string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + a + `user/` + user + `"},"Action":"sts:AssumeRole"}]}`
	}
	role := func(name, trustee, attached string) string {
		return fmt.Sprintf(`{"RoleName":%q,"Arn":%q,"AssumeRolePolicyDocument":%s,"RolePolicyList":[],"AttachedManagedPolicies":[{"PolicyName":"x","PolicyArn":%q}]}`,
			name, a+"role/"+name, trust(trustee), attached)
	}
	data := `{"UserDetailList":[
		{"UserName":"u","Arn":"` + a + `user/u","GroupList":[],"AttachedManagedPolicies":[],
		 "UserPolicyList":[{"PolicyName":"w","PolicyDocument":{"Version":"2012-10-17","Statement":[
			{"Sid":"AssumeR","Effect":"Allow","Action":"sts:AssumeRole","Resource":"` + a + `role/*"},` + statements + `]}}]},
		{"UserName":"v","Arn":"` + a + `user/v","GroupList":[],"AttachedManagedPolicies":[],"UserPolicyList":[]},
		{"UserName":"admin","Arn":"` + a + `user/admin","GroupList":[],"UserPolicyList":[],
		 "AttachedManagedPolicies":[{"PolicyName":"AdministratorAccess","PolicyArn":"arn:aws:iam::aws:policy/AdministratorAccess"}]}],
		"GroupDetailList":[],
		"RoleDetailList":[` + role("r", "u", rAttached) + `,` + role("far", "v", a+"policy/q") + `],
		"Policies":[` + strings.Join([]string{
		pol("arn:aws:iam::aws:policy/AdministratorAccess", doc("*")),
		pol("arn:aws:iam::aws:policy/ReadOnlyAccess", doc("s3:Get*")),
		pol(a+"policy/p", doc("s3:ListBucket")),
		pol(a+"policy/q", doc("sqs:SendMessage")),
	}, ",") + `]}`
	s, err := Parse([]byte(data), "writethrough.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Writing a customer managed policy attached to a role one can assume is
// any permission: the new default version (iam:CreatePolicyVersion, which
// can set it as the default) or an older version made the default
// (iam:SetDefaultPolicyVersion) is the role's once assumed. AWS managed
// policies cannot be changed, and a policy attached only to roles out of
// reach gives nothing.
func TestWhoCanWriteThroughManagedPolicy(t *testing.T) {
	const (
		a        = "arn:aws:iam::111122223333:"
		customer = a + "policy/p"
		awsRead  = "arn:aws:iam::aws:policy/ReadOnlyAccess"
	)
	grant := func(effect, action, resource string) string {
		return fmt.Sprintf(`{"Sid":"Write","Effect":%q,"Action":%q,"Resource":%q}`, effect, action, resource)
	}
	assume := `, and may sts:AssumeRole role/r (trust: Statement[0]): any permission`
	cases := []struct {
		name       string
		statements string
		rAttached  string
		// want is u's one step, "" when u must not be listed.
		want, action, resource string
	}{
		{"CreatePolicyVersion on a customer policy attached to a role u can assume",
			grant("Allow", "iam:CreatePolicyVersion", customer), customer,
			`user/u may iam:CreatePolicyVersion on policy/p (inline policy w of user u Statement[1] "Write"), attached to role/r` + assume,
			"iam:CreatePolicyVersion", customer},
		{"SetDefaultPolicyVersion on it",
			grant("Allow", "iam:SetDefaultPolicyVersion", customer), customer,
			`user/u may iam:SetDefaultPolicyVersion on policy/p (inline policy w of user u Statement[1] "Write"), attached to role/r` + assume,
			"iam:SetDefaultPolicyVersion", customer},
		{"PutRolePolicy on the role itself names the role",
			grant("Allow", "iam:PutRolePolicy", a+"role/r"), customer,
			`user/u may iam:PutRolePolicy on role/r (inline policy w of user u Statement[1] "Write")` + assume,
			"iam:PutRolePolicy", a + "role/r"},
		{"near-miss: CreatePolicyVersion on a policy attached only to a role u cannot assume",
			grant("Allow", "iam:CreatePolicyVersion", a+"policy/q"), customer, "", "", ""},
		{"near-miss: CreatePolicyVersion on any policy, where the role holds only an AWS managed one",
			grant("Allow", "iam:CreatePolicyVersion", "*"), awsRead, "", "", ""},
		{"near-miss: CreatePolicyVersion allowed and explicitly denied on the policy",
			grant("Allow", "iam:CreatePolicyVersion", "*") + `,{"Effect":"Deny","Action":"iam:CreatePolicyVersion","Resource":"` + customer + `"}`, customer, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := writeThroughSnapshot(t, c.statements, c.rAttached)
			g := m.Graph()
			ans, err := m.WhoCanReach(Question{Action: "iam:CreateUser"}, g)
			if err != nil {
				t.Fatal(err)
			}
			var u *Row
			for i := range ans.Rows {
				if ans.Rows[i].ARN == a+"user/u" {
					u = &ans.Rows[i]
				}
			}
			i, _ := m.Index(a + "user/u")
			var critical []analyze.Finding
			for _, f := range g.ChainFindings(i) {
				if f.Severity == analyze.Critical {
					critical = append(critical, f)
				}
			}
			if c.want == "" {
				if u != nil {
					t.Fatalf("u is listed: %s", PathText(*u, ans.Action))
				}
				if len(critical) != 0 {
					t.Errorf("leash check --account reports a chain to any permission: %v", critical)
				}
				return
			}
			if u == nil || len(u.Path) != 1 {
				t.Fatalf("u is not listed with a one-step path: %v", rowsText(ans))
			}
			st := u.Path[0]
			if got := PathText(*u, ans.Action); got != c.want {
				t.Errorf("path:\n got %q\nwant %q", got, c.want)
			}
			if st.Action != c.action || st.Resource != c.resource || st.To != AnyPermission {
				t.Errorf("step action %s on %s to %s, want %s on %s to %s", st.Action, st.Resource, st.To, c.action, c.resource, AnyPermission)
			}
			// leash check --account reports the same as a chain through r.
			if len(critical) != 1 || critical[0].Policy != "w" || critical[0].Path != "Statement[1]" ||
				!strings.Contains(critical[0].Message, "reaches any permission in 1 step through other principals: "+c.want) {
				t.Errorf("chain findings %v, want one critical naming u's Write statement and the step", critical)
			}
		})
	}
}
