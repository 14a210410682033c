package localaws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestGetAccessKeyInfo pins that every key leash local issued, whatever
// its owner or state, answers with the account alone; a key it did not
// issue is refused rather than given a guessed account; a malformed ID is
// ValidationError; and the caller needs sts:GetAccessKeyInfo.
func TestGetAccessKeyInfo(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin, stsAdmin := e.IAM(nil), e.STS(nil)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	alice := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})).AccessKey
	inactive := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})).AccessKey
	must[*iam.UpdateAccessKeyOutput](t, "UpdateAccessKey")(admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: inactive.AccessKeyId, Status: types.StatusTypeInactive}))
	session := must[*sts.GetSessionTokenOutput](t, "GetSessionToken")(stsAdmin.GetSessionToken(ctx, &sts.GetSessionTokenInput{})).Credentials

	tests := []struct {
		name, keyID, code string // code "" for the account
	}{
		{"the caller's own key", e.Admin.ID, ""},
		{"another user's key", aws.ToString(alice.AccessKeyId), ""},
		{"an inactive key", aws.ToString(inactive.AccessKeyId), ""},
		{"a session's key", aws.ToString(session.AccessKeyId), ""},
		{"a key leash local did not issue", "AKIAIOSFODNN7EXAMPLE", "InvalidParameterValue"},
		{"an ID shorter than 16 characters", "AKIAIOSFODNN7", "ValidationError"},
		{"an ID with a character outside [\\w]", "AKIAIOSFODNN7EXAMPLE-", "ValidationError"},
	}
	for _, tt := range tests {
		out, err := stsAdmin.GetAccessKeyInfo(ctx, &sts.GetAccessKeyInfoInput{AccessKeyId: aws.String(tt.keyID)})
		if tt.code != "" {
			wantCode(t, tt.name, err, tt.code)
			continue
		}
		if err != nil || aws.ToString(out.Account) != account {
			t.Errorf("%s: %v, %v; want account %s", tt.name, out, err, account)
		}
	}

	// A user's access to the action is decided by its policies.
	aliceSTS := e.STS(credentials.NewStaticCredentialsProvider(aws.ToString(alice.AccessKeyId), aws.ToString(alice.SecretAccessKey), ""))
	_, err := aliceSTS.GetAccessKeyInfo(ctx, &sts.GetAccessKeyInfoInput{AccessKeyId: alice.AccessKeyId})
	wantCode(t, "a user without sts:GetAccessKeyInfo", err, "AccessDenied")
	allow := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:GetAccessKeyInfo","Resource":"*"}]}`
	must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("keyinfo"), PolicyDocument: aws.String(allow)}))
	out, err := aliceSTS.GetAccessKeyInfo(ctx, &sts.GetAccessKeyInfoInput{AccessKeyId: aws.String(e.Admin.ID)})
	if err != nil || aws.ToString(out.Account) != account {
		t.Errorf("a user allowed sts:GetAccessKeyInfo: %v, %v", out, err)
	}
}

// TestDecodeAuthorizationMessage pins that leash local, which never encodes
// a refusal (IAM and STS state theirs in plain words), refuses every message
// as InvalidAuthorizationMessageException once the caller is allowed
// sts:DecodeAuthorizationMessage, and that the permission is checked first.
func TestDecodeAuthorizationMessage(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})).AccessKey
	alice := e.STS(credentials.NewStaticCredentialsProvider(aws.ToString(k.AccessKeyId), aws.ToString(k.SecretAccessKey), ""))

	// A real refusal of leash local's, which a caller might try to decode.
	_, denied := alice.GetAccessKeyInfo(ctx, &sts.GetAccessKeyInfoInput{AccessKeyId: k.AccessKeyId})
	wantCode(t, "the refusal to decode", denied, "AccessDenied")

	tests := []struct {
		name    string
		client  *sts.Client
		message string
		code    string
	}{
		{"a user without the permission is refused before the message is read", alice, "anything", "AccessDenied"},
		{"an arbitrary message", e.STS(nil), "eyJhbGxvd2VkIjpmYWxzZX0", "InvalidAuthorizationMessageException"},
		{"the text of one of leash local's own refusals", e.STS(nil), denied.Error(), "InvalidAuthorizationMessageException"},
		{"a message over 10,240 characters", e.STS(nil), strings.Repeat("A", 10241), "ValidationError"},
	}
	for _, tt := range tests {
		_, err := tt.client.DecodeAuthorizationMessage(ctx, &sts.DecodeAuthorizationMessageInput{EncodedMessage: aws.String(tt.message)})
		wantCode(t, tt.name, err, tt.code)
	}
}
