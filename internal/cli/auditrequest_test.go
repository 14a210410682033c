package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/usage"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// usageWorld is leash local with the role-auditor request of
// testdata/usage applied: the controller's key, and the administrator.
type usageWorld struct {
	l          *localtest.Endpoint
	data, dir  string
	admin      *iam.Client
	controller *iam.Client
	secret     string
}

func startUsageWorld(t *testing.T, dir string) *usageWorld {
	t.Helper()
	ctx := context.Background()
	w := &usageWorld{data: filepath.Join(t.TempDir(), "data"), dir: dir}
	w.l = localtest.Start(t, localaws.Config{DataDir: w.data, AccountID: "111122223333"})
	w.admin = w.l.IAM(nil)
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]}`
	for _, role := range []string{"app-web", "app-db", "billing"} {
		if _, err := w.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(role), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	w.controller = w.apply(t)
	return w
}

// apply runs leash apply on the folder and returns an IAM client with the
// key it wrote into the request's Secret.
func (w *usageWorld) apply(t *testing.T) *iam.Client {
	t.Helper()
	out := t.TempDir()
	if stdout, stderr, code := run(t, "apply", "-f", w.dir, "--endpoint", w.l.URL, "--data", w.data, "--out", out); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, stdout, stderr)
	}
	raw, err := os.ReadFile(filepath.Join(out, "platform", "role-auditor-credentials.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := yaml.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	w.secret = string(s.Data["aws_secret_access_key"])
	return w.l.IAM(credentials.NewStaticCredentialsProvider(string(s.Data["aws_access_key_id"]), w.secret, ""))
}

// work is the controller's job: the calls it makes, each of which its
// request allows.
func work(t *testing.T, c *iam.Client) {
	t.Helper()
	ctx := context.Background()
	for range 2 {
		if _, err := c.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app-web")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("app-web")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String("app-web"), Tags: []iamtypes.Tag{{Key: aws.String("audited"), Value: aws.String("yes")}}}); err != nil {
		t.Fatal(err)
	}
}

// TestAuditRequestOverLeashLocal is the loop on leash local: a controller
// driven through the AWS SDK calls a subset of its request's actions, and
// calls it was never granted; another principal calls the rest. The report
// names exactly what the controller used and never used; the proposal
// allows every observed call and refuses every unused action (asked of
// leash simulate with the proof file, and of leash local after the
// proposal is applied), grants nothing the request did not (leash diff),
// and leash check finds nothing in it the request did not have.
func TestAuditRequestOverLeashLocal(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("testdata", "usage")
	w := startUsageWorld(t, dir)
	work(t, w.controller)
	// Refused calls prove nothing and must widen nothing: one never
	// granted, one the Deny statement refuses, one on a role outside the
	// statement's resource.
	if _, err := w.controller.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("mallory")}); err == nil {
		t.Fatal("CreateUser by the controller was allowed")
	}
	if _, err := w.controller.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("app-db")}); err == nil {
		t.Fatal("DeleteRole by the controller was allowed")
	}
	if _, err := w.controller.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("billing")}); err == nil {
		t.Fatal("GetRole of billing by the controller was allowed")
	}
	// Another principal's calls are not the controller's use.
	if _, err := w.admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.admin.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String("app-web")}); err != nil {
		t.Fatal(err)
	}

	audit := []string{"audit", "--request", "platform/role-auditor", "-f", dir, "--data", w.data}
	stdout, stderr, code := run(t, append(audit, "--output", "json")...)
	if code != 0 {
		t.Fatalf("audit --request: exit %d\n%s%s", code, stdout, stderr)
	}
	var r usage.Report
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if !strings.HasPrefix(r.Principal, "arn:aws:iam::111122223333:user/") {
		t.Errorf("principal %q, want the minted user's ARN", r.Principal)
	}
	if got, want := r.Unused(), []string{"iam:ListAccessKeys", "iam:DeleteUser", "iam:ListRoleTags", "iam:UntagRole"}; !slices.Equal(got, want) {
		t.Errorf("unused %v, want %v", got, want)
	}
	if got, want := r.UsedActions(), []string{"iam:GetRole", "iam:GetUser", "iam:ListRolePolicies", "iam:ListUsers", "iam:TagRole"}; !slices.Equal(got, want) {
		t.Errorf("used %v, want %v", got, want)
	}
	listUsers := r.Statements[0].Actions[0]
	if listUsers.Written != "iam:ListUsers" || len(listUsers.Used) != 1 || listUsers.Used[0].Calls != 2 || listUsers.Used[0].LastUsed.IsZero() {
		t.Errorf("iam:ListUsers: %+v, want 2 calls with a last use", listUsers)
	}
	getStar := r.Statements[1].Actions[0]
	if getStar.Written != "iam:Get*" || len(getStar.Used) != 1 || getStar.Used[0].Action != "iam:GetRole" ||
		!slices.Equal(getStar.Used[0].Resources, []string{"arn:aws:iam::111122223333:role/app-web"}) || getStar.Matches < 10 {
		t.Errorf("iam:Get*: %+v, want GetRole on app-web only (billing's was refused)", getStar)
	}
	for _, u := range r.Outside {
		t.Errorf("a use outside the request: %+v", u)
	}

	t.Run("through LookupEvents the report is the same", func(t *testing.T) {
		out, stderr, code := run(t, "audit", "--request", "platform/role-auditor", "-f", dir, "--endpoint", w.l.URL,
			"--credentials-file", w.l.AdminCredentialsPath(), "--output", "json")
		var viaLookup usage.Report
		if code != 0 || json.Unmarshal([]byte(out), &viaLookup) != nil {
			t.Fatalf("exit %d\n%s%s", code, out, stderr)
		}
		if !slices.Equal(viaLookup.UsedActions(), r.UsedActions()) || !slices.Equal(viaLookup.Unused(), r.Unused()) {
			t.Errorf("through LookupEvents: used %v unused %v; from the log: used %v unused %v", viaLookup.UsedActions(), viaLookup.Unused(), r.UsedActions(), r.Unused())
		}
	})

	text, stderr, code := run(t, audit...)
	for _, want := range []string{"platform/role-auditor", "iam:Get*", "1 of ", "5 of 9 actions allowed were used; never used: iam:ListAccessKeys, iam:DeleteUser, iam:ListRoleTags, iam:UntagRole"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table does not say %q (exit %d):\n%s%s", want, code, text, stderr)
		}
	}

	proofFile := filepath.Join(t.TempDir(), "proof.jsonl")
	manifest, stderr, code := run(t, append(audit, "--propose", "--proof", proofFile)...)
	if code != 0 {
		t.Fatalf("--propose: exit %d\n%s%s", code, manifest, stderr)
	}
	if !strings.Contains(stderr, "5 observed calls decided as the request decides them (5 allowed)") {
		t.Errorf("the proposal's proof: %s", stderr)
	}
	var proposed leashv1.CredentialsRequest
	if err := yaml.UnmarshalStrict([]byte(manifest), &proposed); err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	var spec leashv1.AWSProviderSpec
	if err := json.Unmarshal(proposed.Spec.ProviderSpec.Raw, &spec); err != nil {
		t.Fatal(err)
	}
	want := []leashv1.StatementEntry{
		{Effect: "Allow", Action: []string{"iam:ListUsers"}, Resource: "*"},
		{Effect: "Allow", Action: []string{"iam:GetUser"}, Resource: "arn:aws:iam::111122223333:user/alice"},
		{Effect: "Allow", Action: []string{"iam:GetRole", "iam:ListRolePolicies"}, Resource: "arn:aws:iam::111122223333:role/app-web"},
		{Effect: "Allow", Action: []string{"iam:TagRole"}, Resource: "arn:aws:iam::111122223333:role/app-web",
			PolicyCondition: leashv1.IAMPolicyCondition{"StringEquals": {"aws:RequestedRegion": "us-east-1"}}},
		{Effect: "Deny", Action: []string{"iam:DeleteRole"}, Resource: "*"},
	}
	if got, _ := json.Marshal(spec.StatementEntries); string(got) != string(must(json.Marshal(want))) {
		t.Errorf("proposed statementEntries\n%s\nwant\n%s", got, must(json.Marshal(want)))
	}

	t.Run("leash simulate answers the proof: every observed call allowed, every unused action refused", func(t *testing.T) {
		out, stderr, code := run(t, "simulate", "--request", proofFile, "--output", "json")
		if code != 1 {
			t.Fatalf("simulate: exit %d, want 1 (the unused actions are denied)\n%s", code, stderr)
		}
		var answers []struct{ Action, Resource, Decision string }
		if err := json.Unmarshal([]byte(out), &answers); err != nil {
			t.Fatal(err)
		}
		cases, _ := os.ReadFile(proofFile)
		if len(answers) != strings.Count(string(cases), "\n") || len(answers) < 5 {
			t.Fatalf("%d answers for the proof's requests", len(answers))
		}
		for i, a := range answers {
			if observed := i < 5; observed != (a.Decision == "Allowed") {
				t.Errorf("request %d %s on %s: %s", i, a.Action, a.Resource, a.Decision)
			}
		}
	})

	t.Run("leash diff: the proposal takes away the unused actions and grants nothing new", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "proposed.yaml")
		if err := os.WriteFile(p, []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		// The principal's account is the resources': an identity policy
		// grants nothing in another account alone.
		if out, stderr, code := run(t, "diff", "--principal", r.Principal, filepath.Join(dir, "role-auditor.yaml"), p); code != 0 {
			t.Errorf("diff REQUEST PROPOSAL: exit %d, want 0 (nothing new)\n%s%s", code, out, stderr)
		}
		out, _, code := run(t, "diff", "--principal", r.Principal, p, filepath.Join(dir, "role-auditor.yaml"))
		for _, a := range []string{"iam:ListAccessKeys", "iam:DeleteUser", "iam:ListRoleTags", "iam:UntagRole"} {
			if code != 1 || !strings.Contains(out, a) {
				t.Errorf("diff PROPOSAL REQUEST (exit %d) does not list %s as taken away:\n%s", code, a, out)
			}
		}
		findings := func(file string) map[string]bool {
			out, stderr, _ := run(t, "check", "--output", "json", file)
			var got struct{ Findings []struct{ ID string } }
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("check %s: %v\n%s%s", file, err, out, stderr)
			}
			ids := map[string]bool{}
			for _, f := range got.Findings {
				ids[f.ID] = true
			}
			return ids
		}
		before := findings(filepath.Join(dir, "role-auditor.yaml"))
		for id := range findings(p) {
			if !before[id] {
				t.Errorf("leash check finds %s in the proposal and not in the request", id)
			}
		}
	})

	t.Run("applied, the proposal lets the controller work and refuses what it never used", func(t *testing.T) {
		applied := t.TempDir()
		if err := os.WriteFile(filepath.Join(applied, "role-auditor.yaml"), []byte(manifest), 0o600); err != nil {
			t.Fatal(err)
		}
		w.dir = applied
		c := w.apply(t)
		work(t, c)
		if _, err := c.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("alice")}); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Errorf("ListAccessKeys under the proposal: %v, want AccessDenied", err)
		}
		if _, err := c.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String("app-web")}); err == nil || !strings.Contains(err.Error(), "AccessDenied") {
			t.Errorf("ListRoleTags under the proposal: %v, want AccessDenied", err)
		}
	})
	if strings.Contains(text+manifest+stderr, w.secret) {
		t.Error("the output holds the controller's secret key")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
