package iamclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// NewRole is a role to create. Its tags are set in the same call, so that a
// role leash made can always be traced to what it was made for.
type NewRole struct {
	Name, Path, Trust  string
	MaxSessionDuration time.Duration
	Tags               map[string]string
	// Boundary is the ARN of the permissions boundary set in the same
	// call; empty sets none.
	Boundary string
}

// ListedRole is a role as ListRoles gives it: no tags, no trust.
type ListedRole struct {
	Name, ARN string
	Created   time.Time
}

// CreateRole creates a role with its trust policy and tags.
func (c *Client) CreateRole(ctx context.Context, r NewRole) (Role, error) {
	in := &iam.CreateRoleInput{RoleName: aws.String(r.Name), Path: aws.String(r.Path), AssumeRolePolicyDocument: aws.String(r.Trust)}
	if r.MaxSessionDuration > 0 {
		in.MaxSessionDuration = aws.Int32(int32(r.MaxSessionDuration / time.Second))
	}
	for k, v := range r.Tags {
		in.Tags = append(in.Tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if r.Boundary != "" {
		in.PermissionsBoundary = aws.String(r.Boundary)
	}
	out, err := c.iam.CreateRole(ctx, in)
	if err != nil {
		return Role{}, fmt.Errorf("iam:CreateRole %s: %w", r.Name, err)
	}
	return Role{Name: aws.ToString(out.Role.RoleName), ARN: aws.ToString(out.Role.Arn), RoleID: aws.ToString(out.Role.RoleId),
		Trust: r.Trust, MaxSessionDuration: r.MaxSessionDuration, Boundary: r.Boundary}, nil
}

// DeleteRole deletes a role; one already gone is not an error.
func (c *Client) DeleteRole(ctx context.Context, name string) error {
	_, err := c.iam.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("iam:DeleteRole %s: %w", name, err)
	}
	return nil
}

// ListRoles lists the roles whose path starts with prefix.
func (c *Client) ListRoles(ctx context.Context, prefix string) ([]ListedRole, error) {
	var roles []ListedRole
	p := iam.NewListRolesPaginator(c.iam, &iam.ListRolesInput{PathPrefix: aws.String(prefix)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListRoles %s: %w", prefix, err)
		}
		for _, r := range out.Roles {
			roles = append(roles, ListedRole{Name: aws.ToString(r.RoleName), ARN: aws.ToString(r.Arn), Created: aws.ToTime(r.CreateDate)})
		}
	}
	return roles, nil
}

// RolePolicyNames lists a role's inline policies.
func (c *Client) RolePolicyNames(ctx context.Context, role string) ([]string, error) {
	var names []string
	p := iam.NewListRolePoliciesPaginator(c.iam, &iam.ListRolePoliciesInput{RoleName: aws.String(role)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListRolePolicies %s: %w", role, err)
		}
		names = append(names, out.PolicyNames...)
	}
	return names, nil
}

// AttachedRolePolicies lists the ARNs of a role's managed policies.
func (c *Client) AttachedRolePolicies(ctx context.Context, role string) ([]string, error) {
	var arns []string
	p := iam.NewListAttachedRolePoliciesPaginator(c.iam, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(role)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListAttachedRolePolicies %s: %w", role, err)
		}
		for _, a := range out.AttachedPolicies {
			arns = append(arns, aws.ToString(a.PolicyArn))
		}
	}
	return arns, nil
}

// AttachRolePolicy attaches a managed policy to a role.
func (c *Client) AttachRolePolicy(ctx context.Context, role, arn string) error {
	_, err := c.iam.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("iam:AttachRolePolicy %s %s: %w", role, arn, err)
	}
	return nil
}

// DetachRolePolicy detaches a managed policy from a role.
func (c *Client) DetachRolePolicy(ctx context.Context, role, arn string) error {
	_, err := c.iam.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String(role), PolicyArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("iam:DetachRolePolicy %s %s: %w", role, arn, err)
	}
	return nil
}

// AssumeRoleWithWebIdentity exchanges a web identity token for a session
// of the role. The call is unsigned, as STS authenticates it by the token
// alone; the session's secret halves never format.
func (c *Client) AssumeRoleWithWebIdentity(ctx context.Context, roleARN, session, token string, duration time.Duration) (AccessKey, error) {
	in := &sts.AssumeRoleWithWebIdentityInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String(session), WebIdentityToken: aws.String(token)}
	if duration > 0 {
		in.DurationSeconds = aws.Int32(int32(duration / time.Second))
	}
	out, err := c.sts.AssumeRoleWithWebIdentity(ctx, in, func(o *sts.Options) { o.Credentials = aws.AnonymousCredentials{} })
	if err != nil {
		return AccessKey{}, fmt.Errorf("sts:AssumeRoleWithWebIdentity %s: %w", roleARN, err)
	}
	cr := out.Credentials
	return AccessKey{ID: aws.ToString(cr.AccessKeyId), Secret: NewSecret(aws.ToString(cr.SecretAccessKey)), SessionToken: NewSecret(aws.ToString(cr.SessionToken))}, nil
}

// IsDeleteConflict is IAM's DeleteConflict, such as a managed policy still
// attached to another principal.
func IsDeleteConflict(err error) bool { return hasCode(err, "DeleteConflict") }
