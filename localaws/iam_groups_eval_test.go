package localaws_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// TestGroupPolicyAllowsOnlyWhileMember is the acceptance test: a
// user allowed only through its group's policies may act, and the first
// request after RemoveUserFromGroup is denied, with no stale cached
// decision; SimulatePrincipalPolicy agrees at each step.
func TestGroupPolicyAllowsOnlyWhileMember(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	listUsers := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`
	listRoles := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListRoles","Resource":"*"}]}`
	member := userClient(t, e, admin, "member", "")
	memberARN := "arn:aws:iam::" + account + ":user/member"
	group := aws.String("readers")
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: group, Path: aws.String("/team/")}))
	must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: group, PolicyName: aws.String("list-users"), PolicyDocument: aws.String(listUsers)}))
	managed := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("list-roles"), PolicyDocument: aws.String(listRoles)}))
	must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: group, PolicyArn: managed.Policy.Arn}))

	// calls are what the member is asked to do: one through the group's
	// inline policy, one through its attached managed policy.
	calls := []struct {
		action string
		call   func() error
	}{
		{"iam:ListUsers", func() error { _, err := member.ListUsers(ctx, &iam.ListUsersInput{}); return err }},
		{"iam:ListRoles", func() error { _, err := member.ListRoles(ctx, &iam.ListRolesInput{}); return err }},
	}
	simulate := func(source string) []decision {
		t.Helper()
		out := must[*iam.SimulatePrincipalPolicyOutput](t, "SimulatePrincipalPolicy")(admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{
			PolicySourceArn: aws.String(source), ActionNames: []string{"iam:ListUsers", "iam:ListRoles"}}))
		return decisions(out.EvaluationResults)
	}
	allowed := []decision{
		{"iam:ListUsers", "*", "allowed", []string{"group/list-users"}, nil},
		{"iam:ListRoles", "*", "allowed", []string{"user-managed/list-roles"}, nil},
	}
	denied := []decision{
		{"iam:ListUsers", "*", "implicitDeny", nil, nil},
		{"iam:ListRoles", "*", "implicitDeny", nil, nil},
	}
	sameDecisions := func(what string, got, want []decision) {
		t.Helper()
		if !slices.EqualFunc(got, want, sameDecision) {
			t.Errorf("%s = %+v, want %+v", what, got, want)
		}
	}
	steps := []struct {
		name   string
		change func()
		allow  bool
	}{
		{"a user in no group is denied", func() {}, false},
		{"the group's policies allow its new member", func() {
			must[*iam.AddUserToGroupOutput](t, "AddUserToGroup")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: group, UserName: aws.String("member")}))
		}, true},
		{"the next request after RemoveUserFromGroup is denied", func() {
			must[*iam.RemoveUserFromGroupOutput](t, "RemoveUserFromGroup")(admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: group, UserName: aws.String("member")}))
		}, false},
		{"joining again allows again", func() {
			must[*iam.AddUserToGroupOutput](t, "AddUserToGroup")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: group, UserName: aws.String("member")}))
		}, true},
		{"after DeleteGroupPolicy and DetachGroupPolicy the member is denied", func() {
			must[*iam.DeleteGroupPolicyOutput](t, "DeleteGroupPolicy")(admin.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: group, PolicyName: aws.String("list-users")}))
			must[*iam.DetachGroupPolicyOutput](t, "DetachGroupPolicy")(admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: group, PolicyArn: managed.Policy.Arn}))
		}, false},
	}
	for _, step := range steps {
		step.change()
		for _, c := range calls {
			err := c.call()
			switch {
			case step.allow && err != nil:
				t.Errorf("%s: %s: %v, want allowed", step.name, c.action, err)
			case !step.allow:
				wantCode(t, step.name+": "+c.action, err, "AccessDenied")
			}
		}
		want := denied
		if step.allow {
			want = allowed
		}
		sameDecisions(step.name+": SimulatePrincipalPolicy of the user", simulate(memberARN), want)
	}

	t.Run("a group ARN as PolicySourceArn simulates the group's own policies", func(t *testing.T) {
		must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: group, PolicyName: aws.String("list-users"), PolicyDocument: aws.String(listUsers)}))
		got := simulate("arn:aws:iam::" + account + ":group/team/readers")
		want := []decision{
			{"iam:ListUsers", "*", "allowed", []string{"group/list-users"}, nil},
			{"iam:ListRoles", "*", "implicitDeny", nil, nil},
		}
		sameDecisions("SimulatePrincipalPolicy of the group", got, want)
		_, err := admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{
			PolicySourceArn: aws.String("arn:aws:iam::" + account + ":group/readers"), ActionNames: []string{"iam:ListUsers"}})
		wantCode(t, "a group ARN with the wrong path", err, "NoSuchEntity")
	})
	t.Run("a policy attached to the user and its group counts once", func(t *testing.T) {
		must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: group, PolicyArn: managed.Policy.Arn}))
		must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("member"), PolicyArn: managed.Policy.Arn}))
		sameDecisions("SimulatePrincipalPolicy of the user", simulate(memberARN), allowed)
	})
	t.Run("an explicit deny in a group's policy wins over the user's allow", func(t *testing.T) {
		deny := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"iam:ListRoles","Resource":"*"}]}`
		must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: group, PolicyName: aws.String("no-roles"), PolicyDocument: aws.String(deny)}))
		_, err := member.ListRoles(ctx, &iam.ListRolesInput{})
		wantCode(t, "ListRoles under the group's deny", err, "AccessDenied")
	})
}

// TestUpdateGroupNeedsBothNames pins IAM's rule that renaming a group needs
// iam:UpdateGroup on the group under its old name and under its new one.
func TestUpdateGroupNeedsBothNames(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	teams := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:UpdateGroup","Resource":"arn:aws:iam::` + account + `:group/team-*"}]}`
	caller := userClient(t, e, admin, "renamer", teams)
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("team-a")}))
	tests := []struct {
		name, newName string
		code          string // "" when allowed
	}{
		{"a new name outside the allowed groups is AccessDenied", "admins", "AccessDenied"},
		{"a new name inside the allowed groups is allowed", "team-b", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := caller.UpdateGroup(ctx, &iam.UpdateGroupInput{GroupName: aws.String("team-a"), NewGroupName: aws.String(tt.newName)})
			wantCode(t, tt.name, err, tt.code)
		})
	}
	if _, err := admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("team-b")}); err != nil {
		t.Errorf("GetGroup team-b after the allowed rename: %v", err)
	}
}
