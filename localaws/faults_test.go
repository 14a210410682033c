package localaws_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/localaws/localtest"
)

// startWith runs a server with cfg (DataDir is filled in).
func startWith(t *testing.T, cfg localaws.Config) *endpoint {
	t.Helper()
	cfg.DataDir = t.TempDir()
	l, err := localaws.StartLoopback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return &endpoint{srv: l.Server, url: l.URL, dir: cfg.DataDir}
}

// noRetry is an IAM client that makes one attempt, so that a fault is seen
// as it is.
func (e *endpoint) noRetry(id, secret string) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), Retryer: localtest.Retryer(),
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
}

func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func TestFaultsReachTheSDK(t *testing.T) {
	tests := []struct {
		name   string
		cfg    faults.Config
		code   string
		status int
	}{
		{"throttling", faults.Config{ThrottleRate: 1}, "Throttling", http.StatusBadRequest},
		{"server errors", faults.Config{ErrorRate: 1}, "ServiceFailure", http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startWith(t, localaws.Config{Faults: tt.cfg})
			_, err := e.noRetry(e.adminKeys(t)).ListUsers(context.Background(), &iam.ListUsersInput{})
			if apiCode(err) != tt.code || httpStatus(err) != tt.status {
				t.Errorf("got %v (status %d), want %s with status %d", err, httpStatus(err), tt.code, tt.status)
			}
		})
	}
}

// TestPropagationDelay: a new key and a policy change take effect only after
// the configured delay, as IAM's eventual consistency does.
func TestPropagationDelay(t *testing.T) {
	// The signer's clock is real time, so the server's, which runs ahead by
	// offset, must stay within SigV4's 15 minutes of it.
	const delay = 3 * time.Minute
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	e := startWith(t, localaws.Config{Now: now, Faults: faults.Config{PropagationDelay: delay}})
	ctx := context.Background()
	// The administrator's key, made at start, propagates like any other.
	offset.Store(int64(delay + time.Minute))
	admin := e.iam(e.adminKeys(t))
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("carol")}); err != nil {
		t.Fatal(err)
	}
	put := func(action string) {
		t.Helper()
		_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("carol"), PolicyName: aws.String("p"),
			PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"` + action + `","Resource":"*"}}`)})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("iam:GetUser")
	key, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("carol")})
	if err != nil {
		t.Fatal(err)
	}
	carol := e.noRetry(*key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey)
	if _, err := carol.GetUser(ctx, &iam.GetUserInput{}); apiCode(err) != "InvalidClientTokenId" {
		t.Fatalf("a new key before the delay: %v, want InvalidClientTokenId", err)
	}
	offset.Store(int64(2*delay + 2*time.Minute))
	if _, err := carol.GetUser(ctx, &iam.GetUserInput{}); err != nil {
		t.Fatalf("the key after the delay: %v", err)
	}
	put("iam:ListUsers")
	if _, err := carol.ListUsers(ctx, &iam.ListUsersInput{}); apiCode(err) != "AccessDenied" {
		t.Errorf("ListUsers right after the grant: %v, want AccessDenied", err)
	}
	if _, err := carol.GetUser(ctx, &iam.GetUserInput{}); err != nil {
		t.Errorf("GetUser keeps working until the change propagates: %v", err)
	}
	offset.Store(int64(3*delay + 3*time.Minute))
	if _, err := carol.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Errorf("ListUsers after the delay: %v", err)
	}
}
