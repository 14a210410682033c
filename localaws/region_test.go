package localaws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestCredentialScopeRegionMustBeThePartitions pins that a request signed
// for a Region the aws partition does not have is refused as AWS refuses
// it (403 SignatureDoesNotMatch, "Credential should be scoped to a valid
// region, not '...'"), for IAM and STS alike, while any of the partition's
// Regions is accepted. The scope's Region is aws:RequestedRegion, so
// accepting any name would let the caller choose it.
func TestCredentialScopeRegionMustBeThePartitions(t *testing.T) {
	ctx := context.Background()
	e := localtest.Start(t, localaws.Config{})
	cases := []struct {
		name, region string
		ok           bool
	}{
		{"us-east-1 is a Region", "us-east-1", true},
		{"eu-north-1 is a Region", "eu-north-1", true},
		{"ap-southeast-7 is a Region", "ap-southeast-7", true},
		{"a name of the partition's form that AWS does not have is refused", "us-east-9", false},
		{"a made-up name is refused", "mars-north-1", false},
		{"the pseudo-Region aws-global names an endpoint, not a Region", "aws-global", false},
		{"another partition's Region is refused", "cn-north-1", false},
		{"GovCloud is another partition", "us-gov-west-1", false},
		{"Regions are spelled in lower case", "US-EAST-1", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			creds := e.Admin.Provider()
			iamc := iam.New(iam.Options{Region: tc.region, BaseEndpoint: aws.String(e.URL), Credentials: creds, Retryer: localtest.Retryer()})
			stsc := sts.New(sts.Options{Region: tc.region, BaseEndpoint: aws.String(e.URL), Credentials: creds, Retryer: localtest.Retryer()})
			_, iamErr := iamc.ListUsers(ctx, &iam.ListUsersInput{})
			_, stsErr := stsc.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
			for service, err := range map[string]error{"iam": iamErr, "sts": stsErr} {
				if tc.ok {
					if err != nil {
						t.Errorf("%s signed for %s: %v", service, tc.region, err)
					}
					continue
				}
				if apiCode(err) != "SignatureDoesNotMatch" || httpStatus(err) != 403 {
					t.Fatalf("%s signed for %s: got %v (status %d), want 403 SignatureDoesNotMatch", service, tc.region, err, httpStatus(err))
				}
				want := "Credential should be scoped to a valid region, not '" + tc.region + "'."
				if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "such as us-east-1") {
					t.Errorf("%s signed for %s: message %q, want %q and the fix", service, tc.region, err, want)
				}
			}
		})
	}
}

// TestRequestedRegionIsTheSignedRegion pins that aws:RequestedRegion is the
// credential scope's Region: a user allowed iam:ListUsers only in
// eu-north-1 is allowed there and denied when signing for us-east-1.
func TestRequestedRegionIsTheSignedRegion(t *testing.T) {
	ctx := context.Background()
	e, admin := adminClient(t)
	const onlyEUNorth = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*",` +
		`"Condition":{"StringEquals":{"aws:RequestedRegion":"eu-north-1"}}}]}`
	user := userClient(t, e, admin, "regional", onlyEUNorth)
	if _, err := user.ListUsers(ctx, &iam.ListUsersInput{}); apiCode(err) != "AccessDenied" {
		t.Fatalf("ListUsers signed for us-east-1: got %v, want AccessDenied", err)
	}
	_, err := user.ListUsers(ctx, &iam.ListUsersInput{}, func(o *iam.Options) { o.Region = "eu-north-1" })
	if err != nil {
		t.Fatalf("ListUsers signed for eu-north-1: %v", err)
	}
}
