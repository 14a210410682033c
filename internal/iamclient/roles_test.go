package iamclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestRoleCalls reads and changes a role in leash local through the calls
// leash revoke and the operator use.
func TestRoleCalls(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{AccountID: "111122223333"})
	sdk, client := l.IAM(nil), l.Client()
	if _, err := sdk.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trust),
		MaxSessionDuration: aws.Int32(7200)}); err != nil {
		t.Fatal(err)
	}

	role, err := client.GetRole(ctx, "ci")
	if err != nil {
		t.Fatal(err)
	}
	if role.ARN != "arn:aws:iam::111122223333:role/ci" || role.MaxSessionDuration != 2*time.Hour || role.Trust != trust || len(role.RoleID) < 5 || role.RoleID[:4] != "AROA" {
		t.Errorf("GetRole = %+v", role)
	}
	if err := client.PutRolePolicy(ctx, "ci", "list", listDoc); err != nil {
		t.Fatal(err)
	}
	if doc, err := client.RolePolicy(ctx, "ci", "list"); err != nil || doc != listDoc {
		t.Errorf("RolePolicy = %q, %v; want the document put", doc, err)
	}
	for range 2 { // the second delete finds nothing and is not an error
		if err := client.DeleteRolePolicy(ctx, "ci", "list"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.RolePolicy(ctx, "ci", "list"); !iamclient.IsNotFound(err) {
		t.Errorf("after DeleteRolePolicy: %v, want NoSuchEntity", err)
	}
	// IAM refuses a trust policy naming a user that does not exist.
	if _, err := sdk.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bob")}); err != nil {
		t.Fatal(err)
	}
	narrowed := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:user/bob"},"Action":"sts:AssumeRole"}]}`
	if err := client.UpdateTrust(ctx, "ci", narrowed); err != nil {
		t.Fatal(err)
	}
	if role, err := client.GetRole(ctx, "ci"); err != nil || role.Trust != narrowed {
		t.Errorf("trust after UpdateTrust = %q, %v", role.Trust, err)
	}
	if _, err := client.GetRole(ctx, "nobody"); !iamclient.IsNotFound(err) {
		t.Errorf("GetRole of a missing role: %v, want NoSuchEntity", err)
	}

	if _, err := sdk.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	_, info, err := client.CreateAccessKey(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := client.DeactivateAccessKey(ctx, "alice", info.ID); err != nil {
		t.Fatal(err)
	}
	keys, err := client.AccessKeys(ctx, "alice")
	if err != nil || len(keys) != 1 || keys[0].Active {
		t.Errorf("keys after DeactivateAccessKey = %+v, %v; want one inactive key", keys, err)
	}
}
