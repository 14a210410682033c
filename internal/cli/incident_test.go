package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/localaws/audit"
)

// TestIncidentRevokeInvestigateLift walks the runbook's incident end to end
// on leash local: a CI role trusted through GitHub's OIDC provider
// (examples/ci-role) and a user with a key leak; leash revoke ends every
// session issued before it and the user's keys; leash audit lists what the
// old sessions did and nothing else; the deny may be lifted only once every
// old session has expired, which the endpoint's clock is moved forward to
// reach instead of sleeping.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
func TestIncidentRevokeInvestigateLift(t *testing.T) {
	in := startIncident(t)
	ctx := context.Background()
	const role = "krops-ci-e2e"
	roleARN := "arn:aws:iam::" + incidentAccount + ":role/" + role
	aliceARN := "arn:aws:iam::" + incidentAccount + ":user/alice"
	in.ciRole(t, role, "")
	aliceKey := in.user(t, "alice", "sts:AssumeRole", "*")
	bobKey := in.user(t, "bob", "iam:ListUsers", "*")
	if _, err := in.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("target"),
		AssumeRolePolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + aliceARN + `"},"Action":"sts:AssumeRole"}]}`)}); err != nil {
		t.Fatal(err)
	}

	// Before: the leaked CI session lists users (allowed) and reads a
	// user (not in its policy: denied); alice's session token assumes the
	// target; bob works as usual.
	oldCI, err := in.ciSession(role, in.githubToken(t, mainRef))
	if err != nil {
		t.Fatal(err)
	}
	oldAlice := in.userSession(t, aliceKey)
	for what, got := range map[string][2]string{
		"the CI session lists users":     {in.listUsers(oldCI), "OK"},
		"the CI session reads a user":    {getUser(in, oldCI), "AccessDenied"},
		"alice's session assumes target": {in.assumeTarget(oldAlice), "OK"},
		"bob lists users":                {in.listUsers(bobKey), "OK"},
	} {
		if got[0] != got[1] {
			t.Fatalf("before revoking, %s: %s, want %s", what, got[0], got[1])
		}
	}

	roleRep := revokeReportOf(t, in, "--role", role)
	userRep := revokeReportOf(t, in, "--user", "alice")

	// After: every old session is refused, the key does not authenticate,
	// a session issued after the cutoff works.
	waitPast(roleRep.Cutoff)
	newCI, err := in.ciSession(role, in.githubToken(t, mainRef))
	if err != nil {
		t.Fatal(err)
	}
	for what, got := range map[string][2]string{
		"the old CI session lists users":     {in.listUsers(oldCI), "AccessDenied"},
		"alice's old session assumes target": {in.assumeTarget(oldAlice), "AccessDenied"},
		"alice's key":                        {in.assumeTarget(aliceKey), "InvalidClientTokenId"},
		"a new CI session lists users":       {in.listUsers(newCI), "OK"},
		"bob lists users":                    {in.listUsers(bobKey), "OK"},
	} {
		if got[0] != got[1] {
			t.Errorf("after revoking, %s: %s, want %s", what, got[0], got[1])
		}
	}

	// Investigate: the calls of the sessions issued before the cutoff,
	// allowed and denied, and nothing else: not the new session's, not
	// bob's, not the session's own creation.
	oldCIKey := accessKeyID(t, oldCI)
	calls := auditCalls(t, in, "--principal", roleARN, "--issued-before", roleRep.Cutoff.Format(time.RFC3339))
	want := []string{"ListUsers OK " + oldCIKey, "GetUser AccessDenied " + oldCIKey, "ListUsers AccessDenied " + oldCIKey}
	if !slices.Equal(calls, want) {
		t.Errorf("leash audit of the role's old sessions:\n got %q\nwant %q", calls, want)
	}
	oldAliceKey := accessKeyID(t, oldAlice)
	calls = auditCalls(t, in, "--principal", aliceARN, "--issued-before", userRep.Cutoff.Format(time.RFC3339))
	want = []string{"AssumeRole OK " + oldAliceKey, "AssumeRole AccessDenied " + oldAliceKey}
	if !slices.Equal(calls, want) {
		t.Errorf("leash audit of alice's old sessions:\n got %q\nwant %q", calls, want)
	}

	// Lift: refused before the lift time, which is the cutoff plus the
	// role's MaxSessionDuration (4 h) or a user's 36 hours.
	if !roleRep.LiftAfter.Equal(roleRep.Cutoff.Add(4*time.Hour)) || !userRep.LiftAfter.Equal(userRep.Cutoff.Add(36*time.Hour)) {
		t.Fatalf("lift times: role %v (cutoff %v), user %v (cutoff %v)", roleRep.LiftAfter, roleRep.Cutoff, userRep.LiftAfter, userRep.Cutoff)
	}
	for _, tt := range []struct {
		at          time.Time
		role, alice int
	}{
		{time.Now(), 1, 1},
		{roleRep.LiftAfter.Add(-time.Minute), 1, 1},
		{roleRep.LiftAfter.Add(time.Minute), 0, 1},
		{userRep.LiftAfter.Add(time.Minute), 0, 0},
	} {
		if !tt.at.Before(time.Now().Add(time.Second)) {
			in.restartAt(t, tt.at)
		}
		_, stderr, code := in.revoke(t, "--role", role, "--lift", "--dry-run")
		if code != tt.role {
			t.Errorf("at %v, --lift --role: exit %d, want %d\n%s", tt.at, code, tt.role, stderr)
		}
		_, stderr, code = in.revoke(t, "--user", "alice", "--lift", "--dry-run")
		if code != tt.alice {
			t.Errorf("at %v, --lift --user: exit %d, want %d\n%s", tt.at, code, tt.alice, stderr)
		}
	}
	for _, args := range [][]string{{"--role", role, "--lift"}, {"--user", "alice", "--lift"}} {
		if out, stderr, code := in.revoke(t, args...); code != 0 || !strings.Contains(out, "Lifted") {
			t.Errorf("%v after the lift time: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	// Lifted: the old sessions have expired by then and stay refused.
	if got := in.listUsers(oldCI); got != "ExpiredToken" {
		t.Errorf("the old CI session after the lift: %s, want ExpiredToken", got)
	}
}

func getUser(in *incident, creds aws.CredentialsProvider) string {
	_, err := in.iam(creds).GetUser(context.Background(), &iam.GetUserInput{UserName: aws.String("bob")})
	return iamclient.ResultCode(err)
}

// revokeReportOf runs leash revoke with --output json and reads its report.
func revokeReportOf(t *testing.T, in *incident, args ...string) revoke.Report {
	t.Helper()
	out, stderr, code := in.revoke(t, append(args, "--output", "json")...)
	if code != 0 {
		t.Fatalf("leash revoke %v: exit %d\n%s%s", args, code, out, stderr)
	}
	return revokeReport(t, out).Report
}

// auditCalls runs leash audit on the endpoint's data folder and returns
// each call as "EventName ErrorCode-or-OK AccessKeyId", in order.
func auditCalls(t *testing.T, in *incident, args ...string) []string {
	t.Helper()
	out, stderr, code := run(t, append([]string{"audit", "--data", in.cfg.DataDir, "--output", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("leash audit %v: exit %d\n%s", args, code, stderr)
	}
	var calls []string
	for line := range strings.Lines(out) {
		var e audit.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("leash audit --output json line %q: %v", line, err)
		}
		code := e.ErrorCode
		if code == "" {
			code = "OK"
		}
		calls = append(calls, e.EventName+" "+code+" "+e.UserIdentity.AccessKeyID)
	}
	return calls
}

func accessKeyID(t *testing.T, creds aws.CredentialsProvider) string {
	t.Helper()
	c, err := creds.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c.AccessKeyID
}
