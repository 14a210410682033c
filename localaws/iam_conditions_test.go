package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// TestConditionKeys checks that each IAM action gives the policy engine the
// condition keys AWS provides for it: a user whose one policy allows an
// action under a condition can do exactly what the condition admits.
func TestConditionKeys(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	boundary := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("boundary"), PolicyDocument: aws.String(allowAll)}))
	readOnly := "arn:aws:iam::aws:policy/IAMReadOnlyAccess"
	adminPolicy := "arn:aws:iam::aws:policy/AdministratorAccess"
	bounded := aws.ToString(boundary.Policy.Arn)
	for _, u := range []struct {
		name     string
		tags     []types.Tag
		boundary string
	}{
		{"blue", []types.Tag{tag("team", "blue")}, bounded},
		{"red", []types.Tag{tag("team", "red")}, ""},
	} {
		in := &iam.CreateUserInput{UserName: aws.String(u.name), Tags: u.tags}
		if u.boundary != "" {
			in.PermissionsBoundary = aws.String(u.boundary)
		}
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, in))
	}
	for _, r := range []struct{ name, team string }{{"blue-role", "blue"}, {"red-role", "red"}} {
		must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(r.name), AssumeRolePolicyDocument: aws.String(trustAccount), Tags: []types.Tag{tag("team", r.team)}}))
	}

	tests := []struct {
		name    string
		policy  string
		allowed func(c *iam.Client) error
		denied  func(c *iam.Client) error
	}{
		{
			name:   "aws:ResourceTag is the user's tag",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:GetUser","Resource":"*","Condition":{"StringEquals":{"aws:ResourceTag/team":"blue"}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("blue")})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("red")})
				return err
			},
		},
		{
			name:   "aws:ResourceTag is the role's tag",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:UpdateRole","Resource":"*","Condition":{"StringEquals":{"aws:ResourceTag/team":"blue"}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("blue-role"), Description: aws.String("blue")})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("red-role"), Description: aws.String("red")})
				return err
			},
		},
		{
			name: "aws:RequestTag and aws:TagKeys are the tags a create sets",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:CreateRole","Resource":"*","Condition":{` +
				`"StringEquals":{"aws:RequestTag/team":"blue"},"ForAllValues:StringEquals":{"aws:TagKeys":["team"]}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("tagged"), AssumeRolePolicyDocument: aws.String(trustAccount), Tags: []types.Tag{tag("team", "blue")}})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("extra"), AssumeRolePolicyDocument: aws.String(trustAccount), Tags: []types.Tag{tag("team", "blue"), tag("cost", "x")}})
				return err
			},
		},
		{
			name:   "aws:TagKeys of an untag are the keys it removes",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:UntagUser","Resource":"*","Condition":{"ForAllValues:StringEquals":{"aws:TagKeys":["temp"]}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.UntagUser(ctx, &iam.UntagUserInput{UserName: aws.String("red"), TagKeys: []string{"temp"}})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.UntagUser(ctx, &iam.UntagUserInput{UserName: aws.String("red"), TagKeys: []string{"team"}})
				return err
			},
		},
		{
			name:   "iam:PermissionsBoundary of CreateUser is the boundary it sets",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:CreateUser","Resource":"*","Condition":{"StringEquals":{"iam:PermissionsBoundary":"` + bounded + `"}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("new-bounded"), PermissionsBoundary: aws.String(bounded)})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("new-free")})
				return err
			},
		},
		{
			name:   "iam:PermissionsBoundary of PutUserPolicy is the user's boundary",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:PutUserPolicy","Resource":"*","Condition":{"StringEquals":{"iam:PermissionsBoundary":"` + bounded + `"}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("blue"), PolicyName: aws.String("x"), PolicyDocument: aws.String(allowAll)})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("red"), PolicyName: aws.String("x"), PolicyDocument: aws.String(allowAll)})
				return err
			},
		},
		{
			name:   "iam:PermissionsBoundary of PutUserPermissionsBoundary is the boundary it sets",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:PutUserPermissionsBoundary","Resource":"*","Condition":{"StringEquals":{"iam:PermissionsBoundary":"` + bounded + `"}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("red"), PermissionsBoundary: aws.String(bounded)})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("red"), PermissionsBoundary: aws.String(readOnly)})
				return err
			},
		},
		{
			name:   "iam:PolicyARN is the policy attached",
			policy: `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["iam:AttachRolePolicy","iam:DetachRolePolicy"],"Resource":"*","Condition":{"ArnEquals":{"iam:PolicyARN":"` + readOnly + `"}}}}`,
			allowed: func(c *iam.Client) error {
				_, err := c.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("red-role"), PolicyArn: aws.String(readOnly)})
				return err
			},
			denied: func(c *iam.Client) error {
				_, err := c.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("red-role"), PolicyArn: aws.String(adminPolicy)})
				return err
			},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := userClient(t, e, admin, "caller"+string(rune('a'+i)), tt.policy)
			if err := tt.allowed(c); err != nil {
				t.Errorf("allowed case: %v", err)
			}
			wantCode(t, "denied case", tt.denied(c), "AccessDenied")
		})
	}
}
