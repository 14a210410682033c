package query_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/aws-sdk-go-v2/service/sts/types"

	"leash.dev/leash/localaws/internal/query"
)

type getCallerIdentityResult struct {
	UserID  string `xml:"UserId"`
	Account string `xml:"Account"`
	Arn     string `xml:"Arn"`
}

type stsCredentials struct {
	AccessKeyID     string          `xml:"AccessKeyId"`
	SecretAccessKey string          `xml:"SecretAccessKey"`
	SessionToken    string          `xml:"SessionToken"`
	Expiration      query.Timestamp `xml:"Expiration"`
}

type assumedRoleUser struct {
	AssumedRoleID string `xml:"AssumedRoleId"`
	Arn           string `xml:"Arn"`
}

type assumeRoleResult struct {
	Credentials     stsCredentials  `xml:"Credentials"`
	AssumedRoleUser assumedRoleUser `xml:"AssumedRoleUser"`
	SourceIdentity  string          `xml:"SourceIdentity,omitempty"`
}

func TestSTSClientGetCallerIdentity(t *testing.T) {
	e := newEndpoint(t)
	e.answer("GetCallerIdentity", getCallerIdentityResult{
		UserID: "AIDAEXAMPLEALICE00001", Account: "123456789012", Arn: "arn:aws:iam::123456789012:user/alice",
	})
	out, err := e.sts().GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{aws.ToString(out.UserId), aws.ToString(out.Account), aws.ToString(out.Arn)}
	if want := []string{"AIDAEXAMPLEALICE00001", "123456789012", "arn:aws:iam::123456789012:user/alice"}; !reflect.DeepEqual(got, want) {
		t.Errorf("identity = %v; want %v", got, want)
	}
	if req, _ := e.last(); req.Version != "2011-06-15" {
		t.Errorf("Version = %q; want STS's 2011-06-15", req.Version)
	}
}

func TestSTSClientAssumeRole(t *testing.T) {
	e := newEndpoint(t)
	expires := created.Add(15 * time.Minute)
	e.answer("AssumeRole", assumeRoleResult{
		Credentials: stsCredentials{
			AccessKeyID: "ASIAEXAMPLESESSION01", SecretAccessKey: "session/secret+key", SessionToken: "token==",
			Expiration: query.Timestamp(expires),
		},
		AssumedRoleUser: assumedRoleUser{
			AssumedRoleID: "AROAEXAMPLEROLE000001:deploy", Arn: "arn:aws:sts::123456789012:assumed-role/app/deploy",
		},
		SourceIdentity: "ci-runner",
	})

	out, err := e.sts().AssumeRole(context.Background(), &sts.AssumeRoleInput{
		RoleArn:         aws.String("arn:aws:iam::123456789012:role/app"),
		RoleSessionName: aws.String("deploy"),
		DurationSeconds: aws.Int32(900),
		Policy:          aws.String(policy),
		PolicyArns: []types.PolicyDescriptorType{
			{Arn: aws.String("arn:aws:iam::aws:policy/ReadOnlyAccess")},
			{Arn: aws.String("arn:aws:iam::123456789012:policy/extra")},
		},
		Tags:              []types.Tag{{Key: aws.String("team"), Value: aws.String("payments")}, {Key: aws.String("env"), Value: aws.String("prod")}},
		TransitiveTagKeys: []string{"team"},
	})
	if err != nil {
		t.Fatal(err)
	}

	req, _ := e.last()
	if arn, err := req.Required("RoleArn"); err != nil || arn != "arn:aws:iam::123456789012:role/app" {
		t.Errorf("parsed RoleArn = %q, %v", arn, err)
	}
	if d, ok, err := req.Int("DurationSeconds", 900, 43200); d != 900 || !ok || err != nil {
		t.Errorf("parsed DurationSeconds = %d, %v, %v; want 900", d, ok, err)
	}
	if doc, _ := req.String("Policy"); doc != policy {
		t.Errorf("parsed Policy = %q; want %q", doc, policy)
	}
	wantARNs := []string{"arn:aws:iam::aws:policy/ReadOnlyAccess", "arn:aws:iam::123456789012:policy/extra"}
	if arns, err := req.PolicyARNs("PolicyArns"); err != nil || !reflect.DeepEqual(arns, wantARNs) {
		t.Errorf("parsed PolicyArns = %v, %v; want %v", arns, err, wantARNs)
	}
	wantTags := []query.Tag{{Key: "team", Value: "payments"}, {Key: "env", Value: "prod"}}
	if tags, err := req.Tags("Tags"); err != nil || !reflect.DeepEqual(tags, wantTags) {
		t.Errorf("parsed Tags = %v, %v; want %v", tags, err, wantTags)
	}
	if keys, err := req.List("TransitiveTagKeys"); err != nil || !reflect.DeepEqual(keys, []string{"team"}) {
		t.Errorf("parsed TransitiveTagKeys = %v, %v; want [team]", keys, err)
	}

	c := out.Credentials
	got := []string{aws.ToString(c.AccessKeyId), aws.ToString(c.SecretAccessKey), aws.ToString(c.SessionToken)}
	if want := []string{"ASIAEXAMPLESESSION01", "session/secret+key", "token=="}; !reflect.DeepEqual(got, want) {
		t.Errorf("Credentials = %v; want %v", got, want)
	}
	if c.Expiration == nil || !c.Expiration.Equal(expires) {
		t.Errorf("Expiration = %v; want %v", c.Expiration, expires)
	}
	u := out.AssumedRoleUser
	if aws.ToString(u.AssumedRoleId) != "AROAEXAMPLEROLE000001:deploy" || aws.ToString(u.Arn) != "arn:aws:sts::123456789012:assumed-role/app/deploy" {
		t.Errorf("AssumedRoleUser = %q, %q", aws.ToString(u.AssumedRoleId), aws.ToString(u.Arn))
	}
	if aws.ToString(out.SourceIdentity) != "ci-runner" || out.SessionTokenSize != nil {
		t.Errorf("SourceIdentity, SessionTokenSize = %q, %v; want ci-runner, none (not written)", aws.ToString(out.SourceIdentity), out.SessionTokenSize)
	}
}
