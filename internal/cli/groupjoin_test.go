package cli

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
)

// groupJoinSnapshot has users that may add themselves to readers
// (s3:GetObject), admins (AdministratorAccess) or operators (assume
// role/ops, which may iam:CreateUser).
const groupJoinSnapshot = "../whocan/testdata/groupjoin.json"

// Joining a group gives the group's permissions, as AWS grants them: a user
// that may join readers only does not reach iam:CreateUser, nor does one
// that joins admins under a boundary allowing s3 only.
func TestWhoCanEscalationThroughGroups(t *testing.T) {
	out, stderr, code := run(t, "who-can", "iam:CreateUser", "--account", groupJoinSnapshot, "--escalation", "--output", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Principals []struct {
			ARN  string
			Path []struct{ Action, ToGroup string }
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var arns []string
	firstStep := map[string]string{}
	for _, p := range got.Principals {
		arns = append(arns, strings.TrimPrefix(p.ARN, "arn:aws:iam::111122223333:"))
		if len(p.Path) > 0 {
			firstStep[p.ARN] = p.Path[0].Action + " " + p.Path[0].ToGroup
		}
	}
	sort.Strings(arns)
	want := "role/ops user/ann user/group-writer user/joiner user/ops-joiner"
	if strings.Join(arns, " ") != want {
		t.Errorf("who-can iam:CreateUser --escalation lists %q, want %q (reader-joiner may join readers only; bounded-joiner's boundary allows s3 only)", strings.Join(arns, " "), want)
	}
	if s := firstStep["arn:aws:iam::111122223333:user/joiner"]; s != "iam:AddUserToGroup arn:aws:iam::111122223333:group/admins" {
		t.Errorf("joiner's first step %q, want joining group/admins", s)
	}
}

// leash check --account: the chain finding of a user that may join an
// administrators' group says the group.
func TestCheckAccountChainThroughGroup(t *testing.T) {
	out, stderr, code := run(t, "check", "--account", groupJoinSnapshot, "--user", "joiner", "--output", "json")
	if code != ExitNo {
		t.Fatalf("exit %d, want %d (critical chain)\n%s%s", code, ExitNo, out, stderr)
	}
	var got struct {
		Findings []struct{ ID, Severity, Message string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	var chain []string
	for _, f := range got.Findings {
		if f.ID == "LEASH-ESC-CHAIN" {
			chain = append(chain, f.Severity+" "+f.Message)
		}
	}
	if len(chain) != 1 || !strings.HasPrefix(chain[0], "critical reaches any permission in 2 steps through other principals or by joining group/admins: "+
		"user/joiner may iam:AddUserToGroup itself into group/admins") {
		t.Errorf("chain findings %q, want one critical finding through group/admins", chain)
	}
	out, stderr, code = run(t, "check", "--account", groupJoinSnapshot, "--user", "reader-joiner", "--output", "json")
	if code == ExitBadInput || strings.Contains(out, "LEASH-ESC-CHAIN") {
		t.Errorf("reader-joiner, who may join readers only: exit %d, chain findings:\n%s%s", code, out, stderr)
	}
}
