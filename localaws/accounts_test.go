package localaws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// Two accounts: A (the main one) and B, each with its own administrator.
const (
	accountA = "303373033373"
	accountB = "111122223333"
)

// TestCrossAccountAssumeRole pins AWS's cross-account rule for
// sts:AssumeRole: the role's trust policy, in its account, must allow the
// caller, and the caller's own account must allow it too
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html).
// The session acts in the role's account.
func TestCrossAccountAssumeRole(t *testing.T) {
	ctx := context.Background()
	e := localtest.Start(t, localaws.Config{AccountID: accountA, OtherAccounts: []string{accountB}})
	adminB := e.IAM(e.AccountAdmin(t, accountB).Provider())
	adminA := e.IAM(nil)
	trustA := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + accountA + `:root"},"Action":"sts:AssumeRole"}]}`
	trustNobody := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + accountB + `:root"},"Action":"sts:AssumeRole"}]}`
	for name, trust := range map[string]string{"trusts-a": trustA, "trusts-b": trustNobody} {
		if _, err := adminB.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
	}
	// A user of A whose own policies allow nothing.
	if _, err := adminA.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("nobody")}); err != nil {
		t.Fatal(err)
	}
	k, err := adminA.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("nobody")})
	if err != nil {
		t.Fatal(err)
	}
	nobody := credentials.NewStaticCredentialsProvider(*k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey, "")

	t.Run("a role of B trusting A is assumed from A, and its session acts in B", func(t *testing.T) {
		out, err := e.STS(nil).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + accountB + ":role/trusts-a"), RoleSessionName: aws.String("leash-check")})
		if err != nil {
			t.Fatal(err)
		}
		want := "arn:aws:sts::" + accountB + ":assumed-role/trusts-a/leash-check"
		if got := aws.ToString(out.AssumedRoleUser.Arn); got != want {
			t.Fatalf("assumed role %s; want %s", got, want)
		}
		c := out.Credentials
		session := credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken)
		id, err := e.STS(session).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatal(err)
		}
		if aws.ToString(id.Account) != accountB || aws.ToString(id.Arn) != want {
			t.Fatalf("session is %s of %s; want %s of %s", aws.ToString(id.Arn), aws.ToString(id.Account), want, accountB)
		}
		// The session's role allows nothing: its reads of B are refused by
		// B's engine, and a role of A is not B's to read.
		if _, err := e.IAM(session).GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("trusts-b")}); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Fatalf("GetRole with a session of a role with no policy: %v; want AccessDenied", err)
		}
	})
	t.Run("a role of B whose trust does not name A is refused", func(t *testing.T) {
		_, err := e.STS(nil).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + accountB + ":role/trusts-b"), RoleSessionName: aws.String("leash-check")})
		if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Fatalf("AssumeRole: %v; want AccessDenied", err)
		}
	})
	t.Run("a caller of A whose own policies do not allow sts:AssumeRole is refused though B trusts A", func(t *testing.T) {
		_, err := e.STS(nobody).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + accountB + ":role/trusts-a"), RoleSessionName: aws.String("leash-check")})
		if err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Fatalf("AssumeRole: %v; want AccessDenied", err)
		}
	})
	t.Run("a role name of B is not found in A", func(t *testing.T) {
		_, err := adminA.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("trusts-a")})
		if err == nil || !strings.Contains(err.Error(), "NoSuchEntity") {
			t.Fatalf("GetRole in A: %v; want NoSuchEntity", err)
		}
	})
	t.Run("each account's administrator acts in its own account", func(t *testing.T) {
		id, err := e.STS(e.AccountAdmin(t, accountB).Provider()).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil {
			t.Fatal(err)
		}
		if want := "arn:aws:iam::" + accountB + ":user/admin"; aws.ToString(id.Arn) != want {
			t.Fatalf("B's administrator is %s; want %s", aws.ToString(id.Arn), want)
		}
	})
}
