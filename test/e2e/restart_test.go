package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// TestStateSurvivesKill writes users, policies, a role, keys and a role
// session through the SDK, deletes some of them, kills leash local with
// SIGKILL right after the last answer, and checks that a restart on the
// same folder has every change: an answer means the change is on disk.
func TestStateSurvivesKill(t *testing.T) {
	dir := t.TempDir()
	first := startLocal(t, dir)
	credsBefore, err := os.ReadFile(first.credentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	w := write(t, first)
	if code := first.stop(t, syscall.SIGKILL); code != -1 {
		t.Fatalf("exit status %d after SIGKILL, want death by signal", code)
	}

	second := startLocal(t, dir)
	credsAfter, err := os.ReadFile(second.credentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	if string(credsAfter) != string(credsBefore) {
		t.Errorf("the restart rewrote the admin credentials file")
	}
	w.check(t, second)
}

const managedPolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:ReceiveMessage","Resource":"*"}]}`

// written is what a test wrote before a restart, to look for after it.
type written struct {
	users      map[string]*userWritten
	managedARN string
	roleARN    string
	trust      string
	rolePolicy string
	session    *sts.AssumeRoleOutput
}

type userWritten struct {
	userID     string
	policies   map[string]string // name → document
	key        string
	secret     string
	deletedKey string
}

// write makes the changes TestStateSurvivesKill looks for after the kill.
func write(t *testing.T, p *process) *written {
	t.Helper()
	ctx := context.Background()
	admin := p.iam(p.adminKey(t))
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	w := &written{users: map[string]*userWritten{}}
	mp, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read-queues"), Path: aws.String("/team/"), PolicyDocument: aws.String(managedPolicy)})
	must("CreatePolicy", err)
	w.managedARN = *mp.Policy.Arn

	for i := range 5 {
		name := fmt.Sprintf("user-%d", i)
		u, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name), Path: aws.String("/team/")})
		must("CreateUser "+name, err)
		uw := &userWritten{userID: *u.User.UserId, policies: map[string]string{
			"self":   `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::` + account + `:user/team/` + name + `"}]}`,
			"queues": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-east-1:` + account + `:` + name + `-*"}]}`,
		}}
		w.users[name] = uw
		for pn, doc := range uw.policies {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(pn), PolicyDocument: aws.String(doc)})
			must("PutUserPolicy "+name+" "+pn, err)
		}
		_, err = admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String(name), PolicyArn: aws.String(w.managedARN)})
		must("AttachUserPolicy "+name, err)
		// A key made and then deleted must stay deleted.
		gone, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
		must("CreateAccessKey "+name, err)
		_, err = admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String(name), AccessKeyId: gone.AccessKey.AccessKeyId})
		must("DeleteAccessKey "+name, err)
		uw.deletedKey = *gone.AccessKey.AccessKeyId
		k, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
		must("CreateAccessKey "+name, err)
		uw.key, uw.secret = *k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey
	}
	// A user made and then deleted must stay deleted.
	_, err = admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("temporary")})
	must("CreateUser temporary", err)
	_, err = admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("temporary")})
	must("DeleteUser temporary", err)

	// A role that user-0 may assume, and a session of it.
	u0 := w.users["user-0"]
	w.trust = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:user/team/user-0"},"Action":"sts:AssumeRole"}]}`
	w.rolePolicy = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:ListUsers","Resource":"*"}]}`
	r, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("deployer"), AssumeRolePolicyDocument: aws.String(w.trust)})
	must("CreateRole", err)
	w.roleARN = *r.Role.Arn
	_, err = admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("deployer"), PolicyName: aws.String("list"), PolicyDocument: aws.String(w.rolePolicy)})
	must("PutRolePolicy", err)
	_, err = admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("deployer"), PolicyArn: aws.String(w.managedARN)})
	must("AttachRolePolicy", err)
	u0.policies["assume"] = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole","Resource":"` + w.roleARN + `"}]}`
	_, err = admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("user-0"), PolicyName: aws.String("assume"), PolicyDocument: aws.String(u0.policies["assume"])})
	must("PutUserPolicy assume", err)
	w.session, err = p.sts(u0.key, u0.secret).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(w.roleARN), RoleSessionName: aws.String("before-kill")})
	must("AssumeRole", err)
	return w
}

// check looks for every change of w on p.
func (w *written) check(t *testing.T, p *process) {
	ctx := context.Background()
	admin := p.iam(p.adminKey(t))
	list, err := admin.ListUsers(ctx, &iam.ListUsersInput{})
	if err != nil {
		t.Fatalf("ListUsers with the admin credentials file after the restart: %v", err)
	}
	var names []string
	for _, u := range list.Users {
		names = append(names, *u.UserName)
	}
	slices.Sort(names)
	if want := []string{"admin", "user-0", "user-1", "user-2", "user-3", "user-4"}; !slices.Equal(names, want) {
		t.Errorf("ListUsers: %v, want %v", names, want)
	}
	for name, uw := range w.users {
		t.Run(name, func(t *testing.T) {
			u, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(name)})
			if err != nil {
				t.Fatalf("GetUser: %v", err)
			}
			if *u.User.UserId != uw.userID || *u.User.Path != "/team/" {
				t.Errorf("GetUser: ID %s path %s, want %s /team/", *u.User.UserId, *u.User.Path, uw.userID)
			}
			for pn, doc := range uw.policies {
				got, err := admin.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String(pn)})
				if err != nil {
					t.Fatalf("GetUserPolicy %s: %v", pn, err)
				}
				if text := unescape(t, *got.PolicyDocument); text != doc {
					t.Errorf("GetUserPolicy %s: %s, want %s", pn, text, doc)
				}
			}
			attached, err := admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String(name)})
			if err != nil || len(attached.AttachedPolicies) != 1 || *attached.AttachedPolicies[0].PolicyArn != w.managedARN {
				t.Errorf("ListAttachedUserPolicies: %v, %v; want only %s", attached, err, w.managedARN)
			}
			keys, err := admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(name)})
			if err != nil {
				t.Fatalf("ListAccessKeys: %v", err)
			}
			if len(keys.AccessKeyMetadata) != 1 || *keys.AccessKeyMetadata[0].AccessKeyId != uw.key {
				t.Errorf("ListAccessKeys: %d keys, want only %s (and not the deleted %s)", len(keys.AccessKeyMetadata), uw.key, uw.deletedKey)
			}
			// The key signs, and its policies still apply.
			if _, err := p.iam(uw.key, uw.secret).GetUser(ctx, &iam.GetUserInput{}); err != nil {
				t.Errorf("GetUser with the user's own key: %v", err)
			}
			if _, err := p.iam(uw.key, uw.secret).ListUsers(ctx, &iam.ListUsersInput{}); apiCode(err) != "AccessDenied" {
				t.Errorf("ListUsers with the user's own key: %v, want AccessDenied", err)
			}
		})
	}
	t.Run("the deleted user", func(t *testing.T) {
		if _, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("temporary")}); apiCode(err) != "NoSuchEntity" {
			t.Errorf("GetUser temporary: %v, want NoSuchEntity", err)
		}
	})
	t.Run("the managed policy", func(t *testing.T) {
		mp, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(w.managedARN)})
		if err != nil {
			t.Fatalf("GetPolicy: %v", err)
		}
		if *mp.Policy.AttachmentCount != 6 {
			t.Errorf("GetPolicy: attached %d times, want 6 (five users and the role)", *mp.Policy.AttachmentCount)
		}
		v, err := admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(w.managedARN), VersionId: mp.Policy.DefaultVersionId})
		if err != nil {
			t.Fatalf("GetPolicyVersion: %v", err)
		}
		if text := unescape(t, *v.PolicyVersion.Document); text != managedPolicy {
			t.Errorf("GetPolicyVersion: %s, want %s", text, managedPolicy)
		}
	})
	t.Run("the role and its session", func(t *testing.T) {
		r, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("deployer")})
		if err != nil {
			t.Fatalf("GetRole: %v", err)
		}
		if text := unescape(t, *r.Role.AssumeRolePolicyDocument); text != w.trust {
			t.Errorf("GetRole: trust policy %s, want %s", text, w.trust)
		}
		rp, err := admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("deployer"), PolicyName: aws.String("list")})
		if err != nil || unescape(t, *rp.PolicyDocument) != w.rolePolicy {
			t.Errorf("GetRolePolicy: %v, %v; want %s", rp, err, w.rolePolicy)
		}
		attached, err := admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("deployer")})
		if err != nil || len(attached.AttachedPolicies) != 1 || *attached.AttachedPolicies[0].PolicyArn != w.managedARN {
			t.Errorf("ListAttachedRolePolicies: %v, %v; want only %s", attached, err, w.managedARN)
		}
		// Temporary credentials stay valid until they expire, restart
		// or not.
		c := w.session.Credentials
		creds := credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken)
		id, err := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(p.url), Credentials: creds}).
			GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		if err != nil || *id.Arn != *w.session.AssumedRoleUser.Arn {
			t.Fatalf("GetCallerIdentity with the session: %v, %v; want %s", id, err, *w.session.AssumedRoleUser.Arn)
		}
		session := iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(p.url), Credentials: creds})
		if _, err := session.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
			t.Errorf("ListUsers with the session, which the role's policy allows: %v", err)
		}
	})
}

// unescape decodes a policy document as IAM returns it, URL-encoded.
func unescape(t *testing.T, doc string) string {
	t.Helper()
	text, err := url.QueryUnescape(doc)
	if err != nil {
		t.Fatalf("policy document %q: %v", doc, err)
	}
	return text
}
