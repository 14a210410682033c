package iamclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestRevokeCalls reads the endpoint's time and the state leash revoke
// plans from, against leash local.
func TestRevokeCalls(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{AccountID: "111122223333"})
	client := l.Client()

	before := time.Now().Truncate(time.Second)
	id, now, err := client.CallerIdentityAt(ctx)
	if err != nil || id.Account != "111122223333" {
		t.Fatalf("CallerIdentityAt = %+v, %v", id, err)
	}
	if now.Before(before) || now.After(time.Now()) || now.Location() != time.UTC {
		t.Errorf("the endpoint's Date %v is not between %v and now, in UTC", now, before)
	}
	if got, err := client.SigningKeyID(ctx); err != nil || got != l.Admin.ID {
		t.Errorf("SigningKeyID = %q, %v; want %s", got, err, l.Admin.ID)
	}

	sdk := l.IAM(nil)
	if _, err := sdk.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	if has, err := client.HasLoginProfile(ctx, "alice"); err != nil || has {
		t.Errorf("HasLoginProfile without one = %v, %v", has, err)
	}
	if _, err := sdk.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: aws.String("alice"), Password: aws.String("Example-Passw0rd!")}); err != nil {
		t.Fatal(err)
	}
	if has, err := client.HasLoginProfile(ctx, "alice"); err != nil || !has {
		t.Errorf("HasLoginProfile with one = %v, %v", has, err)
	}
	if _, err := client.HasLoginProfile(ctx, "nobody"); err != nil {
		t.Errorf("HasLoginProfile of a missing user: %v; want no profile and no error, as IAM answers NoSuchEntity for both", err)
	}

	if _, err := sdk.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
		t.Fatal(err)
	}
	if err := client.TagRole(ctx, "ci", map[string]string{"leash.dev/revoked-trust-0011": "2026-12-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	tags, err := client.RoleTags(ctx, "ci")
	if err != nil || tags["leash.dev/revoked-trust-0011"] != "2026-12-01T00:00:00Z" || len(tags) != 1 {
		t.Errorf("RoleTags = %v, %v", tags, err)
	}
}
