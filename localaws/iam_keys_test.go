package localaws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestAccessKeyLifecycle(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	user := aws.String("alice")
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: user}))
	must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user, PolicyName: aws.String("self"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:*AccessKey*","Resource":"arn:aws:iam::*:user/${aws:username}"}}`)}))
	first := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user})).AccessKey
	alice := e.iam(*first.AccessKeyId, *first.SecretAccessKey)

	last := must[*iam.GetAccessKeyLastUsedOutput](t, "GetAccessKeyLastUsed")(admin.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: first.AccessKeyId}))
	if aws.ToString(last.UserName) != "alice" || last.AccessKeyLastUsed.LastUsedDate != nil ||
		aws.ToString(last.AccessKeyLastUsed.ServiceName) != "N/A" || aws.ToString(last.AccessKeyLastUsed.Region) != "N/A" {
		t.Errorf("a key never used: %s %+v, want N/A and no date", aws.ToString(last.UserName), last.AccessKeyLastUsed)
	}

	// Alice makes her second key herself (no UserName: the caller), and
	// asks when her first was used.
	second := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(alice.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{})).AccessKey
	last = must[*iam.GetAccessKeyLastUsedOutput](t, "GetAccessKeyLastUsed")(alice.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: first.AccessKeyId}))
	if last.AccessKeyLastUsed.LastUsedDate == nil || aws.ToString(last.AccessKeyLastUsed.ServiceName) != "iam" || aws.ToString(last.AccessKeyLastUsed.Region) != "us-east-1" {
		t.Errorf("a key used for IAM: %+v", last.AccessKeyLastUsed)
	}
	_, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user})
	if apiCode(err) != "LimitExceeded" || !strings.Contains(err.Error(), "AccessKeysPerUser") {
		t.Errorf("a third key: %v, want LimitExceeded naming AccessKeysPerUser", err)
	}

	// A deactivated key no longer signs; reactivated, it does again.
	must[*iam.UpdateAccessKeyOutput](t, "UpdateAccessKey")(alice.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{AccessKeyId: second.AccessKeyId, Status: types.StatusTypeInactive}))
	keys := must[*iam.ListAccessKeysOutput](t, "ListAccessKeys")(admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: user}))
	statuses := map[string]types.StatusType{}
	for _, k := range keys.AccessKeyMetadata {
		statuses[aws.ToString(k.AccessKeyId)] = k.Status
	}
	if statuses[*first.AccessKeyId] != types.StatusTypeActive || statuses[*second.AccessKeyId] != types.StatusTypeInactive {
		t.Errorf("statuses after UpdateAccessKey = %v", statuses)
	}
	secondClient := e.iam(*second.AccessKeyId, *second.SecretAccessKey)
	_, err = secondClient.ListAccessKeys(ctx, &iam.ListAccessKeysInput{})
	wantCode(t, "a request signed by an inactive key", err, "InvalidClientTokenId")
	_, err = alice.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{AccessKeyId: second.AccessKeyId, Status: "Paused"})
	wantCode(t, "UpdateAccessKey to an unknown status", err, "ValidationError")

	// Alice cannot touch the administrator's keys: the resource is the
	// admin user.
	adminKey, _ := e.adminKeys(t)
	_, err = alice.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("admin"), AccessKeyId: aws.String(adminKey)})
	wantCode(t, "DeleteAccessKey of another user's key", err, "AccessDenied")
	// Naming her own user with another's key ID finds nothing.
	_, err = alice.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: user, AccessKeyId: aws.String(adminKey)})
	wantCode(t, "DeleteAccessKey of another user's key under her own name", err, "NoSuchEntity")
	// An unknown key is authorized against "*": Alice may not learn whether
	// it exists, the administrator may.
	_, err = alice.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: aws.String("AKIAIOSFODNN7EXAMPLE")})
	wantCode(t, "GetAccessKeyLastUsed of an unknown key by Alice", err, "AccessDenied")
	_, err = admin.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: aws.String("AKIAIOSFODNN7EXAMPLE")})
	wantCode(t, "GetAccessKeyLastUsed of an unknown key by the administrator", err, "NoSuchEntity")

	must[*iam.DeleteAccessKeyOutput](t, "DeleteAccessKey")(alice.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{AccessKeyId: second.AccessKeyId}))
	_, err = secondClient.ListAccessKeys(ctx, &iam.ListAccessKeysInput{})
	wantCode(t, "a request signed by a deleted key", err, "InvalidClientTokenId")
	keys = must[*iam.ListAccessKeysOutput](t, "ListAccessKeys")(alice.ListAccessKeys(ctx, &iam.ListAccessKeysInput{}))
	if len(keys.AccessKeyMetadata) != 1 || aws.ToString(keys.AccessKeyMetadata[0].AccessKeyId) != *first.AccessKeyId {
		t.Errorf("keys after DeleteAccessKey = %+v", keys.AccessKeyMetadata)
	}
}

func TestLoginProfiles(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	user := aws.String("alice")
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: user}))
	_, err := admin.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: user})
	wantCode(t, "GetLoginProfile before any", err, "NoSuchEntity")

	const weak = "hunter2"
	_, err = admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String(weak)})
	if apiCode(err) != "PasswordPolicyViolation" || strings.Contains(err.Error(), weak) {
		t.Errorf("a weak password: %v, want PasswordPolicyViolation that does not quote it", err)
	}
	_, err = admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user})
	wantCode(t, "CreateLoginProfile without a password", err, "ValidationError")
	long := strings.Repeat("Aa1!", 40)
	_, err = admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String(long)})
	if apiCode(err) != "ValidationError" || strings.Contains(err.Error(), long) {
		t.Errorf("a password over 128 characters: %v, want a ValidationError that does not quote it", err)
	}

	created := must[*iam.CreateLoginProfileOutput](t, "CreateLoginProfile")(admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String("Correct-Horse-9"), PasswordResetRequired: true}))
	if aws.ToString(created.LoginProfile.UserName) != "alice" || !created.LoginProfile.PasswordResetRequired || created.LoginProfile.CreateDate == nil {
		t.Errorf("CreateLoginProfile = %+v", created.LoginProfile)
	}
	_, err = admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String("Correct-Horse-9")})
	wantCode(t, "CreateLoginProfile twice", err, "EntityAlreadyExists")
	must[*iam.UpdateLoginProfileOutput](t, "UpdateLoginProfile")(admin.UpdateLoginProfile(ctx, &iam.UpdateLoginProfileInput{UserName: user, PasswordResetRequired: aws.Bool(false)}))
	got := must[*iam.GetLoginProfileOutput](t, "GetLoginProfile")(admin.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: aws.String("ALICE")}))
	if aws.ToString(got.LoginProfile.UserName) != "alice" || got.LoginProfile.PasswordResetRequired {
		t.Errorf("GetLoginProfile = %+v", got.LoginProfile)
	}
	must[*iam.DeleteLoginProfileOutput](t, "DeleteLoginProfile")(admin.DeleteLoginProfile(ctx, &iam.DeleteLoginProfileInput{UserName: user}))
	_, err = admin.DeleteLoginProfile(ctx, &iam.DeleteLoginProfileInput{UserName: user})
	wantCode(t, "DeleteLoginProfile twice", err, "NoSuchEntity")
}
