package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/internal/operator"
)

// TestCrashCeiling kills `leash operator --ceiling` after each IAM call of
// a mint in turn, the calls about the ceiling policy included (reading it,
// creating it, the user created with it as boundary), and checks that the
// restarts leave one ceiling policy with one version and every user
// bounded by it, besides what TestCrashAtEveryIAMCall checks of a mint.
func TestCrashCeiling(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, crashNS)
	root := cl.adminKey(t)
	tap := newIAMTap(t, cl.url, root.ID)
	ceiling := filepath.Join(t.TempDir(), "ceiling.json")
	if err := os.WriteFile(ceiling, []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","iam:GetUser"],"Resource":"*"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := newOperatorRuns(t, "operator", "--kubeconfig", cl.api.Kubeconfig(t, "operator"),
		"--iam-endpoint", tap.url, "--root-credentials-file", cl.local.AdminCredentialsPath(),
		"--namespace", crashNS, "--cluster-name", crashNS, "--ceiling", ceiling,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--rotation-grace", "0", "--sweep-interval", "1s", "--sweep-grace", "2s")
	name := crashNS + "-leash-ceiling"
	// The first process is killed right after it creates the ceiling policy,
	// before any user; later processes find the policy made.
	cl.create(t, request(t, crashNS, "c-0", crashNS, crashEntries))
	p := runs.next()
	tap.arm(p, 1, func(c tapCall) bool { return c.action == "CreatePolicy" && c.policy == name })
	p.start(t)
	runs.waitKillOr(t, p, tap, "c-0 Ready", func() bool { return readyTrue(cl.get(t, crashNS, "c-0")) })
	if killed := tap.disarm(); killed != "CreatePolicy" {
		t.Fatalf("the first process was killed after %q, want after the ceiling's CreatePolicy", killed)
	}
	restart := runs.next()
	restart.start(t)
	runs.waitAllReady(t, restart, cl)
	restart.terminate(t)
	checkMinted(t, cl)
	crashMintsCounting(t, cl, tap, runs, "c", crashEntries, 6, func(c tapCall) bool { return c.policy == name })

	out, err := cl.admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: iamtypes.PolicyScopeTypeLocal, PathPrefix: aws.String("/leash/" + crashNS + "/ceiling/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Policies) != 1 || aws.ToString(out.Policies[0].PolicyName) != name {
		t.Fatalf("ceiling policies after the crashes: %d, want one, %s", len(out.Policies), name)
	}
	arn := out.Policies[0].Arn
	versions, err := cl.admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	if len(versions.Versions) != 1 {
		t.Errorf("the ceiling policy has %d versions after restarts with the same ceiling, want 1", len(versions.Versions))
	}
	for user := range crashUsers(t, cl) {
		got, err := cl.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(user)})
		if err != nil {
			t.Fatal(err)
		}
		if b := got.User.PermissionsBoundary; b == nil || aws.ToString(b.PermissionsBoundaryArn) != aws.ToString(arn) {
			t.Errorf("user %s has boundary %v after the crashes, want the ceiling %s", user, b, aws.ToString(arn))
		}
	}
	runs.checkNoSecrets(t, append(tap.secrets(), root.Secret.Reveal()))
}

// TestCrashCeilingAdded kills `leash operator` at each IAM call of
// applying a ceiling newly added to a cluster with several minted users:
// reading and creating the ceiling policy, listing the users, reading
// each, putting each one's boundary. Round n starts the operator with the
// ceiling, as if it had just been added (no ceiling policy, no boundary),
// and kills it at the nth of those calls; after the restart settles no
// user is without the ceiling as its boundary. The first round whose
// operator finishes bounding every user before its nth call ends the test.
// The sweep is off (a long interval), since it reads the same users.
func TestCrashCeilingAdded(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, crashNS)
	root := cl.adminKey(t)
	tap := newIAMTap(t, cl.url, root.ID)
	args := []string{"operator", "--kubeconfig", cl.api.Kubeconfig(t, "operator"),
		"--iam-endpoint", tap.url, "--root-credentials-file", cl.local.AdminCredentialsPath(),
		"--namespace", crashNS, "--cluster-name", crashNS,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--sweep-interval", "1h"}
	plain := newOperatorRuns(t, args...)
	first := plain.next()
	first.start(t)
	const users = 3
	for i := range users {
		cl.create(t, request(t, crashNS, fmt.Sprintf("b-%d", i), crashNS, crashEntries))
	}
	plain.waitAllReady(t, first, cl)
	first.terminate(t)

	const doc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","iam:GetUser"],"Resource":"*"}]}`
	ceiling := filepath.Join(t.TempDir(), "ceiling.json")
	if err := os.WriteFile(ceiling, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := newOperatorRuns(t, append(args, "--ceiling", ceiling)...)
	name := crashNS + "-leash-ceiling"
	arn := "arn:aws:iam::" + account + ":policy/leash/" + crashNS + "/ceiling/" + name
	applying := func(c tapCall) bool {
		switch c.action {
		case "GetCallerIdentity", "ListUsers", "GetUser", "PutUserPermissionsBoundary":
			return c.signer == "root"
		}
		return c.policy == name
	}
	const done = `"msg":"every minted user has the permissions boundary"`
	var kills []string
	for n := 1; ; n++ {
		if n > 4+3*users {
			t.Fatalf("every round up to %d was killed before the ceiling was applied; calls of the last round: %v", n-1, tap.counted())
		}
		unbound(t, cl, arn)
		p := runs.next()
		tap.arm(p, n, applying)
		p.start(t)
		runs.waitKillOr(t, p, tap, "every user bounded", func() bool { return strings.Contains(p.stderr.String(), done) })
		killedAt := tap.disarm()
		calls := tap.counted()
		if killedAt == "" || strings.Contains(p.stderr.String(), done) {
			if killedAt == "" {
				p.terminate(t)
			}
			t.Logf("round %d: every user bounded after %d calls, no kill while applying: %s", n, len(calls), strings.Join(calls, ", "))
			checkBounded(t, cl, arn, doc)
			break
		}
		t.Logf("round %d: kill %d after %s (calls: %s)", n, n, killedAt, strings.Join(calls, ", "))
		kills = append(kills, killedAt)
		restart := runs.next()
		restart.start(t)
		waitFor(t, 60*time.Second, "the restart to bound every user", func() (bool, string) {
			return strings.Contains(restart.stderr.String(), done), ""
		})
		checkBounded(t, cl, arn, doc)
		runs.waitAllReady(t, restart, cl)
		restart.terminate(t)
		checkMinted(t, cl)
	}
	t.Logf("applying a new ceiling to %d users: %d kills, in order: %s", users, len(kills), strings.Join(kills, " | "))
	if want := 4 + 2*users; len(kills) < want {
		t.Errorf("applying the ceiling was killed at %d calls (%v); it makes at least %d (the root's identity, GetPolicy, CreatePolicy, ListUsers, then GetUser and PutUserPermissionsBoundary per user)", len(kills), kills, want)
	}
	var secrets []string
	for _, s := range crashSecrets(t, cl) {
		secrets = append(secrets, string(s.Data[operator.SecretKeySecret]))
	}
	plain.checkNoSecrets(t, append(secrets, root.Secret.Reveal()))
	runs.checkNoSecrets(t, append(secrets, root.Secret.Reveal()))
}

// unbound undoes a ceiling behind leash's back, as if it had never been
// set: every user's boundary removed, the ceiling policy deleted.
func unbound(t *testing.T, cl *cluster, arn string) {
	t.Helper()
	ctx := context.Background()
	for user := range crashUsers(t, cl) {
		if _, err := cl.admin.DeleteUserPermissionsBoundary(ctx, &iam.DeleteUserPermissionsBoundaryInput{UserName: aws.String(user)}); err != nil && apiErrCode(err) != "NoSuchEntity" {
			t.Fatal(err)
		}
	}
	versions, err := cl.admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(arn)})
	if apiErrCode(err) == "NoSuchEntity" {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions.Versions {
		if !v.IsDefaultVersion {
			if _, err := cl.admin.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(arn), VersionId: v.VersionId}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := cl.admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
}

// checkBounded fails unless every user under the crash cluster's path has
// the ceiling policy as its boundary and the policy's default version is
// doc.
func checkBounded(t *testing.T, cl *cluster, arn, doc string) {
	t.Helper()
	users := map[string]string{}
	for user := range crashUsers(t, cl) {
		users[user] = user
	}
	if ok, state := ceilingHolds(t, cl.admin, arn, doc, users); !ok {
		t.Fatalf("after the restart: %s", state)
	}
	t.Logf("  %d users, each bounded by the ceiling", len(users))
}
