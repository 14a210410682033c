package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// revokeEnv is leash local in this process, an administrator, and an
// iamTap in front of it that can kill a `leash revoke` process after its
// Nth IAM or STS call.
type revokeEnv struct {
	l         *localaws.Loopback
	local     *localtest.Endpoint
	admin     *iam.Client
	adminFile string
	tap       *iamTap
}

func startRevokeEnv(t *testing.T) *revokeEnv {
	t.Helper()
	l := localtest.Start(t, localaws.Config{AccountID: account})
	return &revokeEnv{l: l.Loopback, local: l, adminFile: l.AdminCredentialsPath(), tap: newIAMTap(t, l.URL, l.Admin.ID), admin: l.IAM(nil)}
}

// revokeProc is `leash revoke args...` through the tap, not started yet.
func (e *revokeEnv) revokeProc(args ...string) *operatorProc {
	p := &operatorProc{stderr: &syncBuffer{}, exited: make(chan struct{})}
	p.cmd = exec.Command(leashBin, append([]string{"revoke", "--endpoint", e.tap.url, "--credentials-file", e.adminFile}, args...)...)
	p.cmd.Stdout, p.cmd.Stderr = p.stderr, p.stderr
	return p
}

// runToEnd runs p and waits for it to exit.
func runToEnd(t *testing.T, p *operatorProc) {
	t.Helper()
	p.start(t)
	select {
	case <-p.exited:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("leash revoke still runs after 60s:\n%s", p.stderr)
	}
}

// interrupted kills `leash revoke args...` after its nth call, then runs it
// again to its end. It returns false once the command makes fewer than n
// calls (the kill never came), having checked that run succeeded.
func (e *revokeEnv) interrupted(t *testing.T, n int, args ...string) bool {
	t.Helper()
	p := e.revokeProc(args...)
	e.tap.arm(p, n, func(tapCall) bool { return true })
	runToEnd(t, p)
	killed := e.tap.disarm()
	if killed == "" {
		if p.err != nil {
			t.Fatalf("round %d: leash revoke %s was not killed and failed: %v\n%s", n, strings.Join(args, " "), p.err, p.stderr)
		}
		return false
	}
	again := e.revokeProc(args...)
	runToEnd(t, again)
	if again.err != nil {
		t.Fatalf("round %d: killed after %s, the second run failed: %v\nfirst run:\n%s\nsecond run:\n%s", n, killed, again.err, p.stderr, again.stderr)
	}
	return true
}

// denyCutoff reads a principal's session deny, zero when there is none.
func denyCutoff(t *testing.T, doc *string, err error) time.Time {
	t.Helper()
	if iamclient.IsNotFound(err) {
		return time.Time{}
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := revoke.ReadDeny(decoded(t, aws.ToString(doc)))
	cutoff := d.Cutoff
	if err != nil {
		t.Fatal(err)
	}
	return cutoff
}

// decoded undoes the URL encoding of IAM's policy documents.
func decoded(t *testing.T, s string) string {
	t.Helper()
	d, err := url.QueryUnescape(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRevokeInterruptedAtEveryCall kills `leash revoke` after each of its
// IAM and STS calls in turn, for a user (two keys and a console password)
// and for a role whose trust it narrows, and runs the same command again:
// every time the end state is the whole revocation.
func TestRevokeInterruptedAtEveryCall(t *testing.T) {
	e := startRevokeEnv(t)
	ctx := context.Background()

	userRounds := 0
	for n := 1; ; n++ {
		name := fmt.Sprintf("leaked-%d", n)
		if _, err := e.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := e.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: aws.String(name), Password: aws.String("Leaked-" + name + "-Pw1!")}); err != nil {
			t.Fatal(err)
		}
		began := time.Now().Truncate(time.Second)
		if !e.interrupted(t, n, "--user", name) {
			break
		}
		userRounds++
		keys, err := e.admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(name)})
		if err != nil || len(keys.AccessKeyMetadata) != 0 {
			t.Errorf("round %d: keys left: %v, %v", n, keys, err)
		}
		if _, err := e.admin.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: aws.String(name)}); !iamclient.IsNotFound(err) {
			t.Errorf("round %d: login profile: %v, want NoSuchEntity", n, err)
		}
		p, err := e.admin.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(revoke.PolicyName)})
		var doc *string
		if p != nil {
			doc = p.PolicyDocument
		}
		if cutoff := denyCutoff(t, doc, err); !cutoff.After(began) {
			t.Errorf("round %d: deny cutoff %v, want after %v", n, cutoff, began)
		}
	}

	const devRef, mainRef = "repo:polarsquad/krops:ref:refs/heads/dev", "repo:polarsquad/krops:ref:refs/heads/main"
	roleRounds := 0
	for n := 1; ; n++ {
		name := fmt.Sprintf("ci-%d", n)
		trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + account + `:oidc-provider/token.actions.githubusercontent.com"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringLike":{"token.actions.githubusercontent.com:sub":["` + mainRef + `","` + devRef + `"]}}}]}`
		if _, err := e.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
		began := time.Now().Truncate(time.Second)
		if !e.interrupted(t, n, "--role", name, "--trust", devRef) {
			break
		}
		roleRounds++
		role, err := e.admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
		if err != nil {
			t.Fatal(err)
		}
		if got := decoded(t, aws.ToString(role.Role.AssumeRolePolicyDocument)); strings.Contains(got, devRef) || !strings.Contains(got, mainRef) {
			t.Errorf("round %d: trust %s; want the dev ref gone and main kept", n, got)
		}
		p, err := e.admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(revoke.PolicyName)})
		var doc *string
		if p != nil {
			doc = p.PolicyDocument
		}
		if cutoff := denyCutoff(t, doc, err); !cutoff.After(began) {
			t.Errorf("round %d: deny cutoff %v, want after %v", n, cutoff, began)
		}
	}
	t.Logf("killed and finished: %d user rounds, %d role rounds", userRounds, roleRounds)
	// A user revocation plans with 6 reads, then makes 16 calls: the
	// lockout and its read back, two keys deactivated and deleted, the
	// password, the sweep's listing and password check, the cutoff, the
	// deny and its read back, the lockout's check and removal, the final
	// listing, and the trail's LookupEvents for chained sessions. A
	// role's with --trust plans with 4 reads and makes 7 calls: the
	// intent tag, the trust and its read back, the cutoff, the deny and
	// its read back, LookupEvents.
	if userRounds != 22 || roleRounds != 11 {
		t.Errorf("rounds: %d user, %d role; want a kill after each of 22 and 11 calls", userRounds, roleRounds)
	}
}

// TestRevokeSeenThroughAWSCLI revokes a role in leash local, run as a
// process, and reads the deny back with the real AWS CLI, as a responder
// checks the console's work.
func TestRevokeSeenThroughAWSCLI(t *testing.T) {
	p := startLocal(t, t.TempDir())
	cli := newAWSCLI(t, p.url)
	admin := as{credentialsFile: p.credentialsPath()}
	trust := filepath.Join("..", "..", "examples", "ci-role", "trust.json")
	cli.ok(t, admin, nil, "iam", "create-role", "--role-name", "ci", "--assume-role-policy-document", "file://"+trust)
	stdout, _ := runLeash(t, "revoke", "--role", "ci", "--endpoint", p.url, "--credentials-file", p.credentialsPath(), "--output", "json")
	var rep revoke.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var got struct {
		RoleName, PolicyName string
		PolicyDocument       struct {
			Statement []struct {
				Effect, Action, Resource any
				Condition                map[string]map[string]string
			}
		}
	}
	cli.ok(t, admin, &got, "iam", "get-role-policy", "--role-name", "ci", "--policy-name", "AWSRevokeOlderSessions")
	if got.RoleName != "ci" || got.PolicyName != revoke.PolicyName || len(got.PolicyDocument.Statement) != 1 {
		t.Fatalf("get-role-policy: %+v", got)
	}
	st := got.PolicyDocument.Statement[0]
	if st.Effect != "Deny" || fmt.Sprint(st.Action) != "[*]" || fmt.Sprint(st.Resource) != "[*]" ||
		st.Condition["DateLessThan"]["aws:TokenIssueTime"] != rep.Cutoff.Format(time.RFC3339) {
		t.Errorf("the deny as the AWS CLI shows it: %+v; want Deny * on * before %s", st, rep.Cutoff.Format(time.RFC3339))
	}
}
