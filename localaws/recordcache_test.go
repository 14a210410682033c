package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestChangesToACallerInUseTakeEffectAtOnce pins, through the SDK, that
// the store's cache of decoded records never answers with a record older
// than the last write: a caller whose key and user were just read (and so
// cached) is denied as soon as its policy goes, allowed again when it comes
// back, refused when its key is deactivated, and, after a restart, sees
// what the last run wrote after its last read.
func TestChangesToACallerInUseTakeEffectAtOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := localaws.StartLoopback(localaws.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = first.Stop()
		}
	}()
	e := &localtest.Endpoint{Loopback: first}
	if e.Admin, err = iamclient.KeyFromFile(first.AdminCredentialsPath()); err != nil {
		t.Fatal(err)
	}
	admin := e.IAM(nil)
	user := aws.String("busy")
	allowSelf := func() {
		must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user, PolicyName: aws.String("self"),
			PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/${aws:username}"}}`)}))
	}
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: user}))
	allowSelf()
	key := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user})).AccessKey
	creds := credentials.NewStaticCredentialsProvider(aws.ToString(key.AccessKeyId), aws.ToString(key.SecretAccessKey), "")
	getSelf := func(e *localtest.Endpoint) error {
		_, err := e.IAM(creds).GetUser(ctx, &iam.GetUserInput{UserName: user})
		return err
	}
	for range 3 { // the key and the user are read, then served from the cache
		if err := getSelf(e); err != nil {
			t.Fatalf("GetUser with the user's own key: %v", err)
		}
	}

	must[*iam.DeleteUserPolicyOutput](t, "DeleteUserPolicy")(admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: user, PolicyName: aws.String("self")}))
	wantCode(t, "GetUser right after its policy was deleted", getSelf(e), "AccessDenied")
	allowSelf()
	if err := getSelf(e); err != nil {
		t.Errorf("GetUser right after its policy was put back: %v", err)
	}
	must[*iam.UpdateAccessKeyOutput](t, "UpdateAccessKey")(admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: user, AccessKeyId: key.AccessKeyId, Status: types.StatusTypeInactive}))
	wantCode(t, "GetUser right after its key was deactivated", getSelf(e), "InvalidClientTokenId")
	must[*iam.UpdateAccessKeyOutput](t, "UpdateAccessKey")(admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: user, AccessKeyId: key.AccessKeyId, Status: types.StatusTypeActive}))
	if err := getSelf(e); err != nil {
		t.Fatalf("GetUser after its key was reactivated: %v", err)
	}

	// Read, write, stop; the next run reads what was written.
	must[*iam.DeleteUserPolicyOutput](t, "DeleteUserPolicy")(admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: user, PolicyName: aws.String("self")}))
	stopped = true
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	second := localtest.Start(t, localaws.Config{DataDir: dir})
	wantCode(t, "GetUser after a restart, its policy deleted in the last run", getSelf(second), "AccessDenied")
}
