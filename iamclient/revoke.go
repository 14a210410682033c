package iamclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/iam"
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
