package whocan

import (
	"fmt"
	"testing"
)

// A principal that may change its own policies reaches any permission only
// when no boundary caps the change, or when it may lift its boundary too.
func TestSelfEdgeAndBoundaries(t *testing.T) {
	const role = "arn:aws:iam::111122223333:role/r"
	attachSelf := `{"Effect":"Allow","Action":"iam:AttachRolePolicy","Resource":"` + role + `"}`
	liftSelf := `{"Effect":"Allow","Action":"iam:DeleteRolePermissionsBoundary","Resource":"` + role + `"}`
	boundaryAllowingIAM := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:*","Resource":"*"}]}`
	cases := []struct {
		name       string
		statements string
		boundary   string // "" for none
		want       bool
	}{
		{"may attach to itself, no boundary", attachSelf, "", true},
		{"may attach to itself, capped by a boundary that allows it", attachSelf, boundaryAllowingIAM, false},
		{"may attach to itself and delete its boundary", attachSelf + "," + liftSelf, boundaryAllowingIAM, true},
		{"may delete its boundary only", liftSelf, boundaryAllowingIAM, false},
		{"may attach to another role only", `{"Effect":"Allow","Action":"iam:AttachRolePolicy","Resource":"arn:aws:iam::111122223333:role/other"}`, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			boundary, policies := "", ""
			if c.boundary != "" {
				boundary = `,"PermissionsBoundary":{"PermissionsBoundaryType":"Policy","PermissionsBoundaryArn":"arn:aws:iam::111122223333:policy/b"}`
				policies = `{"PolicyName":"b","Arn":"arn:aws:iam::111122223333:policy/b","DefaultVersionId":"v1","PolicyVersionList":[{"VersionId":"v1","IsDefaultVersion":true,"Document":` + c.boundary + `}]}`
			}
			data := fmt.Sprintf(`{"UserDetailList":[],"GroupDetailList":[],"Policies":[%s],"RoleDetailList":[{"RoleName":"r","Arn":%q,
				"AssumeRolePolicyDocument":{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]},
				"RolePolicyList":[{"PolicyName":"p","PolicyDocument":{"Version":"2012-10-17","Statement":[%s]}}],"AttachedManagedPolicies":[]%s}]}`,
				policies, role, c.statements, boundary)
			s, err := Parse([]byte(data), "t.json")
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewModel(s, Org{})
			if err != nil {
				t.Fatal(err)
			}
			g := m.Graph()
			got := false
			for _, e := range g.Out[0] {
				got = got || e.To == g.Admin
			}
			if got != c.want {
				t.Errorf("edge to any permission: %v, want %v (edges %v)", got, c.want, g.Out[0])
			}
		})
	}
}
