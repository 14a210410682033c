package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
)

// crashSTSNS is the namespace, and the cluster name, of the STS crash test.
const crashSTSNS = "crashsts"

// TestCrashAtEveryIAMCallSTSRole kills `leash operator` in STS mode with
// SIGKILL right after each IAM or STS call about a request's role in turn
// (its creation, its policy, the proof's AssumeRoleWithWebIdentity), and
// checks that a restart leaves every request with exactly one role, the
// one its Secret names, and no role that no request owns; then it does the
// same for the role's deletion.
func TestCrashAtEveryIAMCallSTSRole(t *testing.T) {
	cl := newSTSCluster(t)
	ctx := context.Background()
	cl.namespace(t, crashSTSNS)
	cl.serviceAccount(t, crashSTSNS, "workload")
	root := cl.adminKey(t)
	tap := newIAMTap(t, cl.url, root.ID)
	runs := newOperatorRuns(t, "operator", "--kubeconfig", cl.api.Kubeconfig(t, "operator"),
		"--iam-endpoint", tap.url, "--root-credentials-file", cl.local.AdminCredentialsPath(),
		"--namespace", crashSTSNS, "--cluster-name", crashSTSNS, "--mode", "STS", "--oidc-issuer", stsIssuerURL,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0",
		"--sweep-interval", "1s", "--sweep-grace", "2s")
	newRequest := func(name, entries string) *leashv1.CredentialsRequest {
		cr := request(t, crashSTSNS, name, crashSTSNS, entries)
		cr.Spec.ServiceAccountNames = []string{"workload"}
		return cr
	}
	prefix := func(name string) string { return crashSTSNS + "-" + crashSTSNS + "-" + name + "-" }

	// Creation: with a policy that fits inline, then with one that must be
	// a managed policy attached to the role (CreatePolicy, AttachRolePolicy).
	crashRoleCreations(t, cl, tap, runs, newRequest, prefix, "c", crashEntries, 3)
	crashRoleCreations(t, cl, tap, runs, newRequest, prefix, "m", bigCrashEntries(), 5)

	// Deletion: round n deletes c-n and kills the operator at the nth call
	// about its role; a restart has to finish it, and the others stay.
	var deleteKills []string
	for n := 1; ; n++ {
		if n > 40 {
			t.Fatalf("every deletion round up to %d was killed; calls of the last round: %v", n-1, tap.counted())
		}
		name := fmt.Sprintf("c-%d", n)
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: crashSTSNS, Name: name}, &leashv1.CredentialsRequest{}); apierrors.IsNotFound(err) {
			// More rounds than creation made requests: make the next one
			// with an operator no tap kills.
			cl.create(t, newRequest(name, crashEntries))
			p := runs.next()
			p.start(t)
			waitAllReadyIn(t, p, cl, crashSTSNS)
			p.terminate(t)
		}
		if err := cl.c.Delete(ctx, cl.get(t, crashSTSNS, name)); err != nil {
			t.Fatal(err)
		}
		p := runs.next()
		tap.arm(p, n, callsAbout(prefix(name)))
		p.start(t)
		gone := func() bool {
			err := cl.c.Get(ctx, client.ObjectKey{Namespace: crashSTSNS, Name: name}, &leashv1.CredentialsRequest{})
			return apierrors.IsNotFound(err)
		}
		runs.waitKillOr(t, p, tap, name+" to be gone", gone)
		killedAt := tap.disarm()
		calls := tap.counted()
		if killedAt == "" {
			p.terminate(t)
			t.Logf("deletion round %d: %s gone after %d calls, no kill: %s", n, name, len(calls), strings.Join(calls, ", "))
			checkRoles(t, cl)
			break
		}
		t.Logf("deletion round %d: kill after %s (calls: %s)", n, killedAt, strings.Join(calls, ", "))
		deleteKills = append(deleteKills, killedAt)
		restart := runs.next()
		restart.start(t)
		waitFor(t, 60*time.Second, name+" to be gone after the restart", func() (bool, string) { return gone(), "" })
		waitAllReadyIn(t, restart, cl, crashSTSNS)
		restart.terminate(t)
		checkRoles(t, cl)
	}
	t.Logf("deletion kill points, in order: %s", strings.Join(deleteKills, " | "))
	if len(deleteKills) < 2 {
		t.Errorf("a role's deletion was killed at only %d calls (%v); it deletes at least the policy and the role", len(deleteKills), deleteKills)
	}

	// Every request gone, with no operator running but the last: nothing
	// of theirs is left.
	var list leashv1.CredentialsRequestList
	if err := cl.c.List(ctx, &list, client.InNamespace(crashSTSNS)); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if err := cl.c.Delete(ctx, &list.Items[i]); err != nil {
			t.Fatal(err)
		}
	}
	last := runs.next()
	last.start(t)
	waitFor(t, 60*time.Second, "every request and role to be gone", func() (bool, string) {
		var l leashv1.CredentialsRequestList
		if err := cl.c.List(ctx, &l, client.InNamespace(crashSTSNS)); err != nil {
			t.Fatal(err)
		}
		roles := crashRoles(t, cl)
		return len(l.Items) == 0 && len(roles) == 0, fmt.Sprintf("%d requests, roles %v", len(l.Items), roles)
	})
	last.terminate(t)
	runs.checkNoSecrets(t, append(tap.secrets(), root.Secret.Reveal()))
}

// crashRoles reads every role under the STS crash test's path, with the
// request UID it is tagged with.
func crashRoles(t *testing.T, cl *cluster) map[string]string {
	t.Helper()
	ctx := context.Background()
	out, err := cl.admin.ListRoles(ctx, &iam.ListRolesInput{PathPrefix: aws.String("/leash/" + crashSTSNS + "/")})
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]string{}
	for _, r := range out.Roles {
		role, ok := cl.roleOf(t, aws.ToString(r.RoleName))
		if !ok {
			continue
		}
		for _, tg := range role.Tags {
			if aws.ToString(tg.Key) == operator.TagRequestUID {
				roles[aws.ToString(r.RoleName)] = aws.ToString(tg.Value)
			}
		}
		if _, ok := roles[aws.ToString(r.RoleName)]; !ok {
			roles[aws.ToString(r.RoleName)] = ""
		}
	}
	return roles
}

// checkRoles checks what a crash must never leave: every request has
// exactly one role carrying its UID, named in its status and its Secret,
// with its policy; and no role under the cluster's path belongs to no
// request.
func checkRoles(t *testing.T, cl *cluster) {
	t.Helper()
	owned := map[string][]string{}
	for name, uid := range crashRoles(t, cl) {
		owned[uid] = append(owned[uid], name)
	}
	var list leashv1.CredentialsRequestList
	if err := cl.c.List(context.Background(), &list, client.InNamespace(crashSTSNS)); err != nil {
		t.Fatal(err)
	}
	wantPolicies := map[string]bool{}
	for _, cr := range list.Items {
		mine := owned[string(cr.UID)]
		delete(owned, string(cr.UID))
		if len(mine) != 1 {
			t.Errorf("%s: %d roles carry its UID (%v), want 1", cr.Name, len(mine), mine)
			continue
		}
		if !strings.HasSuffix(cr.Status.Principal, "/"+mine[0]) {
			t.Errorf("%s: status names %q, IAM has role %s", cr.Name, cr.Status.Principal, mine[0])
		}
		s := cl.secret(t, crashSTSNS, cr.Spec.SecretRef.Name)
		if s == nil || !strings.Contains(string(s.Data[operator.SecretKeyCredentials]), "/"+mine[0]+"\n") {
			t.Errorf("%s: the Secret does not name role %s", cr.Name, mine[0])
		}
		if strings.HasPrefix(cr.Name, "m-") { // over the inline limit: one managed policy
			arn := "arn:aws:iam::" + account + ":policy/leash/" + crashSTSNS + "/" + mine[0] + "-policy"
			out, err := cl.admin.ListAttachedRolePolicies(context.Background(), &iam.ListAttachedRolePoliciesInput{RoleName: aws.String(mine[0])})
			if err != nil || len(out.AttachedPolicies) != 1 || aws.ToString(out.AttachedPolicies[0].PolicyArn) != arn {
				t.Errorf("%s: role %s has attached policies %v (%v); want only %s", cr.Name, mine[0], out, err, arn)
			}
			wantPolicies[arn] = true
		} else if _, err := cl.rolePolicy(mine[0]); err != nil {
			t.Errorf("%s: role %s has no policy: %v", cr.Name, mine[0], err)
		}
	}
	out, err := cl.admin.ListPolicies(context.Background(), &iam.ListPoliciesInput{Scope: iamtypes.PolicyScopeTypeLocal, PathPrefix: aws.String("/leash/" + crashSTSNS + "/")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range out.Policies {
		if !wantPolicies[aws.ToString(p.Arn)] {
			t.Errorf("managed policy %s belongs to no request over the inline limit", aws.ToString(p.Arn))
		}
	}
	for uid, names := range owned {
		t.Errorf("roles %v (request UID %q) belong to no request", names, uid)
	}
	if t.Failed() {
		t.FailNow()
	}
}

// crashRoleCreations runs the creation rounds: round n creates ROUND-n and
// kills the operator at the nth call about its role; a restart has to
// finish it. The first round whose request is Ready before its nth call has
// passed the creation's last call; minKills is the fewest calls a creation
// of these entries makes.
func crashRoleCreations(t *testing.T, cl *cluster, tap *iamTap, runs *operatorRuns, newRequest func(name, entries string) *leashv1.CredentialsRequest,
	prefix func(string) string, round, entries string, minKills int) {
	t.Helper()
	kills := crashRounds(t, cl, tap, runs, crashRound{ns: crashSTSNS, prefix: round,
		create: func(name string) { cl.create(t, newRequest(name, entries)) },
		counts: func(name string) func(tapCall) bool { return callsAbout(prefix(name)) },
		check:  func() { checkRoles(t, cl) }})
	t.Logf("%s: creation kill points, in order: %s", round, strings.Join(kills, " | "))
	if len(kills) < minKills {
		t.Errorf("a role's creation was killed at only %d calls (%v); it makes at least CreateRole, PutRolePolicy and the proof", len(kills), kills)
	}
}
