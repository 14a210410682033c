package iamclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// Session is temporary credentials of a role, with when they expire.
type Session struct {
	Key     AccessKey
	Expires time.Time
}

// AssumeRole asks STS, signing with the client's credentials, for a session
// of the role: how leash reads IAM in an account other than its own. The
// session's secret halves never format.
func (c *Client) AssumeRole(ctx context.Context, roleARN, session string, duration time.Duration) (Session, error) {
	in := &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String(session)}
	if duration > 0 {
		in.DurationSeconds = aws.Int32(int32(duration / time.Second))
	}
	out, err := c.sts.AssumeRole(ctx, in)
	if err != nil {
		return Session{}, fmt.Errorf("sts:AssumeRole %s: %w", roleARN, err)
	}
	cr := out.Credentials
	return Session{
		Key:     AccessKey{ID: aws.ToString(cr.AccessKeyId), Secret: NewSecret(aws.ToString(cr.SecretAccessKey)), SessionToken: NewSecret(aws.ToString(cr.SessionToken))},
		Expires: aws.ToTime(cr.Expiration),
	}, nil
}
