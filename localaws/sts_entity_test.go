package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
)

// invalidToken is AWS's message for a credential it does not honour.
const invalidToken = "The security token included in the request is invalid."

// deleteRole deletes a role and its inline policy "p".
func (e *stsEnv) deleteRole(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.admin.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("p")}); err != nil {
		t.Fatalf("DeleteRolePolicy %s: %v", name, err)
	}
	if _, err := e.admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)}); err != nil {
		t.Fatalf("DeleteRole %s: %v", name, err)
	}
}

// deleteUser deletes a user, its keys and its inline policy "p" (if any).
func (e *stsEnv) deleteUser(t *testing.T, name string) {
	t.Helper()
	ctx := context.Background()
	keys, err := e.admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatalf("ListAccessKeys %s: %v", name, err)
	}
	for _, k := range keys.AccessKeyMetadata {
		if _, err := e.admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String(name), AccessKeyId: k.AccessKeyId}); err != nil {
			t.Fatalf("DeleteAccessKey %s: %v", name, err)
		}
	}
	_, _ = e.admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p")})
	if _, err := e.admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatalf("DeleteUser %s: %v", name, err)
	}
}

func (e *stsEnv) assume(t *testing.T, as aws.CredentialsProvider, roleARN string) aws.CredentialsProvider {
	t.Helper()
	out, err := e.stsAs(as).AssumeRole(context.Background(), &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("s1")})
	if err != nil {
		t.Fatalf("AssumeRole %s: %v", roleARN, err)
	}
	return session(out.Credentials)
}

func (e *stsEnv) sessionToken(t *testing.T, as aws.CredentialsProvider) aws.CredentialsProvider {
	t.Helper()
	out, err := e.stsAs(as).GetSessionToken(context.Background(), &sts.GetSessionTokenInput{})
	if err != nil {
		t.Fatalf("GetSessionToken: %v", err)
	}
	return session(out.Credentials)
}

// whoAmI is the caller's ARN, or the error GetCallerIdentity answers.
func (e *stsEnv) whoAmI(as aws.CredentialsProvider) (string, error) {
	out, err := e.stsAs(as).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		return "", err
	}
	return *out.Arn, nil
}

// TestSessionsAreBoundToTheEntityID pins that a session stands for the
// role or user it was issued to, by unique ID: once that entity is deleted
// or renamed away, a new entity of the same name does not revive the
// session, however much wider its permissions. AWS answers such a session
// with InvalidClientTokenId.
func TestSessionsAreBoundToTheEntityID(t *testing.T) {
	ctx := context.Background()
	listUsers := func(e *stsEnv, as aws.CredentialsProvider) error {
		_, err := e.iamAs(as).ListUsers(ctx, &iam.ListUsersInput{})
		return err
	}
	tests := []struct {
		name string
		// old issues the session under test; replace deletes (or renames)
		// its entity and makes a new one of the same name, returning a
		// fresh session of the new entity; probe is a call the new entity
		// may make.
		run func(t *testing.T, e *stsEnv) (old, fresh aws.CredentialsProvider, probe func(*stsEnv, aws.CredentialsProvider) error)
	}{
		{"a role deleted and recreated wider does not revive its old session", func(t *testing.T, e *stsEnv) (aws.CredentialsProvider, aws.CredentialsProvider, func(*stsEnv, aws.CredentialsProvider) error) {
			alice := e.user(t, "alice", allow("sts:AssumeRole"))
			arn := e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("iam:GetUser"), 0)
			old := e.assume(t, alice, arn)
			if err := listUsers(e, old); apiCode(err) != "AccessDenied" {
				t.Fatalf("ListUsers with the narrow role: %v, want AccessDenied", err)
			}
			e.deleteRole(t, "app")
			e.role(t, "app", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("*"), 0)
			return old, e.assume(t, alice, arn), listUsers
		}},
		{"a chained session ends with the role it was issued for", func(t *testing.T, e *stsEnv) (aws.CredentialsProvider, aws.CredentialsProvider, func(*stsEnv, aws.CredentialsProvider) error) {
			alice := e.user(t, "alice", allow("sts:AssumeRole"))
			first := e.role(t, "first", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("sts:AssumeRole"), 0)
			trustFirst := trustPrincipal("arn:aws:iam::" + stsAccount + ":role/first")
			second := e.role(t, "second", trustFirst, allow("iam:GetUser"), 0)
			firstSession := e.assume(t, alice, first)
			old := e.assume(t, firstSession, second)
			e.deleteRole(t, "second")
			e.role(t, "second", trustFirst, allow("*"), 0)
			return old, e.assume(t, firstSession, second), listUsers
		}},
		{"a user deleted and recreated does not revive its session token", func(t *testing.T, e *stsEnv) (aws.CredentialsProvider, aws.CredentialsProvider, func(*stsEnv, aws.CredentialsProvider) error) {
			bob := e.user(t, "bob", allow("*"))
			old := e.sessionToken(t, bob)
			if _, err := e.whoAmI(old); err != nil {
				t.Fatalf("GetCallerIdentity with bob's session: %v", err)
			}
			e.deleteUser(t, "bob")
			return old, e.sessionToken(t, e.user(t, "bob", allow("*"))), nil
		}},
		{"a user renamed away, then a new user under the old name, does not revive its session token", func(t *testing.T, e *stsEnv) (aws.CredentialsProvider, aws.CredentialsProvider, func(*stsEnv, aws.CredentialsProvider) error) {
			carol := e.user(t, "carol", allow("*"))
			old := e.sessionToken(t, carol)
			if _, err := e.admin.UpdateUser(ctx, &iam.UpdateUserInput{UserName: aws.String("carol"), NewUserName: aws.String("carol-old")}); err != nil {
				t.Fatalf("UpdateUser: %v", err)
			}
			if _, err := e.whoAmI(old); apiCode(err) != "InvalidClientTokenId" {
				t.Errorf("session of a user renamed away: %v, want InvalidClientTokenId", err)
			}
			// The renamed user's long-term key follows it.
			if arn, err := e.whoAmI(carol); err != nil || arn != "arn:aws:iam::"+stsAccount+":user/carol-old" {
				t.Errorf("the renamed user's key: %s, %v; want it to work as carol-old", arn, err)
			}
			return old, e.sessionToken(t, e.user(t, "carol", allow("*"))), nil
		}},
		// docs/local.md: a session of a renamed user is refused for good;
		// renaming the user back to the name the session was issued under
		// does not revive it.
		{"a user renamed away and back does not revive its session token", func(t *testing.T, e *stsEnv) (aws.CredentialsProvider, aws.CredentialsProvider, func(*stsEnv, aws.CredentialsProvider) error) {
			alice := e.user(t, "alice", allow("*"))
			old := e.sessionToken(t, alice)
			if _, err := e.whoAmI(old); err != nil {
				t.Fatalf("GetCallerIdentity with alice's session: %v", err)
			}
			for _, names := range [][2]string{{"alice", "bob"}, {"bob", "alice"}} {
				if _, err := e.admin.UpdateUser(ctx, &iam.UpdateUserInput{UserName: aws.String(names[0]), NewUserName: aws.String(names[1])}); err != nil {
					t.Fatalf("UpdateUser %s to %s: %v", names[0], names[1], err)
				}
			}
			return old, e.sessionToken(t, alice), nil
		}},
		{"a key of a deleted user does not come back through a new user of the same name", func(t *testing.T, e *stsEnv) (aws.CredentialsProvider, aws.CredentialsProvider, func(*stsEnv, aws.CredentialsProvider) error) {
			old := e.user(t, "dave", allow("*"))
			e.deleteUser(t, "dave")
			return old, e.user(t, "dave", allow("*")), listUsers
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startSTS(t, localaws.Config{})
			old, fresh, probe := tt.run(t, e)
			_, err := e.whoAmI(old)
			wantError(t, "GetCallerIdentity with the old credentials", err, "InvalidClientTokenId", invalidToken)
			if probe != nil {
				wantError(t, "a call the new entity may make, with the old credentials", probe(e, old), "InvalidClientTokenId", invalidToken)
				if err := probe(e, fresh); err != nil {
					t.Errorf("the same call with a fresh session of the new entity: %v", err)
				}
			}
			if _, err := e.whoAmI(fresh); err != nil {
				t.Errorf("GetCallerIdentity with a fresh session of the new entity: %v", err)
			}
		})
	}
}

// TestSessionTokenWithoutMFA pins what GetSessionToken's credentials may
// do when issued without MFA (always, in leash local): no IAM operation,
// and in STS only AssumeRole and GetCallerIdentity. STS API reference,
// GetSessionToken:
// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetSessionToken.html
// IAM's refusal is InvalidClientTokenId, as reports of the behaviour show
// (see sessionTokenLimits).
func TestSessionTokenWithoutMFA(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	erin := e.user(t, "erin", allow("*"))
	roleARN := e.role(t, "target", trustPrincipal("arn:aws:iam::"+stsAccount+":user/erin"), allow("*"), 0)
	token := e.sessionToken(t, erin)
	roleSession := e.assume(t, erin, roleARN)
	tests := []struct {
		name     string
		as       aws.CredentialsProvider
		call     func(aws.CredentialsProvider) error
		code     string
		contains string
	}{
		{"IAM ListUsers is refused to a session token", token, func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).ListUsers(ctx, &iam.ListUsersInput{})
			return err
		}, "InvalidClientTokenId", invalidToken},
		{"IAM GetUser of oneself is refused to a session token", token, func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).GetUser(ctx, &iam.GetUserInput{UserName: aws.String("erin")})
			return err
		}, "InvalidClientTokenId", invalidToken},
		{"IAM CreateUser is refused to a session token", token, func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("mallory")})
			return err
		}, "InvalidClientTokenId", invalidToken},
		{"STS GetCallerIdentity is allowed to a session token", token, func(p aws.CredentialsProvider) error {
			_, err := e.stsAs(p).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
			return err
		}, "", ""},
		{"STS AssumeRole is allowed to a session token", token, func(p aws.CredentialsProvider) error {
			_, err := e.stsAs(p).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("s2")})
			return err
		}, "", ""},
		{"STS GetSessionToken is refused to a session token", token, func(p aws.CredentialsProvider) error {
			_, err := e.stsAs(p).GetSessionToken(ctx, &sts.GetSessionTokenInput{})
			return err
		}, "AccessDenied", "Cannot call GetSessionToken with session credentials"},
		{"the user's long-term key still calls IAM", erin, func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).ListUsers(ctx, &iam.ListUsersInput{})
			return err
		}, "", ""},
		{"a role session still calls IAM", roleSession, func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).ListUsers(ctx, &iam.ListUsersInput{})
			return err
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(tt.as)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("got %v, want success", err)
				}
				return
			}
			wantError(t, tt.name, err, tt.code, tt.contains)
		})
	}
}
