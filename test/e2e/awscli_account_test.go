package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"leash.dev/leash/localaws"
)

// TestAWSCLIOtherAccount is `leash local --other-account` driven by the AWS
// CLI: account B's administrator makes a role trusting the main account,
// whose administrator assumes it; the session acts in B and reads B's
// roles. Across accounts both the role's trust policy and the caller's own
// policies must allow sts:AssumeRole
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic-cross-account.html).
func TestAWSCLIOtherAccount(t *testing.T) {
	const accountB = "444455556666"
	p := startLocal(t, t.TempDir(), "--other-account", accountB)
	cli := newAWSCLI(t, p.url)
	admin := as{credentialsFile: p.credentialsPath()}
	adminB := as{credentialsFile: filepath.Join(p.dir, localaws.AccountsDir, accountB, localaws.AdminCredentialsFile)}

	cli.ok(t, adminB, nil, "iam", "create-role", "--role-name", "leash-check",
		"--assume-role-policy-document", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+account+`:root"},"Action":"sts:AssumeRole"}]}`)
	cli.ok(t, adminB, nil, "iam", "put-role-policy", "--role-name", "leash-check", "--policy-name", "read",
		"--policy-document", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetRole","Resource":"*"}]}`)
	cli.ok(t, adminB, nil, "iam", "create-role", "--role-name", "untrusting",
		"--assume-role-policy-document", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::`+accountB+`:root"},"Action":"sts:AssumeRole"}]}`)

	var assumed struct{ Credentials accessKey }
	cli.ok(t, admin, &assumed, "sts", "assume-role", "--role-arn", "arn:aws:iam::"+accountB+":role/leash-check", "--role-session-name", "leash-check")
	empty := filepath.Join(t.TempDir(), "credentials")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := assumed.Credentials
	session := as{credentialsFile: empty, env: []string{
		"AWS_ACCESS_KEY_ID=" + c.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + c.SecretAccessKey, "AWS_SESSION_TOKEN=" + c.SessionToken}}
	var id callerIdentity
	cli.ok(t, session, &id, "sts", "get-caller-identity")
	if want := "arn:aws:sts::" + accountB + ":assumed-role/leash-check/leash-check"; id.Arn != want || id.Account != accountB {
		t.Errorf("get-caller-identity as the session: %+v; want %s in account %s", id, want, accountB)
	}
	var role struct{ Role struct{ Arn string } }
	cli.ok(t, session, &role, "iam", "get-role", "--role-name", "untrusting")
	if want := "arn:aws:iam::" + accountB + ":role/untrusting"; role.Role.Arn != want {
		t.Errorf("get-role as the session: %s; want B's role %s", role.Role.Arn, want)
	}
	cli.denied(t, admin, "sts", "assume-role", "--role-arn", "arn:aws:iam::"+accountB+":role/untrusting", "--role-session-name", "x1")
}
