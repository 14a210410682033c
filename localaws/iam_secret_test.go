package localaws_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

// startStoppable runs a server that the test can stop (to read its audit
// log) before the cleanup would.
func startStoppable(t *testing.T) (*endpoint, func()) {
	t.Helper()
	dir := t.TempDir()
	l, err := localaws.StartLoopback(localaws.Config{DataDir: dir, AccountID: account})
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	t.Cleanup(stop)
	return &endpoint{srv: l.Server, url: l.URL, dir: dir}, stop
}

// recorder is an HTTP client that keeps every response body, by action.
type recorder struct {
	mu     sync.Mutex
	bodies []recorded
}

type recorded struct {
	action string
	body   string
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	var action string
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		for _, kv := range strings.Split(string(body), "&") {
			if v, ok := strings.CutPrefix(kv, "Action="); ok {
				action = v
			}
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.bodies = append(r.bodies, recorded{action, string(body)})
	r.mu.Unlock()
	return resp, nil
}

// TestNoResponseButCreateAccessKeysCarriesTheSecret drives the operations
// that touch a key or a password, successes and failures, and scans every
// raw response, and the audit log, for the secret and the password.
func TestNoResponseButCreateAccessKeysCarriesTheSecret(t *testing.T) {
	e, stop := startStoppable(t)
	ctx := context.Background()
	rec := &recorder{}
	client := func(id, secret string) *iam.Client {
		return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), HTTPClient: rec, Retryer: localtest.Retryer(),
			Credentials: credentials.NewStaticCredentialsProvider(id, secret, "")})
	}
	admin := client(e.adminKeys(t))
	user := aws.String("alice")
	const password = "Sekrit-Pa55word"
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: user}))
	must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user, PolicyName: aws.String("keys"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["iam:ListAccessKeys","iam:GetUser"],"Resource":"*"}}`)}))
	key := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user})).AccessKey
	id, secret := aws.ToString(key.AccessKeyId), aws.ToString(key.SecretAccessKey)
	alice := client(id, secret)

	// Whatever these return, it must not be the secret or the password.
	calls := []func() error{
		func() error { _, err := alice.ListAccessKeys(ctx, &iam.ListAccessKeysInput{}); return err },
		func() error { _, err := alice.GetUser(ctx, &iam.GetUserInput{}); return err },
		func() error {
			_, err := alice.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{AccessKeyId: key.AccessKeyId})
			return err
		},
		func() error {
			_, err := admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: user})
			return err
		},
		func() error {
			_, err := admin.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: key.AccessKeyId})
			return err
		},
		func() error {
			_, err := admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: user, AccessKeyId: key.AccessKeyId, Status: "Paused"})
			return err
		},
		func() error {
			_, err := admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: user, AccessKeyId: key.AccessKeyId, Status: types.StatusTypeInactive})
			return err
		},
		func() error { _, err := alice.ListAccessKeys(ctx, &iam.ListAccessKeysInput{}); return err },
		func() error {
			_, err := admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String(strings.ToLower(password))})
			return err
		},
		func() error {
			_, err := admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String(password)})
			return err
		},
		func() error {
			_, err := admin.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: user})
			return err
		},
		func() error {
			_, err := admin.UpdateLoginProfile(ctx, &iam.UpdateLoginProfileInput{UserName: user, Password: aws.String("short")})
			return err
		},
		func() error { _, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: user}); return err },
		func() error {
			_, err := admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String("arn:aws:iam::" + account + ":user/alice"), ActionNames: []string{"iam:ListAccessKeys"}})
			return err
		},
		func() error {
			_, err := admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: user, AccessKeyId: key.AccessKeyId})
			return err
		},
		func() error {
			_, err := admin.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: key.AccessKeyId})
			return err
		},
	}
	for i, call := range calls {
		if err := call(); err != nil && (strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), strings.ToLower(password))) {
			t.Errorf("call %d: the error quotes a secret: %v", i, err)
		}
	}

	rec.mu.Lock()
	defer rec.mu.Unlock()
	creates := 0
	for _, r := range rec.bodies {
		if r.action == "CreateAccessKey" && strings.Contains(r.body, secret) {
			creates++
			continue
		}
		for _, s := range []string{secret, password, strings.ToLower(password)} {
			if strings.Contains(r.body, s) {
				t.Errorf("the %s response carries a secret:\n%s", r.action, r.body)
			}
		}
	}
	if creates != 1 {
		t.Errorf("%d CreateAccessKey responses carry the secret, want the one", creates)
	}
	if len(rec.bodies) < len(calls) {
		t.Errorf("recorded %d responses for %d calls", len(rec.bodies), len(calls))
	}

	// The audit log holds requests and errors, never a secret.
	stop()
	log, err := os.ReadFile(filepath.Join(e.dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{secret, password, strings.ToLower(password)} {
		if bytes.Contains(log, []byte(s)) {
			t.Errorf("the audit log carries a secret")
		}
	}
}
