package localaws_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestAWSManagedPoliciesCannotBeChanged pins that leash local refuses, even
// to its administrator, the changes AWS refuses to every caller on an AWS
// managed policy, with AWS's AccessDenied and a message that names the rule;
// the same calls on a customer managed policy go through.
func TestAWSManagedPoliciesCannotBeChanged(t *testing.T) {
	ctx := context.Background()
	admin := localtest.Start(t, localaws.Config{}).IAM(nil)
	const managed = "arn:aws:iam::aws:policy/AdministratorAccess"
	doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`

	refused := []struct {
		name string
		call func() error
	}{
		{"CreatePolicyVersion", func() error {
			_, err := admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(managed), PolicyDocument: aws.String(doc), SetAsDefault: true})
			return err
		}},
		{"SetDefaultPolicyVersion", func() error {
			_, err := admin.SetDefaultPolicyVersion(ctx, &iam.SetDefaultPolicyVersionInput{PolicyArn: aws.String(managed), VersionId: aws.String("v1")})
			return err
		}},
		{"DeletePolicy", func() error {
			_, err := admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(managed)})
			return err
		}},
	}
	for _, tt := range refused {
		t.Run(tt.name+" on an AWS managed policy is AccessDenied", func(t *testing.T) {
			err := tt.call()
			var api smithy.APIError
			if !errors.As(err, &api) || api.ErrorCode() != "AccessDenied" {
				t.Fatalf("err = %v, want AccessDenied", err)
			}
			if msg := api.ErrorMessage(); !strings.Contains(msg, "AWS managed policies cannot be changed by anyone") || !strings.Contains(msg, "access_policies_managed-vs-inline.html") {
				t.Errorf("message %q does not name the rule and its page", msg)
			}
		})
	}

	t.Run("CreatePolicyVersion on a customer managed policy succeeds", func(t *testing.T) {
		p, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read"), PolicyDocument: aws.String(doc)})
		if err != nil {
			t.Fatal(err)
		}
		v, err := admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: p.Policy.Arn, PolicyDocument: aws.String(doc)})
		if err != nil {
			t.Fatal(err)
		}
		if got := aws.ToString(v.PolicyVersion.VersionId); got != "v2" {
			t.Errorf("new version %q, want v2", got)
		}
	})
}
