package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// applyOtherAccount is account B, which the test's leash local holds beside
// the root credentials' account.
const applyOtherAccount = "111122223333"

const otherAccountRequestYAML = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: app
  namespace: apps
spec:
  secretRef:
    namespace: apps
    name: app-creds
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    stsIAMRoleARN: arn:aws:iam::111122223333:role/app-role
    statementEntries:
    - effect: Allow
      action: [ec2:DescribeInstances, ec2:TerminateInstances]
      resource: "*"
`

// TestApplyRoleOfAnotherAccount: leash apply judges a role of another
// account through that account's --account-check-role, not by the root
// account's role of the same name; without one it says the role is
// unchecked (report, the default) or refuses it and writes nothing.
func TestApplyRoleOfAnotherAccount(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(otherAccountRequestYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	local, err := localaws.StartLoopback(localaws.Config{DataDir: data, OtherAccounts: []string{applyOtherAccount}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = local.Stop() })
	client := func(path string) *iam.Client {
		key, err := iamclient.KeyFromFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(local.URL), Credentials: key.Provider()})
	}
	a, b := client(local.AdminCredentialsPath()), client(local.AccountAdminCredentialsPath(applyOtherAccount))
	role := func(c *iam.Client, name, trusted, actions string) {
		t.Helper()
		trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + trusted + `:root"},"Action":"sts:AssumeRole"}]}`
		if _, err := c.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)}); err != nil {
			t.Fatal(err)
		}
		doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":` + actions + `,"Resource":"*"}]}`
		if _, err := c.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatal(err)
		}
	}
	role(a, "app-role", local.AccountID(), `"ec2:*"`)                     // the root account's same-named role
	role(b, "app-role", applyOtherAccount, `"ec2:DescribeInstances"`)     // the role the request names
	role(b, "leash-check", local.AccountID(), `["iam:Get*","iam:List*"]`) // B's check role, trusting A
	checkRole := "arn:aws:iam::" + applyOtherAccount + ":role/leash-check"
	secretFile := func(out string) string { return filepath.Join(out, "apps", "app-creds.yaml") }
	apply := func(out string, extra ...string) (string, int) {
		args := append([]string{"apply", "-f", dir, "--endpoint", local.URL, "--data", data, "--out", out, "--mode", "Manual"}, extra...)
		stdout, stderr, code := run(t, args...)
		return stdout + stderr, code
	}

	t.Run("with --account-check-role the role is judged in its account", func(t *testing.T) {
		out := t.TempDir()
		text, code := apply(out, "--account-check-role", applyOtherAccount+"="+checkRole)
		if code != 1 || !strings.Contains(text, "RoleLacksPermissions") || !strings.Contains(text, "ec2:TerminateInstances") {
			t.Fatalf("exit %d; want 1 with RoleLacksPermissions for ec2:TerminateInstances (B's role), not Ready by A's role\n%s", code, text)
		}
	})
	t.Run("without a check role the role is reported unchecked and its Secret written", func(t *testing.T) {
		out := t.TempDir()
		text, code := apply(out)
		for _, s := range []string{"Ready (RoleUnchecked)", "not checked: role arn:aws:iam::111122223333:role/app-role is in account 111122223333",
			"not that the role exists, carries the requested permissions or trusts the cluster", "--account-check-role 111122223333="} {
			if !strings.Contains(text, s) {
				t.Errorf("output does not say %q", s)
			}
		}
		if code != 0 || strings.Contains(text, "RoleLacksPermissions") {
			t.Errorf("exit %d; want 0 and no verdict on the permissions\n%s", code, text)
		}
		if _, err := os.Stat(secretFile(out)); err != nil {
			t.Errorf("Secret: %v; want it written", err)
		}
	})
	t.Run("without a check role and --unchecked-accounts refuse nothing is written", func(t *testing.T) {
		out := t.TempDir()
		text, code := apply(out, "--unchecked-accounts", "refuse")
		if code != 1 || !strings.Contains(text, "RoleUnchecked") || !strings.Contains(text, "no Secret was written") {
			t.Fatalf("exit %d; want 1 with RoleUnchecked\n%s", code, text)
		}
		if _, err := os.Stat(secretFile(out)); !os.IsNotExist(err) {
			t.Errorf("Secret: %v; want none", err)
		}
	})
	t.Run("a role ARN with a malformed account ID is refused naming the field, and nothing is written", func(t *testing.T) {
		bad := t.TempDir()
		yaml := strings.Replace(otherAccountRequestYAML, "arn:aws:iam::111122223333:role/app-role", "arn:aws:iam::12345:role/app-role", 1)
		if err := os.WriteFile(filepath.Join(bad, "app.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		stdout, stderr, code := run(t, "apply", "-f", bad, "--endpoint", local.URL, "--data", data, "--out", out, "--mode", "Manual")
		text := stdout + stderr
		if code != 1 || !strings.Contains(text, "spec.providerSpec.stsIAMRoleARN") || !strings.Contains(text, "an AWS account ID is 12 digits") || !strings.Contains(text, "InvalidRequest") {
			t.Fatalf("exit %d; want 1 (not ready) with InvalidRequest naming spec.providerSpec.stsIAMRoleARN and the account ID's form\n%s", code, text)
		}
		if _, err := os.Stat(secretFile(out)); !os.IsNotExist(err) {
			t.Errorf("Secret: %v; want none", err)
		}
	})
	for _, tt := range []struct{ name, flag, value, says string }{
		{"a check role value without an account is a flag error", "--account-check-role", checkRole, "give ACCOUNT=ROLE_ARN"},
		{"a check role of another account than the one it checks is a flag error", "--account-check-role", "303373033373=" + checkRole, "the check role is in account 111122223333, not 303373033373"},
		{"an unknown --unchecked-accounts is a flag error", "--unchecked-accounts", "ignore", "use report or refuse"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			text, code := apply(out, tt.flag, tt.value)
			if code != 2 || !strings.Contains(text, tt.flag) || !strings.Contains(text, tt.says) {
				t.Fatalf("exit %d; want 2 naming %s and saying %q\n%s", code, tt.flag, tt.says, text)
			}
			if _, err := os.Stat(secretFile(out)); !os.IsNotExist(err) {
				t.Errorf("Secret: %v; want none", err)
			}
		})
	}
}
