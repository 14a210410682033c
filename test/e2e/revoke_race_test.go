package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/localaws/localtest"
)

// TestRevokeUserRacesTheKeyHolder revokes a user whose leaked key is in
// use, while eight goroutines holding the user's keys fight back through
// aws-sdk-go-v2: they make keys, reactivate every key they know, overwrite
// the user's inline policies (the lockout and the deny among them) and
// take session tokens, in a loop, for as long as `leash revoke --user`
// runs. Twenty runs each, deleting the keys and keeping them inactive:
// every run ends with no key the holder made (none active when kept), no
// key of theirs able to call IAM, and no session of the user able to call
// anything.
func TestRevokeUserRacesTheKeyHolder(t *testing.T) {
	for _, keep := range []bool{false, true} {
		name := "delete-keys"
		if keep {
			name = "keep-keys-inactive"
		}
		t.Run(name, func(t *testing.T) {
			e := startRevokeEnv(t)
			ctx := context.Background()
			for run := range 20 {
				user := fmt.Sprintf("leaked-%d", run)
				target := fmt.Sprintf("target-%d", run)
				if _, err := e.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(user)}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String("everything"),
					PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)}); err != nil {
					t.Fatal(err)
				}
				if _, err := e.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(target),
					AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:user/` + user + `"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
					t.Fatal(err)
				}
				out, err := e.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(user)})
				if err != nil {
					t.Fatal(err)
				}
				h := &keyHolder{e: e, user: user, keys: []aws.CredentialsProvider{staticKey(out.AccessKey.AccessKeyId, out.AccessKey.SecretAccessKey, nil)}}

				p := e.revokeProc(revokeArgs(user, keep)...)
				fight, stop := context.WithCancel(ctx)
				var wg sync.WaitGroup
				for g := range 8 {
					wg.Go(func() { h.fight(fight, g) })
				}
				runToEnd(t, p)
				stop()
				wg.Wait()
				if p.err != nil {
					t.Fatalf("run %d: leash revoke failed: %v\n%s", run, p.err, p.stderr)
				}

				listed, err := e.admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(user)})
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range listed.AccessKeyMetadata {
					if !keep || k.Status == iamtypes.StatusTypeActive {
						t.Errorf("run %d: key %s is %s after the revocation\n%s", run, aws.ToString(k.AccessKeyId), k.Status, p.stderr)
					}
				}
				keys, sessions := h.loot()
				for _, k := range keys {
					if _, err := h.iam(k).ListUsers(ctx, &iam.ListUsersInput{}); err == nil {
						t.Errorf("run %d: a key the holder knows still lists users after the revocation", run)
					}
				}
				for _, s := range sessions {
					if _, err := h.sts(s).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + account + ":role/" + target),
						RoleSessionName: aws.String("after")}); iamclient.ResultCode(err) != "AccessDenied" {
						t.Errorf("run %d: a session token of the user assumes a role after the revocation: %v", run, err)
					}
				}
				if run == 0 {
					t.Logf("run 0: the holder made %d keys and %d sessions during the revocation\n%s", len(keys)-1, len(sessions), p.stderr)
				}
			}
		})
	}
}

func revokeArgs(user string, keep bool) []string {
	if keep {
		return []string{"--user", user, "--keep-keys-inactive"}
	}
	return []string{"--user", user}
}

// keyHolder is whoever holds a leaked user's keys: every key and session
// token they have made.
type keyHolder struct {
	e    *revokeEnv
	user string

	mu       sync.Mutex
	keys     []aws.CredentialsProvider
	sessions []aws.CredentialsProvider
}

// raceHTTP is the one HTTP client of every holder's call, so that the
// thousands of calls of a run share connections instead of opening one
// each.
var raceHTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

func (h *keyHolder) iam(creds aws.CredentialsProvider) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(h.e.l.URL), Credentials: creds, HTTPClient: raceHTTP, Retryer: localtest.Retryer()})
}

func (h *keyHolder) sts(creds aws.CredentialsProvider) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(h.e.l.URL), Credentials: creds, HTTPClient: raceHTTP, Retryer: localtest.Retryer()})
}

func staticKey(id, secret, token *string) aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(aws.ToString(id), aws.ToString(secret), aws.ToString(token))
}

func (h *keyHolder) loot() (keys, sessions []aws.CredentialsProvider) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]aws.CredentialsProvider(nil), h.keys...), append([]aws.CredentialsProvider(nil), h.sessions...)
}

func (h *keyHolder) pick() aws.CredentialsProvider {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.keys[rand.IntN(len(h.keys))]
}

// fight makes the holder's calls in a loop until ctx ends. Errors are the
// point (most calls are refused once the revocation bites) and are
// ignored.
func (h *keyHolder) fight(ctx context.Context, g int) {
	user := aws.String(h.user)
	for i := g; ctx.Err() == nil; i++ {
		c := h.iam(h.pick())
		switch i % 5 {
		case 0:
			if out, err := c.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user}); err == nil {
				h.mu.Lock()
				h.keys = append(h.keys, staticKey(out.AccessKey.AccessKeyId, out.AccessKey.SecretAccessKey, nil))
				h.mu.Unlock()
			} else if iamclient.ResultCode(err) == "LimitExceeded" {
				// Make room: delete an inactive key.
				if l, err := c.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: user}); err == nil {
					for _, k := range l.AccessKeyMetadata {
						if k.Status == iamtypes.StatusTypeInactive {
							_, _ = c.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: user, AccessKeyId: k.AccessKeyId})
							break
						}
					}
				}
			}
		case 1:
			if l, err := c.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: user}); err == nil {
				for _, k := range l.AccessKeyMetadata {
					_, _ = c.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: user, AccessKeyId: k.AccessKeyId, Status: iamtypes.StatusTypeActive})
				}
			}
		case 2:
			for _, name := range []string{revoke.LockoutName, revoke.PolicyName} {
				_, _ = c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user, PolicyName: aws.String(name),
					PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)})
			}
		case 3:
			_, _ = c.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: user, PolicyName: aws.String(revoke.LockoutName)})
		case 4:
			if out, err := h.sts(h.pick()).GetSessionToken(ctx, &sts.GetSessionTokenInput{}); err == nil {
				h.mu.Lock()
				h.sessions = append(h.sessions, staticKey(out.Credentials.AccessKeyId, out.Credentials.SecretAccessKey, out.Credentials.SessionToken))
				h.mu.Unlock()
			}
		}
	}
}
