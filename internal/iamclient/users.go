package iamclient

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// Identity is who a key belongs to.
type Identity struct {
	ARN     string
	Account string
}

// CallerIdentity asks STS who signs the requests.
func (c *Client) CallerIdentity(ctx context.Context) (Identity, error) {
	out, err := c.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, fmt.Errorf("sts:GetCallerIdentity: %w", err)
	}
	return Identity{ARN: aws.ToString(out.Arn), Account: aws.ToString(out.Account)}, nil
}

// User is an IAM user.
type User struct {
	Name     string
	ARN      string
	Path     string
	Tags     map[string]string
	Boundary string // the permissions boundary's ARN, if any
	Created  time.Time
}

func userFrom(u *iamtypes.User) User {
	out := User{Name: aws.ToString(u.UserName), ARN: aws.ToString(u.Arn), Path: aws.ToString(u.Path),
		Created: aws.ToTime(u.CreateDate), Tags: map[string]string{}}
	for _, t := range u.Tags {
		out.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	if u.PermissionsBoundary != nil {
		out.Boundary = aws.ToString(u.PermissionsBoundary.PermissionsBoundaryArn)
	}
	return out
}

// NewUser is what CreateUser needs.
type NewUser struct {
	Name     string
	Path     string
	Tags     map[string]string
	Boundary string
}

// CreateUser creates a user with its tags and boundary in one call, so that
// a user never exists without the tags that say who owns it.
func (c *Client) CreateUser(ctx context.Context, u NewUser) (User, error) {
	in := &iam.CreateUserInput{UserName: aws.String(u.Name), Path: aws.String(u.Path)}
	for k, v := range u.Tags {
		in.Tags = append(in.Tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if u.Boundary != "" {
		in.PermissionsBoundary = aws.String(u.Boundary)
	}
	out, err := c.iam.CreateUser(ctx, in)
	if err != nil {
		return User{}, fmt.Errorf("iam:CreateUser %s: %w", u.Name, err)
	}
	return userFrom(out.User), nil
}

// GetUser reads a user with its tags and boundary.
func (c *Client) GetUser(ctx context.Context, name string) (User, error) {
	out, err := c.iam.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(name)})
	if err != nil {
		return User{}, fmt.Errorf("iam:GetUser %s: %w", name, err)
	}
	return userFrom(out.User), nil
}

// ListUsers lists the users whose path starts with prefix (without tags:
// IAM's ListUsers does not return them).
func (c *Client) ListUsers(ctx context.Context, prefix string) ([]User, error) {
	var users []User
	p := iam.NewListUsersPaginator(c.iam, &iam.ListUsersInput{PathPrefix: aws.String(prefix)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListUsers %s: %w", prefix, err)
		}
		for i := range out.Users {
			users = append(users, userFrom(&out.Users[i]))
		}
	}
	return users, nil
}

// DeleteUser deletes a user that has nothing attached any more.
func (c *Client) DeleteUser(ctx context.Context, name string) error {
	if _, err := c.iam.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String(name)}); err != nil {
		return fmt.Errorf("iam:DeleteUser %s: %w", name, err)
	}
	return nil
}

// PutUserBoundary sets a user's permissions boundary.
func (c *Client) PutUserBoundary(ctx context.Context, user, arn string) error {
	_, err := c.iam.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{
		UserName: aws.String(user), PermissionsBoundary: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("iam:PutUserPermissionsBoundary %s: %w", user, err)
	}
	return nil
}

// DeleteUserBoundary removes a user's permissions boundary.
func (c *Client) DeleteUserBoundary(ctx context.Context, user string) error {
	_, err := c.iam.DeleteUserPermissionsBoundary(ctx, &iam.DeleteUserPermissionsBoundaryInput{UserName: aws.String(user)})
	if err != nil {
		return fmt.Errorf("iam:DeleteUserPermissionsBoundary %s: %w", user, err)
	}
	return nil
}

// UserPolicy reads a user's inline policy document (URL-decoded).
func (c *Client) UserPolicy(ctx context.Context, user, name string) (string, error) {
	out, err := c.iam.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String(name)})
	if err != nil {
		return "", fmt.Errorf("iam:GetUserPolicy %s %s: %w", user, name, err)
	}
	return decodeDocument(aws.ToString(out.PolicyDocument))
}

// PutUserPolicy writes a user's inline policy.
func (c *Client) PutUserPolicy(ctx context.Context, user, name, doc string) error {
	_, err := c.iam.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(user),
		PolicyName: aws.String(name), PolicyDocument: aws.String(doc)})
	if err != nil {
		return fmt.Errorf("iam:PutUserPolicy %s %s: %w", user, name, err)
	}
	return nil
}

// UserPolicyNames lists a user's inline policies.
func (c *Client) UserPolicyNames(ctx context.Context, user string) ([]string, error) {
	var names []string
	p := iam.NewListUserPoliciesPaginator(c.iam, &iam.ListUserPoliciesInput{UserName: aws.String(user)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListUserPolicies %s: %w", user, err)
		}
		names = append(names, out.PolicyNames...)
	}
	return names, nil
}

// DeleteUserPolicy deletes a user's inline policy.
func (c *Client) DeleteUserPolicy(ctx context.Context, user, name string) error {
	_, err := c.iam.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String(name)})
	if err != nil {
		return fmt.Errorf("iam:DeleteUserPolicy %s %s: %w", user, name, err)
	}
	return nil
}

// AttachedUserPolicies lists the ARNs of the managed policies attached to a
// user.
func (c *Client) AttachedUserPolicies(ctx context.Context, user string) ([]string, error) {
	var arns []string
	p := iam.NewListAttachedUserPoliciesPaginator(c.iam, &iam.ListAttachedUserPoliciesInput{UserName: aws.String(user)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListAttachedUserPolicies %s: %w", user, err)
		}
		for _, a := range out.AttachedPolicies {
			arns = append(arns, aws.ToString(a.PolicyArn))
		}
	}
	return arns, nil
}

// DetachUserPolicy detaches a managed policy from a user.
func (c *Client) DetachUserPolicy(ctx context.Context, user, arn string) error {
	_, err := c.iam.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String(user), PolicyArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("iam:DetachUserPolicy %s %s: %w", user, arn, err)
	}
	return nil
}

// DeleteLoginProfile deletes a user's console password; a user without one
// is not an error.
func (c *Client) DeleteLoginProfile(ctx context.Context, user string) error {
	_, err := c.iam.DeleteLoginProfile(ctx, &iam.DeleteLoginProfileInput{UserName: aws.String(user)})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("iam:DeleteLoginProfile %s: %w", user, err)
	}
	return nil
}

// KeyInfo is an access key without its secret.
type KeyInfo struct {
	ID      string
	Active  bool
	Created time.Time
}

// AccessKeys lists a user's access keys.
func (c *Client) AccessKeys(ctx context.Context, user string) ([]KeyInfo, error) {
	var keys []KeyInfo
	p := iam.NewListAccessKeysPaginator(c.iam, &iam.ListAccessKeysInput{UserName: aws.String(user)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListAccessKeys %s: %w", user, err)
		}
		for _, k := range out.AccessKeyMetadata {
			keys = append(keys, KeyInfo{ID: aws.ToString(k.AccessKeyId), Active: k.Status == iamtypes.StatusTypeActive,
				Created: aws.ToTime(k.CreateDate)})
		}
	}
	return keys, nil
}

// CreateAccessKey creates a key for a user.
func (c *Client) CreateAccessKey(ctx context.Context, user string) (AccessKey, KeyInfo, error) {
	out, err := c.iam.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(user)})
	if err != nil {
		return AccessKey{}, KeyInfo{}, fmt.Errorf("iam:CreateAccessKey %s: %w", user, err)
	}
	k := out.AccessKey
	return AccessKey{ID: aws.ToString(k.AccessKeyId), Secret: NewSecret(aws.ToString(k.SecretAccessKey))},
		KeyInfo{ID: aws.ToString(k.AccessKeyId), Active: true, Created: aws.ToTime(k.CreateDate)}, nil
}

// DeleteAccessKey deletes a key; one already gone is not an error.
func (c *Client) DeleteAccessKey(ctx context.Context, user, id string) error {
	_, err := c.iam.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String(user), AccessKeyId: aws.String(id)})
	if err != nil && !IsNotFound(err) {
		return fmt.Errorf("iam:DeleteAccessKey %s %s: %w", user, id, err)
	}
	return nil
}

// decodeDocument undoes the URL encoding IAM applies to policy documents.
func decodeDocument(s string) (string, error) {
	d, err := url.QueryUnescape(s)
	if err != nil {
		return "", fmt.Errorf("policy document is not URL-encoded: %w", err)
	}
	return d, nil
}
