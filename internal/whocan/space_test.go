package whocan

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A role may be named as the stand-in of its class is. Then the patterns
// that name the stand-in name a real role too, and the class is asked role
// by role for the principals holding them: the stand-in never answers for
// a role it is not.
func TestARoleNamedAsTheStandInIsAskedAlone(t *testing.T) {
	role := func(name string) string {
		return fmt.Sprintf(`{"RoleName":%q,"Arn":"arn:aws:iam::111122223333:role/%s","AssumeRolePolicyDocument":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]},"RolePolicyList":[],"AttachedManagedPolicies":[]}`, name, name)
	}
	user := func(name, statements string) string {
		return fmt.Sprintf(`{"UserName":%q,"Arn":"arn:aws:iam::111122223333:user/%s","UserPolicyList":[{"PolicyName":"p","PolicyDocument":{"Version":"2012-10-17","Statement":[%s]}}],"GroupList":[],"AttachedManagedPolicies":[]}`, name, name, statements)
	}
	snapshot := `{"UserDetailList":[` + strings.Join([]string{
		user("all-but-standin", `{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"},{"Effect":"Deny","Action":"sts:AssumeRole","Resource":"arn:aws:iam::111122223333:role/`+repName+`"}`),
		user("standin-only", `{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"arn:aws:iam::111122223333:role/`+repName+`"}`),
	}, ",") + `],"RoleDetailList":[` + strings.Join([]string{role("a"), role("b"), role(repName)}, ",") + `],"GroupDetailList":[],"Policies":[]}`
	s, err := Parse([]byte(snapshot), "account.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.graph(context.Background(), graphOptions{spaceMin: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.trustSpaces) == 0 {
		t.Fatal("no trust space: the account does not exercise classes")
	}
	reach := func(user string) string {
		i, _ := m.Index("arn:aws:iam::111122223333:user/" + user)
		var out []string
		for _, p := range g.Reachable(i) {
			out = append(out, short(m.Principals[p.To].ARN))
		}
		slices.Sort(out)
		return strings.Join(out, " ")
	}
	if got, want := reach("all-but-standin"), "role/a role/b"; got != want {
		t.Errorf("all-but-standin reaches %q, want %q", got, want)
	}
	if got, want := reach("standin-only"), "role/"+repName; got != want {
		t.Errorf("standin-only reaches %q, want %q", got, want)
	}
}
