package localaws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// IAM's model gives PathPrefix one of three patterns, by operation, each
// 1 to 512 characters; ValidationError quotes the pattern as the model
// spells it.
const (
	// pathPrefixType: ListUsers, ListRoles, ListGroups, ListInstanceProfiles.
	// https://docs.aws.amazon.com/IAM/latest/APIReference/API_ListUsers.html
	anyPrefixPattern = `\u002F[\u0021-\u007F]*`
	// policyPathType: ListPolicies, ListAttached{User,Role,Group}Policies.
	// https://docs.aws.amazon.com/IAM/latest/APIReference/API_ListPolicies.html
	// https://docs.aws.amazon.com/IAM/latest/APIReference/API_ListAttachedRolePolicies.html
	policyPrefixPattern = `((/[A-Za-z0-9\.,\+@=_-]+)*)/`
	// pathType: ListEntitiesForPolicy's PathPrefix and every Create* Path.
	// https://docs.aws.amazon.com/IAM/latest/APIReference/API_ListEntitiesForPolicy.html
	// https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateUser.html
	pathPattern = `(\u002F)|(\u002F[\u0021-\u007E]+\u002F)`
)

// TestPathPrefixIsValidatedByEveryListOperation sends each List operation
// that takes PathPrefix a prefix its pattern refuses, and one it allows:
// the first is ValidationError in AWS's words, the second lists.
func TestPathPrefixIsValidatedByEveryListOperation(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: "111122223333"})
	admin := e.IAM(nil)
	ctx := context.Background()
	if _, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("app"), AssumeRolePolicyDocument: aws.String(trustAccount)}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs")}); err != nil {
		t.Fatal(err)
	}
	const readOnly = "arn:aws:iam::aws:policy/ReadOnlyAccess"
	if _, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(readOnly)}); err != nil {
		t.Fatal(err)
	}

	ops := []listOp{
		{"ListUsers", func(p *string) error { _, err := admin.ListUsers(ctx, &iam.ListUsersInput{PathPrefix: p}); return err }},
		{"ListRoles", func(p *string) error { _, err := admin.ListRoles(ctx, &iam.ListRolesInput{PathPrefix: p}); return err }},
		{"ListGroups", func(p *string) error {
			_, err := admin.ListGroups(ctx, &iam.ListGroupsInput{PathPrefix: p})
			return err
		}},
		{"ListInstanceProfiles", func(p *string) error {
			_, err := admin.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{PathPrefix: p})
			return err
		}},
		{"ListPolicies", func(p *string) error {
			_, err := admin.ListPolicies(ctx, &iam.ListPoliciesInput{PathPrefix: p})
			return err
		}},
		{"ListAttachedUserPolicies", func(p *string) error {
			_, err := admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice"), PathPrefix: p})
			return err
		}},
		{"ListAttachedRolePolicies", func(p *string) error {
			_, err := admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("app"), PathPrefix: p})
			return err
		}},
		{"ListAttachedGroupPolicies", func(p *string) error {
			_, err := admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("devs"), PathPrefix: p})
			return err
		}},
		{"ListEntitiesForPolicy", func(p *string) error {
			_, err := admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: aws.String(readOnly), PathPrefix: p})
			return err
		}},
	}
	patternOf := map[string]string{
		"ListUsers": anyPrefixPattern, "ListRoles": anyPrefixPattern, "ListGroups": anyPrefixPattern, "ListInstanceProfiles": anyPrefixPattern,
		"ListPolicies": policyPrefixPattern, "ListAttachedUserPolicies": policyPrefixPattern,
		"ListAttachedRolePolicies": policyPrefixPattern, "ListAttachedGroupPolicies": policyPrefixPattern,
		"ListEntitiesForPolicy": pathPattern,
	}
	cases := []struct {
		name    string
		prefix  string
		refused map[string]bool // the operations whose pattern refuses prefix
		message string          // the constraint wanted, "" for the operation's pattern
	}{
		{"a prefix without the leading slash is refused by every pattern", "leash/", all(ops), ""},
		{"a prefix with a space is refused by every pattern", "/le ash/", all(ops), ""},
		{"a prefix of 513 characters is refused for its length", "/" + strings.Repeat("a", 511) + "/", all(ops),
			"Member must have length less than or equal to 512"},
		{"an empty prefix sent is refused for its length", "", all(ops), "Member must have length greater than or equal to 1"},
		{"a prefix without the trailing slash is refused by policyPathType and pathType only", "/leash",
			map[string]bool{"ListPolicies": true, "ListAttachedUserPolicies": true, "ListAttachedRolePolicies": true,
				"ListAttachedGroupPolicies": true, "ListEntitiesForPolicy": true}, ""},
		{"a prefix with a colon is refused by policyPathType only", "/team:a/",
			map[string]bool{"ListPolicies": true, "ListAttachedUserPolicies": true, "ListAttachedRolePolicies": true,
				"ListAttachedGroupPolicies": true}, ""},
		{"a DEL character is allowed by pathPrefixType only", "/a\x7f",
			map[string]bool{"ListPolicies": true, "ListAttachedUserPolicies": true, "ListAttachedRolePolicies": true,
				"ListAttachedGroupPolicies": true, "ListEntitiesForPolicy": true}, ""},
		{"the root prefix is allowed everywhere", "/", nil, ""},
		{"a slash-delimited prefix is allowed everywhere", "/team-a/ci/", nil, ""},
	}
	for _, tc := range cases {
		for _, op := range ops {
			err := op.call(aws.String(tc.prefix))
			what := tc.name + ": " + op.name
			if !tc.refused[op.name] {
				if err != nil {
					t.Errorf("%s: %v, want it listed", what, err)
				}
				continue
			}
			constraint := tc.message
			if constraint == "" {
				constraint = "Member must satisfy regular expression pattern: " + patternOf[op.name]
			}
			wantError(t, what, err, "ValidationError",
				"1 validation error detected: Value '"+tc.prefix+"' at 'pathPrefix' failed to satisfy constraint: "+constraint)
		}
	}
	// Without PathPrefix every operation lists everything.
	for _, op := range ops {
		if err := op.call(nil); err != nil {
			t.Errorf("%s without PathPrefix: %v", op.name, err)
		}
	}
}

// TestPathsOnCreateFollowTheirPatterns checks the Path of the Create
// operations: pathType for users, roles, groups and instance profiles,
// policyPathType for policies.
func TestPathsOnCreateFollowTheirPatterns(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: "111122223333"})
	admin := e.IAM(nil)
	ctx := context.Background()
	cases := []struct {
		name    string
		call    func() error
		pattern string // "" when the path is allowed
	}{
		// https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateUser.html: pathType.
		{"a user path of two slashes is refused: pathType needs a character between them", func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("u1"), Path: aws.String("//")})
			return err
		}, pathPattern},
		{"a user path with a colon is allowed by pathType", func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("u2"), Path: aws.String("/team:a/")})
			return err
		}, ""},
		{"a role path without its trailing slash is refused", func() error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("r1"), Path: aws.String("/ci"), AssumeRolePolicyDocument: aws.String(trustAccount)})
			return err
		}, pathPattern},
		// https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreatePolicy.html: policyPathType.
		{"a policy path with a colon is refused by policyPathType", func() error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("p1"), Path: aws.String("/team:a/"),
				PolicyDocument: aws.String(allow("s3:GetObject"))})
			return err
		}, policyPrefixPattern},
		{"a slash-delimited policy path is allowed", func() error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("p2"), Path: aws.String("/team-a/ci/"),
				PolicyDocument: aws.String(allow("s3:GetObject"))})
			return err
		}, ""},
	}
	for _, tc := range cases {
		err := tc.call()
		if tc.pattern == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		wantError(t, tc.name, err, "ValidationError", "at 'path' failed to satisfy constraint: Member must satisfy regular expression pattern: "+tc.pattern)
	}
}

// listOp is a List operation called with a PathPrefix (nil: none sent).
type listOp struct {
	name string
	call func(prefix *string) error
}

// all is the set of every operation's name.
func all(ops []listOp) map[string]bool {
	m := map[string]bool{}
	for _, op := range ops {
		m[op.name] = true
	}
	return m
}
