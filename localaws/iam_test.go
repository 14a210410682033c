package localaws_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

const account = "111122223333"

// allowAll is an identity policy that allows everything.
const allowAll = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`

// trustAccount is a trust policy that lets the account's principals assume
// a role.
const trustAccount = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]}`

// adminClient starts a server and returns it with an IAM client signed by
// the administrator.
func adminClient(t *testing.T) (*endpoint, *iam.Client) {
	t.Helper()
	e := start(t)
	return e, e.iam(e.adminKeys(t))
}

// userClient creates a user with an inline policy (none when policy is "")
// and a key, and returns an IAM client signed by it.
func userClient(t *testing.T, e *endpoint, admin *iam.Client, name, policy string) *iam.Client {
	t.Helper()
	ctx := context.Background()
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatalf("CreateUser %s: %v", name, err)
	}
	if policy != "" {
		_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(policy)})
		if err != nil {
			t.Fatalf("PutUserPolicy %s: %v", name, err)
		}
	}
	key, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateAccessKey %s: %v", name, err)
	}
	return e.iam(*key.AccessKey.AccessKeyId, *key.AccessKey.SecretAccessKey)
}

// wantCode fails unless err is an API error with code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := apiCode(err); got != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// must fails the test on an error.
func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

// decoded is a policy document as IAM returns it, URL-decoded.
func decoded(t *testing.T, doc *string) string {
	t.Helper()
	s, err := url.QueryUnescape(aws.ToString(doc))
	if err != nil {
		t.Fatalf("policy document %q is not URL-encoded: %v", aws.ToString(doc), err)
	}
	return s
}

func tagMap(tags []types.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

func tag(k, v string) types.Tag { return types.Tag{Key: aws.String(k), Value: aws.String(v)} }

func TestUserTagsAndUpdate(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), Tags: []types.Tag{tag("team", "blue")}}))

	must[*iam.TagUserOutput](t, "TagUser")(admin.TagUser(ctx, &iam.TagUserInput{UserName: aws.String("alice"), Tags: []types.Tag{tag("TEAM", "red"), tag("env", "dev")}}))
	tags := must[*iam.ListUserTagsOutput](t, "ListUserTags")(admin.ListUserTags(ctx, &iam.ListUserTagsInput{UserName: aws.String("alice")}))
	if got := tagMap(tags.Tags); len(got) != 2 || got["TEAM"] != "red" || got["env"] != "dev" || tags.IsTruncated {
		t.Errorf("tags after TagUser = %v (truncated %v); want TEAM=red (a key is replaced regardless of case) and env=dev", got, tags.IsTruncated)
	}
	page := must[*iam.ListUserTagsOutput](t, "ListUserTags")(admin.ListUserTags(ctx, &iam.ListUserTagsInput{UserName: aws.String("alice"), MaxItems: aws.Int32(1)}))
	if len(page.Tags) != 1 || !page.IsTruncated || page.Marker == nil {
		t.Errorf("first page of one tag = %+v", page)
	}
	rest := must[*iam.ListUserTagsOutput](t, "ListUserTags")(admin.ListUserTags(ctx, &iam.ListUserTagsInput{UserName: aws.String("alice"), Marker: page.Marker}))
	if len(rest.Tags) != 1 || rest.IsTruncated || aws.ToString(rest.Tags[0].Key) == aws.ToString(page.Tags[0].Key) {
		t.Errorf("second page = %+v", rest)
	}
	must[*iam.UntagUserOutput](t, "UntagUser")(admin.UntagUser(ctx, &iam.UntagUserInput{UserName: aws.String("alice"), TagKeys: []string{"team", "absent"}}))
	got := must[*iam.GetUserOutput](t, "GetUser")(admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}))
	if m := tagMap(got.User.Tags); len(m) != 1 || m["env"] != "dev" {
		t.Errorf("tags after UntagUser = %v, want env=dev alone", m)
	}

	must[*iam.UpdateUserOutput](t, "UpdateUser")(admin.UpdateUser(ctx, &iam.UpdateUserInput{UserName: aws.String("alice"), NewUserName: aws.String("alicia"), NewPath: aws.String("/eng/")}))
	got = must[*iam.GetUserOutput](t, "GetUser")(admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alicia")}))
	if aws.ToString(got.User.Arn) != "arn:aws:iam::"+account+":user/eng/alicia" || aws.ToString(got.User.Path) != "/eng/" {
		t.Errorf("renamed user = %s at %s", aws.ToString(got.User.Arn), aws.ToString(got.User.Path))
	}
	_, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")})
	wantCode(t, "GetUser under the old name", err, "NoSuchEntity")
}

func TestUserInlinePolicies(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/a b+c"}}`
	for _, name := range []string{"b", "a", "c"} {
		must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String(name), PolicyDocument: aws.String(doc)}))
	}
	list := must[*iam.ListUserPoliciesOutput](t, "ListUserPolicies")(admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("alice")}))
	if !slices.Equal(list.PolicyNames, []string{"a", "b", "c"}) || list.IsTruncated {
		t.Errorf("ListUserPolicies = %v, truncated %v", list.PolicyNames, list.IsTruncated)
	}
	got := must[*iam.GetUserPolicyOutput](t, "GetUserPolicy")(admin.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String("ALICE"), PolicyName: aws.String("B")}))
	if decoded(t, got.PolicyDocument) != doc || aws.ToString(got.UserName) != "alice" || aws.ToString(got.PolicyName) != "b" {
		t.Errorf("GetUserPolicy = %s %s %s", aws.ToString(got.UserName), aws.ToString(got.PolicyName), decoded(t, got.PolicyDocument))
	}
	must[*iam.DeleteUserPolicyOutput](t, "DeleteUserPolicy")(admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("b")}))
	_, err := admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("b")})
	wantCode(t, "DeleteUserPolicy twice", err, "NoSuchEntity")
	list = must[*iam.ListUserPoliciesOutput](t, "ListUserPolicies")(admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("alice"), MaxItems: aws.Int32(1)}))
	if !slices.Equal(list.PolicyNames, []string{"a"}) || !list.IsTruncated {
		t.Errorf("first page = %v, truncated %v", list.PolicyNames, list.IsTruncated)
	}
	list = must[*iam.ListUserPoliciesOutput](t, "ListUserPolicies")(admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("alice"), Marker: list.Marker}))
	if !slices.Equal(list.PolicyNames, []string{"c"}) || list.IsTruncated {
		t.Errorf("second page = %v, truncated %v", list.PolicyNames, list.IsTruncated)
	}
}

// TestDeleteUserConflictsUntilItsPartsAreGone removes what blocks a user's
// delete in the order IAM asks for: login profile, access keys, inline
// policies, attached policies.
func TestDeleteUserConflictsUntilItsPartsAreGone(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	user := aws.String("leaver")
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: user}))
	must[*iam.CreateLoginProfileOutput](t, "CreateLoginProfile")(admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: user, Password: aws.String("Correct-Horse-9")}))
	key := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: user}))
	must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: user, PolicyName: aws.String("p"), PolicyDocument: aws.String(allowAll)}))
	managed := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("m"), PolicyDocument: aws.String(allowAll)}))
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: user, PolicyArn: managed.Policy.Arn}))

	steps := []struct {
		blocker string
		remove  func() error
	}{
		{"login profile", func() error {
			_, err := admin.DeleteLoginProfile(ctx, &iam.DeleteLoginProfileInput{UserName: user})
			return err
		}},
		{"access keys", func() error {
			_, err := admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: user, AccessKeyId: key.AccessKey.AccessKeyId})
			return err
		}},
		{"policies", func() error {
			_, err := admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: user, PolicyName: aws.String("p")})
			return err
		}},
		{"detach all policies", func() error {
			_, err := admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: user, PolicyArn: managed.Policy.Arn})
			return err
		}},
	}
	for _, step := range steps {
		_, err := admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: user})
		if apiCode(err) != "DeleteConflict" || !strings.Contains(err.Error(), step.blocker) {
			t.Fatalf("DeleteUser with its %s: %v, want DeleteConflict naming it", step.blocker, err)
		}
		if err := step.remove(); err != nil {
			t.Fatalf("remove %s: %v", step.blocker, err)
		}
	}
	if _, err := admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: user}); err != nil {
		t.Fatalf("DeleteUser once nothing blocks: %v", err)
	}
	_, err := admin.GetUser(ctx, &iam.GetUserInput{UserName: user})
	wantCode(t, "GetUser after DeleteUser", err, "NoSuchEntity")
	// The policy is free again.
	if _, err := admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: managed.Policy.Arn}); err != nil {
		t.Errorf("DeletePolicy once detached: %v", err)
	}
}

// TestErrorCodes pins the codes the SDK sees for requests IAM refuses.
func TestErrorCodes(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	tests := []struct {
		name string
		call func() error
		code string
	}{
		{"a user name with a space is a ValidationError", func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bad name")})
			return err
		}, "ValidationError"},
		{"a user name of 65 characters is a ValidationError", func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(strings.Repeat("a", 65))})
			return err
		}, "ValidationError"},
		{"a path without slashes is a ValidationError", func() error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("r"), Path: aws.String("eng"), AssumeRolePolicyDocument: aws.String(trustAccount)})
			return err
		}, "ValidationError"},
		{"a user of any case is EntityAlreadyExists", func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("ALICE")})
			return err
		}, "EntityAlreadyExists"},
		{"a role twice is EntityAlreadyExists", func() error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)})
			return err
		}, "EntityAlreadyExists"},
		{"tagging a missing user is NoSuchEntity", func() error {
			_, err := admin.TagUser(ctx, &iam.TagUserInput{UserName: aws.String("nobody"), Tags: []types.Tag{tag("a", "b")}})
			return err
		}, "NoSuchEntity"},
		{"a missing role is NoSuchEntity", func() error {
			_, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("nobody")})
			return err
		}, "NoSuchEntity"},
		{"a missing inline role policy is NoSuchEntity", func() error {
			_, err := admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("ci"), PolicyName: aws.String("none")})
			return err
		}, "NoSuchEntity"},
		{"a missing managed policy is NoSuchEntity", func() error {
			_, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("arn:aws:iam::" + account + ":policy/none")})
			return err
		}, "NoSuchEntity"},
		{"attaching a missing managed policy is NoSuchEntity", func() error {
			_, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String("arn:aws:iam::" + account + ":policy/none")})
			return err
		}, "NoSuchEntity"},
		{"attaching by a name instead of an ARN is InvalidInput", func() error {
			_, err := admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: aws.String("ReadOnlyAccess")})
			return err
		}, "InvalidInput"},
		{"a boundary that does not exist is NoSuchEntity", func() error {
			_, err := admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("alice"), PermissionsBoundary: aws.String("arn:aws:iam::" + account + ":policy/none")})
			return err
		}, "NoSuchEntity"},
		{"a tag key under aws: is InvalidInput", func() error {
			_, err := admin.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String("ci"), Tags: []types.Tag{tag("aws:team", "x")}})
			return err
		}, "InvalidInput"},
		{"MaxSessionDuration over 12 hours is a ValidationError", func() error {
			_, err := admin.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("ci"), MaxSessionDuration: aws.Int32(43201)})
			return err
		}, "ValidationError"},
		{"an unknown access key is NoSuchEntity", func() error {
			_, err := admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: aws.String("AKIAIOSFODNN7EXAMPLE")})
			return err
		}, "NoSuchEntity"},
		{"a marker IAM did not give is InvalidInput", func() error {
			_, err := admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("alice"), Marker: aws.String("7")})
			return err
		}, "InvalidInput"},
		{"an unknown ListPolicies scope is a ValidationError", func() error {
			_, err := admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: "Everything"})
			return err
		}, "ValidationError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantCode(t, tt.name, tt.call(), tt.code) })
	}
}

// TestMissingRequiredParameters sends requests the SDK lets through without
// a member the API requires (the SDK checks only presence, not emptiness).
func TestMissingRequiredParameters(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		call   func() error
		member string
	}{
		{"CreateRole with an empty trust policy", func() error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("r"), AssumeRolePolicyDocument: aws.String("")})
			return err
		}, "assumeRolePolicyDocument"},
		{"TagUser with an empty user name", func() error {
			_, err := admin.TagUser(ctx, &iam.TagUserInput{UserName: aws.String(""), Tags: []types.Tag{tag("a", "b")}})
			return err
		}, "userName"},
		{"GetPolicy with an empty ARN", func() error {
			_, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("")})
			return err
		}, "policyArn"},
		{"CreateOpenIDConnectProvider with an empty URL", func() error {
			_, err := admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("")})
			return err
		}, "url"},
		{"SimulateCustomPolicy with no actions", func() error {
			_, err := admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{PolicyInputList: []string{allowAll}, ActionNames: []string{}})
			return err
		}, "actionNames"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if apiCode(err) != "ValidationError" || !strings.Contains(err.Error(), "'"+tt.member+"'") {
				t.Errorf("%v, want a ValidationError naming '%s'", err, tt.member)
			}
		})
	}
}

// TestAccessDeniedNamesActionAndResource checks that a user without
// permissions is refused in AWS's words, with the ARN IAM authorizes each
// action against.
func TestAccessDeniedNamesActionAndResource(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), Path: aws.String("/eng/")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), Path: aws.String("/svc/"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	bob := userClient(t, e, admin, "bob", "")
	policyARN := "arn:aws:iam::" + account + ":policy/p"
	tests := []struct {
		action   string
		resource string
		call     func() error
	}{
		{"TagUser", "arn:aws:iam::" + account + ":user/eng/alice", func() error {
			_, err := bob.TagUser(ctx, &iam.TagUserInput{UserName: aws.String("alice"), Tags: []types.Tag{tag("a", "b")}})
			return err
		}},
		{"DeleteUserPolicy", "arn:aws:iam::" + account + ":user/eng/alice", func() error {
			_, err := bob.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p")})
			return err
		}},
		{"CreateRole", "arn:aws:iam::" + account + ":role/new", func() error {
			_, err := bob.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("new"), AssumeRolePolicyDocument: aws.String(trustAccount)})
			return err
		}},
		{"GetRole", "arn:aws:iam::" + account + ":role/svc/ci", func() error {
			_, err := bob.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ci")})
			return err
		}},
		{"ListRoles", "arn:aws:iam::" + account + ":role/", func() error {
			_, err := bob.ListRoles(ctx, &iam.ListRolesInput{})
			return err
		}},
		{"AttachRolePolicy", "arn:aws:iam::" + account + ":role/svc/ci", func() error {
			_, err := bob.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: aws.String(policyARN)})
			return err
		}},
		{"CreatePolicy", policyARN, func() error {
			_, err := bob.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("p"), PolicyDocument: aws.String(allowAll)})
			return err
		}},
		{"GetPolicyVersion", policyARN, func() error {
			_, err := bob.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(policyARN), VersionId: aws.String("v1")})
			return err
		}},
		{"ListPolicies", "policy path /", func() error {
			_, err := bob.ListPolicies(ctx, &iam.ListPoliciesInput{})
			return err
		}},
		{"CreateOpenIDConnectProvider", "arn:aws:iam::" + account + ":oidc-provider/token.example.com", func() error {
			_, err := bob.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://token.example.com")})
			return err
		}},
		{"CreateLoginProfile", "arn:aws:iam::" + account + ":user/eng/alice", func() error {
			_, err := bob.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: aws.String("alice"), Password: aws.String("Correct-Horse-9")})
			return err
		}},
		{"SimulateCustomPolicy", "*", func() error {
			_, err := bob.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{PolicyInputList: []string{allowAll}, ActionNames: []string{"s3:GetObject"}})
			return err
		}},
		{"SimulatePrincipalPolicy", "arn:aws:iam::" + account + ":user/eng/alice", func() error {
			_, err := bob.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String("arn:aws:iam::" + account + ":user/eng/alice"), ActionNames: []string{"s3:GetObject"}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			err := tt.call()
			want := "User: arn:aws:iam::" + account + ":user/bob is not authorized to perform: iam:" + tt.action + " on resource: " + tt.resource + " because no identity-based policy allows the iam:" + tt.action + " action"
			if apiCode(err) != "AccessDenied" || !strings.Contains(err.Error(), want) {
				t.Errorf("%v\nwant AccessDenied: %s", err, want)
			}
		})
	}
}
