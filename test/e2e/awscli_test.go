package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/credfile"
)

// awsCLI runs the real AWS CLI against one leash local, with a config and
// credentials of its own: nothing of the machine's ~/.aws, AWS_* variables
// or instance metadata reaches it.
type awsCLI struct {
	bin, url, configFile string
}

// newAWSCLI fails the test, rather than skipping it, when the CLI is
// missing: a skipped test here would look like a pass in CI.
func newAWSCLI(t *testing.T, url string) *awsCLI {
	t.Helper()
	bin, err := exec.LookPath("aws")
	if err != nil {
		t.Fatalf("the AWS CLI is not installed (%v): install it with `apt-get install awscli`, as .ci/run does, or from https://aws.amazon.com/cli/", err)
	}
	// Every profile the test writes needs its region here too.
	config := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(config, []byte("[default]\nregion = us-east-1\noutput = json\n\n[profile alice]\nregion = us-east-1\noutput = json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &awsCLI{bin: bin, url: url, configFile: config}
}

// as is who runs a command: a shared credentials file and, for temporary
// credentials, the key in the environment.
type as struct {
	credentialsFile string
	env             []string
}

// run runs `aws --endpoint-url URL args...` and returns its output and exit
// status.
func (a *awsCLI) run(t *testing.T, who as, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.bin, append([]string{"--endpoint-url", a.url}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env,
		"AWS_CONFIG_FILE="+a.configFile,
		"AWS_SHARED_CREDENTIALS_FILE="+who.credentialsFile,
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_PAGER=",
		"AWS_MAX_ATTEMPTS=1",
	)
	cmd.Env = append(cmd.Env, who.env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	code = exitStatus(t, cmd.Run(), "aws "+strings.Join(args, " "))
	return out.String(), errOut.String(), code
}

// ok runs a command that must succeed and decodes its JSON output into v
// (nil for commands that print nothing).
func (a *awsCLI) ok(t *testing.T, who as, v any, args ...string) {
	t.Helper()
	out, errOut, code := a.run(t, who, args...)
	if code != 0 {
		t.Fatalf("aws %s: exit status %d\n%s", strings.Join(args, " "), code, errOut)
	}
	if v == nil {
		return
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("aws %s: output is not the JSON expected (%v):\n%s", strings.Join(args, " "), err, out)
	}
}

// denied runs a command that must be refused with AccessDenied, and
// returns what the CLI printed on stderr.
func (a *awsCLI) denied(t *testing.T, who as, args ...string) string {
	t.Helper()
	_, errOut, code := a.run(t, who, args...)
	if code == 0 || !strings.Contains(errOut, "AccessDenied") {
		t.Errorf("aws %s: exit status %d, stderr %q; want a non-zero status and AccessDenied", strings.Join(args, " "), code, errOut)
	}
	return errOut
}

type accessKey struct {
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string
	SessionToken    string
	Status          string
}

type callerIdentity struct{ UserID, Account, Arn string }

// profile writes a shared credentials file holding key as profile name.
func profile(t *testing.T, name string, key accessKey) as {
	t.Helper()
	path := filepath.Join(t.TempDir(), "credentials")
	text := credfile.Render(credfile.Profile{Name: name, Settings: [][2]string{
		{"aws_access_key_id", key.AccessKeyID}, {"aws_secret_access_key", key.SecretAccessKey}}})
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return as{credentialsFile: path, env: []string{"AWS_PROFILE=" + name}}
}

// TestAWSCLI is the path a person takes with the AWS CLI: the administrator
// creates a user with a policy and a key, and the user's key can do what
// the policy allows and nothing else, including assuming a role that trusts
// it.
func TestAWSCLI(t *testing.T) {
	p := startLocal(t, t.TempDir())
	cli := newAWSCLI(t, p.url)
	admin := as{credentialsFile: p.credentialsPath()}
	userARN := "arn:aws:iam::" + account + ":user/alice"

	var created struct {
		User struct{ UserName, Arn string }
	}
	cli.ok(t, admin, &created, "iam", "create-user", "--user-name", "alice")
	if created.User.Arn != userARN {
		t.Fatalf("create-user: ARN %q, want %q", created.User.Arn, userARN)
	}
	cli.ok(t, admin, nil, "iam", "put-user-policy", "--user-name", "alice", "--policy-name", "self",
		"--policy-document", `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/${aws:username}"},
			{"Effect":"Allow","Action":"sts:GetCallerIdentity","Resource":"*"}]}`)
	var key struct{ AccessKey accessKey }
	cli.ok(t, admin, &key, "iam", "create-access-key", "--user-name", "alice")
	if !strings.HasPrefix(key.AccessKey.AccessKeyID, "AKIA") || key.AccessKey.SecretAccessKey == "" || key.AccessKey.Status != "Active" {
		t.Fatalf("create-access-key: %+v, want an active AKIA key with a secret", key.AccessKey)
	}
	alice := profile(t, "alice", key.AccessKey)

	t.Run("get-caller-identity shows the user", func(t *testing.T) {
		var id callerIdentity
		cli.ok(t, alice, &id, "sts", "get-caller-identity")
		if id.Arn != userARN || id.Account != account || !strings.HasPrefix(id.UserID, "AIDA") {
			t.Errorf("get-caller-identity: %+v, want %s in %s", id, userARN, account)
		}
	})
	t.Run("get-user on itself is allowed", func(t *testing.T) {
		for _, args := range [][]string{{"iam", "get-user"}, {"iam", "get-user", "--user-name", "alice"}} {
			var got struct{ User struct{ Arn string } }
			cli.ok(t, alice, &got, args...)
			if got.User.Arn != userARN {
				t.Errorf("aws %s: ARN %q, want %q", strings.Join(args, " "), got.User.Arn, userARN)
			}
		}
	})
	t.Run("list-users is denied", func(t *testing.T) {
		errOut := cli.denied(t, alice, "iam", "list-users")
		if want := "User: " + userARN + " is not authorized to perform: iam:ListUsers"; !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks AWS's message %q", errOut, want)
		}
	})
	t.Run("get-user on another user is denied", func(t *testing.T) {
		cli.denied(t, alice, "iam", "get-user", "--user-name", "admin")
	})
	t.Run("assume-role of a role that trusts the user", func(t *testing.T) {
		roleARN := "arn:aws:iam::" + account + ":role/deployer"
		cli.ok(t, admin, nil, "iam", "create-role", "--role-name", "deployer",
			"--assume-role-policy-document", `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":{"AWS":"`+userARN+`"},"Action":"sts:AssumeRole"}]}`)
		cli.ok(t, admin, nil, "iam", "put-user-policy", "--user-name", "alice", "--policy-name", "assume-deployer",
			"--policy-document", `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"`+roleARN+`"}]}`)

		var assumed struct {
			Credentials     accessKey
			AssumedRoleUser struct{ AssumedRoleID, Arn string }
		}
		cli.ok(t, alice, &assumed, "sts", "assume-role", "--role-arn", roleARN, "--role-session-name", "ci")
		sessionARN := "arn:aws:sts::" + account + ":assumed-role/deployer/ci"
		c := assumed.Credentials
		if assumed.AssumedRoleUser.Arn != sessionARN || !strings.HasPrefix(c.AccessKeyID, "ASIA") || c.SecretAccessKey == "" || c.SessionToken == "" {
			t.Fatalf("assume-role: %+v, want temporary ASIA credentials for %s", assumed, sessionARN)
		}
		// The session's key is given as the environment's, the way
		// scripts pass assume-role's output on; an empty credentials file
		// leaves no profile to fall back to.
		empty := filepath.Join(t.TempDir(), "credentials")
		if err := os.WriteFile(empty, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		session := as{credentialsFile: empty, env: []string{
			"AWS_ACCESS_KEY_ID=" + c.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + c.SecretAccessKey, "AWS_SESSION_TOKEN=" + c.SessionToken}}
		var id callerIdentity
		cli.ok(t, session, &id, "sts", "get-caller-identity")
		if id.Arn != sessionARN || id.Account != account || !strings.HasSuffix(id.UserID, ":ci") {
			t.Errorf("get-caller-identity as the session: %+v, want %s with user ID ROLEID:ci", id, sessionARN)
		}
		// The role has no permissions policy: its session may do nothing.
		cli.denied(t, session, "iam", "list-users")

		// A role's trust policy must allow the caller; an identity policy
		// that allows sts:AssumeRole is not enough on its own.
		cli.ok(t, admin, nil, "iam", "create-role", "--role-name", "untrusting",
			"--assume-role-policy-document", `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`)
		cli.ok(t, admin, nil, "iam", "put-user-policy", "--user-name", "alice", "--policy-name", "assume-any",
			"--policy-document", `{"Version":"2012-10-17","Statement":[
				{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"*"}]}`)
		cli.denied(t, alice, "sts", "assume-role", "--role-arn", "arn:aws:iam::"+account+":role/untrusting", "--role-session-name", "ci")
	})
}
