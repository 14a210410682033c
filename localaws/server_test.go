package localaws_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// endpoint is a running leash local for one test.
type endpoint struct {
	srv *localaws.Server
	url string
	dir string
}

func start(t *testing.T) *endpoint {
	t.Helper()
	return startWith(t, localaws.Config{AccountID: "111122223333"})
}

// adminKeys reads the administrator's key from the credentials file, as a
// user of leash local would.
func (e *endpoint) adminKeys(t *testing.T) (string, string) {
	t.Helper()
	key, err := iamclient.KeyFromFile(e.srv.AdminCredentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	return key.ID, key.Secret.Reveal()
}

func (e *endpoint) iam(id, secret string) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

func (e *endpoint) sts(id, secret string) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

func apiCode(err error) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return ""
}

func TestAdminCredentialsFileIsPrivate(t *testing.T) {
	e := start(t)
	info, err := os.Stat(filepath.Join(e.dir, localaws.AdminCredentialsFile))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("admin credentials mode %v, want 0600", info.Mode().Perm())
	}
}

// TestMintedKeyCanDoExactlyWhatItsPolicyAllows is the end-to-end case: a key
// for a user whose policy allows only iam:GetUser on itself.
func TestMintedKeyCanDoExactlyWhatItsPolicyAllows(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	admin := e.iam(e.adminKeys(t))
	for _, name := range []string{"alice", "bob"} {
		if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
			t.Fatalf("CreateUser %s: %v", name, err)
		}
	}
	_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("self"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/${aws:username}"}}`)})
	if err != nil {
		t.Fatalf("PutUserPolicy: %v", err)
	}
	key, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})
	if err != nil {
		t.Fatalf("CreateAccessKey: %v", err)
	}
	alice := e.iam(*key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey)

	got, err := alice.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")})
	if err != nil || *got.User.Arn != "arn:aws:iam::111122223333:user/alice" {
		t.Fatalf("GetUser on itself: %v, %v", got, err)
	}
	if _, err := alice.GetUser(ctx, &iam.GetUserInput{}); err != nil {
		t.Errorf("GetUser without a name (itself): %v", err)
	}
	_, err = alice.ListUsers(ctx, &iam.ListUsersInput{})
	if apiCode(err) != "AccessDenied" || !strings.Contains(err.Error(), "User: arn:aws:iam::111122223333:user/alice is not authorized to perform: iam:ListUsers on resource: arn:aws:iam::111122223333:user/ because no identity-based policy allows the iam:ListUsers action") {
		t.Errorf("ListUsers: %v, want AccessDenied in AWS's words", err)
	}
	_, err = alice.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bob")})
	if apiCode(err) != "AccessDenied" {
		t.Errorf("GetUser on bob: %v, want AccessDenied", err)
	}
	id, err := e.sts(*key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Arn != "arn:aws:iam::111122223333:user/alice" || *id.Account != "111122223333" {
		t.Errorf("GetCallerIdentity: %v, %v", id, err)
	}
}

func TestSignatureErrors(t *testing.T) {
	e := start(t)
	ctx := context.Background()
	id, _ := e.adminKeys(t)
	_, err := e.iam(id, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").ListUsers(ctx, &iam.ListUsersInput{})
	if apiCode(err) != "SignatureDoesNotMatch" {
		t.Errorf("wrong secret: %v, want SignatureDoesNotMatch", err)
	}
	_, err = e.iam("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").ListUsers(ctx, &iam.ListUsersInput{})
	if apiCode(err) != "InvalidClientTokenId" {
		t.Errorf("unknown key: %v, want InvalidClientTokenId", err)
	}
}

func TestStateSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() *localaws.Server {
		srv, err := localaws.Open(localaws.Config{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return srv
	}
	first := open()
	account := first.AccountID()
	idBefore, _ := os.ReadFile(first.AdminCredentialsPath())
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := open()
	defer func() { _ = second.Close() }()
	idAfter, _ := os.ReadFile(second.AdminCredentialsPath())
	if second.AccountID() != account || string(idBefore) != string(idAfter) {
		t.Errorf("a restart changed the account or the admin credentials")
	}
}
