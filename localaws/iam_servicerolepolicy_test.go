package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestServiceRolePolicyIsNotAttachable attaches an AWS service role policy
// (path /aws-service-role/) to an ordinary role, user and group, and sets
// it as a permissions boundary. IAM answers PolicyNotAttachable (400): "The
// request failed because Amazon Web Services service role policies can
// only be attached to the service-linked role for that service", an error
// of AttachRolePolicy, AttachUserPolicy, AttachGroupPolicy,
// PutRolePermissionsBoundary and PutUserPermissionsBoundary alike:
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_AttachRolePolicy.html
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_AttachUserPolicy.html
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_AttachGroupPolicy.html
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_PutRolePermissionsBoundary.html
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_PutUserPermissionsBoundary.html
// The message is the one IAM sends ("Cannot attach a Service Role Policy to
// a Customer Role.", as reported in aws/aws-cdk#6131). Nothing changes on a
// refusal: no attachment, no boundary, no use counted on the policy.
func TestServiceRolePolicyIsNotAttachable(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: "111122223333"})
	admin := e.IAM(nil)
	ctx := context.Background()
	const (
		serviceRole = "arn:aws:iam::aws:policy/aws-service-role/AccessAnalyzerServiceRolePolicy"
		unknown     = "arn:aws:iam::aws:policy/aws-service-role/NoSuchServiceRolePolicy"
		message     = "Cannot attach a Service Role Policy to a Customer Role."
	)
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("app"), AssumeRolePolicyDocument: aws.String(trustAccount)}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs")}); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		name string
		call func(arn string) error
	}{
		{"AttachRolePolicy", func(arn string) error {
			_, err := admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("app"), PolicyArn: &arn})
			return err
		}},
		{"AttachUserPolicy", func(arn string) error {
			_, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: &arn})
			return err
		}},
		{"AttachGroupPolicy", func(arn string) error {
			_, err := admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: &arn})
			return err
		}},
		{"PutRolePermissionsBoundary", func(arn string) error {
			_, err := admin.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("app"), PermissionsBoundary: &arn})
			return err
		}},
		{"PutUserPermissionsBoundary", func(arn string) error {
			_, err := admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("alice"), PermissionsBoundary: &arn})
			return err
		}},
		// CreateRole and CreateUser list no PolicyNotAttachable, but a
		// boundary IAM will not set afterwards is not set on create either:
		// leash local refuses it alike.
		{"CreateRole with the boundary", func(arn string) error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("bounded"), AssumeRolePolicyDocument: aws.String(trustAccount), PermissionsBoundary: &arn})
			return err
		}},
		{"CreateUser with the boundary", func(arn string) error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bounded"), PermissionsBoundary: &arn})
			return err
		}},
	}
	for _, c := range calls {
		wantError(t, c.name+" with a service role policy", c.call(serviceRole), "PolicyNotAttachable", message)
		wantCode(t, c.name+" with a service role policy AWS does not publish", c.call(unknown), "NoSuchEntity")
	}

	// Nothing was changed.
	if a := must[*iam.ListAttachedRolePoliciesOutput](t, "ListAttachedRolePolicies")(admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("app")})).AttachedPolicies; len(a) != 0 {
		t.Errorf("role's attached policies = %+v, want none", a)
	}
	if a := must[*iam.ListAttachedUserPoliciesOutput](t, "ListAttachedUserPolicies")(admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")})).AttachedPolicies; len(a) != 0 {
		t.Errorf("user's attached policies = %+v, want none", a)
	}
	if a := must[*iam.ListAttachedGroupPoliciesOutput](t, "ListAttachedGroupPolicies")(admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("devs")})).AttachedPolicies; len(a) != 0 {
		t.Errorf("group's attached policies = %+v, want none", a)
	}
	if r := must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")})).Role; r.PermissionsBoundary != nil {
		t.Errorf("role's boundary = %+v, want none", r.PermissionsBoundary)
	}
	if u := must[*iam.GetUserOutput](t, "GetUser")(admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")})).User; u.PermissionsBoundary != nil {
		t.Errorf("user's boundary = %+v, want none", u.PermissionsBoundary)
	}
	for _, get := range []func() error{
		func() error {
			_, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("bounded")})
			return err
		},
		func() error {
			_, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bounded")})
			return err
		},
	} {
		wantCode(t, "the principal created with the refused boundary", get(), "NoSuchEntity")
	}
	p := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(serviceRole)})).Policy
	if aws.ToInt32(p.AttachmentCount) != 0 || aws.ToInt32(p.PermissionsBoundaryUsageCount) != 0 {
		t.Errorf("service role policy counts %d attachments and %d boundaries, want none", aws.ToInt32(p.AttachmentCount), aws.ToInt32(p.PermissionsBoundaryUsageCount))
	}
	if ents := must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: aws.String(serviceRole)})); len(ents.PolicyRoles)+len(ents.PolicyUsers)+len(ents.PolicyGroups) != 0 {
		t.Errorf("entities of the service role policy = %+v, want none", ents)
	}

	// An ordinary AWS managed policy still attaches everywhere.
	for _, c := range calls[:5] {
		if err := c.call("arn:aws:iam::aws:policy/ReadOnlyAccess"); err != nil {
			t.Errorf("%s with ReadOnlyAccess: %v", c.name, err)
		}
	}
}
