package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
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
