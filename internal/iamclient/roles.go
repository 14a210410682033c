package iamclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// Role is an IAM role.
type Role struct {
	Name   string
	ARN    string
	RoleID string // AROA…
	// Trust is the trust policy document, URL-decoded.
	Trust string
	// MaxSessionDuration is the longest session AssumeRole may issue.
	MaxSessionDuration time.Duration
	// Tags are the role's tags, as GetRole gives them.
	Tags map[string]string
	// Boundary is the ARN of the role's permissions boundary; empty for
	// none.
	Boundary string
}

// GetRole reads a role, its trust policy included.
func (c *Client) GetRole(ctx context.Context, name string) (Role, error) {
	out, err := c.iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if err != nil {
		return Role{}, fmt.Errorf("iam:GetRole %s: %w", name, err)
	}
	r := out.Role
	trust, err := decodeDocument(aws.ToString(r.AssumeRolePolicyDocument))
	if err != nil {
		return Role{}, fmt.Errorf("iam:GetRole %s: trust policy: %w", name, err)
	}
	tags := map[string]string{}
	for _, t := range r.Tags {
		tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	out2 := Role{Name: aws.ToString(r.RoleName), ARN: aws.ToString(r.Arn), RoleID: aws.ToString(r.RoleId), Trust: trust,
		MaxSessionDuration: time.Duration(aws.ToInt32(r.MaxSessionDuration)) * time.Second, Tags: tags}
	if r.PermissionsBoundary != nil {
		out2.Boundary = aws.ToString(r.PermissionsBoundary.PermissionsBoundaryArn)
	}
	return out2, nil
}

// PutRoleBoundary sets a role's permissions boundary.
func (c *Client) PutRoleBoundary(ctx context.Context, role, arn string) error {
	_, err := c.iam.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{
		RoleName: aws.String(role), PermissionsBoundary: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("iam:PutRolePermissionsBoundary %s: %w", role, err)
	}
	return nil
}

// DeleteRoleBoundary removes a role's permissions boundary.
func (c *Client) DeleteRoleBoundary(ctx context.Context, role string) error {
	_, err := c.iam.DeleteRolePermissionsBoundary(ctx, &iam.DeleteRolePermissionsBoundaryInput{RoleName: aws.String(role)})
	if err != nil {
		return fmt.Errorf("iam:DeleteRolePermissionsBoundary %s: %w", role, err)
	}
	return nil
}

// RolePolicy reads a role's inline policy document (URL-decoded).
func (c *Client) RolePolicy(ctx context.Context, role, name string) (string, error) {
	out, err := c.iam.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name)})
	if err != nil {
		return "", fmt.Errorf("iam:GetRolePolicy %s %s: %w", role, name, err)
	}
	return decodeDocument(aws.ToString(out.PolicyDocument))
}

// PutRolePolicy writes a role's inline policy.
func (c *Client) PutRolePolicy(ctx context.Context, role, name, doc string) error {
	_, err := c.iam.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(role),
		PolicyName: aws.String(name), PolicyDocument: aws.String(doc)})
	if err != nil {
		return fmt.Errorf("iam:PutRolePolicy %s %s: %w", role, name, err)
	}
	return nil
}

// DeleteRolePolicy deletes a role's inline policy; one already gone is not
// an error.
func (c *Client) DeleteRolePolicy(ctx context.Context, role, name string) error {
	_, err := c.iam.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(role), PolicyName: aws.String(name)})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("iam:DeleteRolePolicy %s %s: %w", role, name, err)
	}
	return nil
}

// UpdateTrust replaces a role's trust policy.
func (c *Client) UpdateTrust(ctx context.Context, role, doc string) error {
	_, err := c.iam.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String(role), PolicyDocument: aws.String(doc)})
	if err != nil {
		return fmt.Errorf("iam:UpdateAssumeRolePolicy %s: %w", role, err)
	}
	return nil
}

// DeactivateAccessKey makes a key inactive; it stays, for evidence, but no
// longer authenticates.
func (c *Client) DeactivateAccessKey(ctx context.Context, user, id string) error {
	_, err := c.iam.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String(user), AccessKeyId: aws.String(id),
		Status: iamtypes.StatusTypeInactive})
	if err != nil {
		return fmt.Errorf("iam:UpdateAccessKey %s %s Inactive: %w", user, id, err)
	}
	return nil
}
