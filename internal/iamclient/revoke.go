package iamclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// CallerIdentityAt asks STS who signs the requests and returns, beside the
// answer, the time the endpoint put in its response's Date header. A
// revocation's cutoff is the endpoint's time, not this machine's, so that a
// skewed local clock cannot leave sessions alive or refuse a lift. Without a
// Date header the time is zero.
func (c *Client) CallerIdentityAt(ctx context.Context) (Identity, time.Time, error) {
	out, err := c.sts.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		return Identity{}, time.Time{}, fmt.Errorf("sts:GetCallerIdentity: %w", err)
	}
	now, _ := awsmiddleware.GetServerTime(out.ResultMetadata)
	return Identity{ARN: aws.ToString(out.Arn), Account: aws.ToString(out.Account)}, now.UTC(), nil
}

// HasLoginProfile says whether a user has a console password.
func (c *Client) HasLoginProfile(ctx context.Context, user string) (bool, error) {
	_, err := c.iam.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: aws.String(user)})
	switch {
	case err == nil:
		return true, nil
	case IsNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("iam:GetLoginProfile %s: %w", user, err)
}

// SigningKeyID is the access key ID the client signs with, so that a
// revocation of the caller's own user can leave that key to its last call.
func (c *Client) SigningKeyID(ctx context.Context) (string, error) {
	if c.cfg.Credentials == nil {
		return "", nil
	}
	creds, err := c.cfg.Credentials.Retrieve(ctx)
	if err != nil {
		return "", fmt.Errorf("retrieving the credentials: %w", err)
	}
	return creds.AccessKeyID, nil
}

// RoleTags reads a role's tags.
func (c *Client) RoleTags(ctx context.Context, role string) (map[string]string, error) {
	tags := map[string]string{}
	p := iam.NewListRoleTagsPaginator(c.iam, &iam.ListRoleTagsInput{RoleName: aws.String(role)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("iam:ListRoleTags %s: %w", role, err)
		}
		for _, t := range out.Tags {
			tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
	}
	return tags, nil
}

// TagRole adds or replaces tags on a role.
func (c *Client) TagRole(ctx context.Context, role string, tags map[string]string) error {
	in := &iam.TagRoleInput{RoleName: aws.String(role)}
	for k, v := range tags {
		in.Tags = append(in.Tags, iamtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	if _, err := c.iam.TagRole(ctx, in); err != nil {
		return fmt.Errorf("iam:TagRole %s: %w", role, err)
	}
	return nil
}
