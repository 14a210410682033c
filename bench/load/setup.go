package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// loadUser is the user whose key sends the load.
type loadUser struct {
	name, id, secret string
}

// policyStatements is the number of statements in loadPolicy.
const policyStatements = 10

// loadPolicy is what a controller's user might carry: ten statements over
// several services, with conditions, an explicit deny, and the statement
// that allows the load's IAM reads ninth. Every request is evaluated
// against all of it.
const loadPolicy = `{
  "Version": "2012-10-17",
  "Statement": [
    {"Sid": "Describe", "Effect": "Allow", "Action": ["ec2:Describe*", "elasticloadbalancing:Describe*"], "Resource": "*",
     "Condition": {"StringEquals": {"aws:RequestedRegion": ["eu-west-1", "eu-central-1"]}}},
    {"Sid": "Tags", "Effect": "Allow", "Action": ["ec2:CreateTags", "ec2:DeleteTags"], "Resource": "arn:aws:ec2:*:*:instance/*",
     "Condition": {"StringEquals": {"aws:ResourceTag/kubernetes.io/cluster/prod": "owned"}, "ForAllValues:StringLike": {"aws:TagKeys": ["kubernetes.io/*", "team"]}}},
    {"Sid": "Orders", "Effect": "Allow", "Action": ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem"], "Resource": "arn:aws:dynamodb:eu-west-1:*:table/orders"},
    {"Sid": "Queues", "Effect": "Allow", "Action": ["sqs:SendMessage", "sqs:ReceiveMessage", "sqs:DeleteMessage"], "Resource": "arn:aws:sqs:eu-west-1:*:orders-*"},
    {"Sid": "Objects", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": "arn:aws:s3:::example-bucket/home/${aws:username}/*"},
    {"Sid": "Keys", "Effect": "Allow", "Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Resource": "*",
     "Condition": {"StringEquals": {"kms:ViaService": "s3.eu-west-1.amazonaws.com"}}},
    {"Sid": "Logs", "Effect": "Allow", "Action": ["logs:CreateLogStream", "logs:PutLogEvents"], "Resource": "arn:aws:logs:*:*:log-group:/app/*"},
    {"Sid": "NoIAMWrites", "Effect": "Deny", "Action": ["iam:Create*", "iam:Delete*", "iam:Put*", "iam:Attach*", "iam:Update*"], "Resource": "*"},
    {"Sid": "ReadSelf", "Effect": "Allow", "Action": ["iam:GetUser", "iam:GetUserPolicy", "iam:ListAccessKeys", "iam:ListAttachedUserPolicies"],
     "Resource": "arn:aws:iam::*:user/${aws:username}",
     "Condition": {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}},
    {"Sid": "Lambda", "Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": "arn:aws:lambda:eu-west-1:*:function:orders-*",
     "Condition": {"DateLessThan": {"aws:CurrentTime": "2100-01-01T00:00:00Z"}}}
  ]
}`

// readOps are the IAM read actions the load can send, as a Query-protocol
// form for a user, and through the SDK.
var readOps = map[string]struct {
	form func(user string) string
	sdk  func(ctx context.Context, c *iam.Client, user string) error
}{
	"GetUser": {
		form: func(user string) string { return form("GetUser", "UserName", user) },
		sdk: func(ctx context.Context, c *iam.Client, user string) error {
			_, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(user)})
			return err
		},
	},
	"GetUserPolicy": {
		form: func(user string) string { return form("GetUserPolicy", "UserName", user, "PolicyName", "load") },
		sdk: func(ctx context.Context, c *iam.Client, user string) error {
			_, err := c.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String("load")})
			return err
		},
	},
	"ListAccessKeys": {
		form: func(user string) string { return form("ListAccessKeys", "UserName", user) },
		sdk: func(ctx context.Context, c *iam.Client, user string) error {
			_, err := c.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(user)})
			return err
		},
	},
	"ListAttachedUserPolicies": {
		form: func(user string) string { return form("ListAttachedUserPolicies", "UserName", user) },
		sdk: func(ctx context.Context, c *iam.Client, user string) error {
			_, err := c.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String(user)})
			return err
		},
	},
}

func form(action string, kv ...string) string {
	v := url.Values{"Action": {action}, "Version": {"2010-05-08"}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v.Encode()
}

// setUp creates the load's user, its policy and its key, and waits until
// the key works for every action of ops (a propagation delay may hold it
// back).
func setUp(ctx context.Context, ep *endpoint, ops []string) (loadUser, error) {
	admin := iamClient(ep.url, ep.adminID, ep.adminKey, nil)
	var b [4]byte
	_, _ = rand.Read(b[:])
	s := loadUser{name: "load-" + hex.EncodeToString(b[:])}
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(s.name)}); err != nil {
		return s, err
	}
	if _, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(s.name), PolicyName: aws.String("load"),
		PolicyDocument: aws.String(loadPolicy)}); err != nil {
		return s, err
	}
	if n := strings.Count(loadPolicy, `"Sid"`); n != policyStatements {
		return s, fmt.Errorf("the load policy has %d statements, not %d", n, policyStatements)
	}
	key, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(s.name)})
	if err != nil {
		return s, err
	}
	s.id, s.secret = *key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey
	c := iamClient(ep.url, s.id, s.secret, nil)
	deadline := time.Now().Add(time.Minute)
	for _, op := range ops {
		for {
			err := readOps[op].sdk(ctx, c, s.name)
			if err == nil {
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				return s, fmt.Errorf("%s with the new key: %w", op, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return s, nil
}

// iamClient is an SDK client for the endpoint, without retries, so that
// every error is counted.
func iamClient(endpoint, id, secret string, hc aws.HTTPClient) *iam.Client {
	return iam.New(iam.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider(id, secret, ""),
		Retryer:      aws.NopRetryer{},
		HTTPClient:   hc,
	})
}
