package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// The benchmarks below time whole signed requests through aws-sdk-go-v2
// over loopback HTTP, as a tool sees them; GetPolicy of an account's own
// policy is the baseline.

func BenchmarkGetPolicy(b *testing.B) {
	ctx := context.Background()
	admin := wholeBodies(localtest.Start(b, localaws.Config{}))
	own, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("own"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, arn string }{
		{"AWS managed", readOnly},
		{"customer managed", aws.ToString(own.Policy.Arn)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(bc.arn)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkListPoliciesScopeAWS(b *testing.B) {
	ctx := context.Background()
	admin := wholeBodies(localtest.Start(b, localaws.Config{}))
	for _, bc := range []struct {
		name string
		max  int32
	}{{"first page of 100", 100}, {"page of 1000", 1000}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				out, err := admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws, MaxItems: aws.Int32(bc.max)})
				if err != nil || len(out.Policies) != int(bc.max) {
					b.Fatal(err)
				}
			}
		})
	}
}
