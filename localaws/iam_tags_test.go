package localaws_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// taggable is one kind of entity IAM tags, reached through its own three
// actions.
type taggable struct {
	kind   string
	create func(ctx context.Context, admin *iam.Client) (id string, err error)
	tag    func(ctx context.Context, admin *iam.Client, id string, tags []types.Tag) error
	untag  func(ctx context.Context, admin *iam.Client, id string, keys []string) error
	list   func(ctx context.Context, admin *iam.Client, id string) ([]types.Tag, error)
	// missing names an entity of the kind that does not exist.
	missing string
	// foldsKeys: the kind's tag keys are not case sensitive, as for IAM
	// users and roles; every other kind keeps keys that differ in case.
	foldsKeys bool
}

var taggables = []taggable{
	{
		kind: "user",
		create: func(ctx context.Context, admin *iam.Client) (string, error) {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("tagged")})
			return "tagged", err
		},
		tag: func(ctx context.Context, admin *iam.Client, id string, tags []types.Tag) error {
			_, err := admin.TagUser(ctx, &iam.TagUserInput{UserName: &id, Tags: tags})
			return err
		},
		untag: func(ctx context.Context, admin *iam.Client, id string, keys []string) error {
			_, err := admin.UntagUser(ctx, &iam.UntagUserInput{UserName: &id, TagKeys: keys})
			return err
		},
		list: func(ctx context.Context, admin *iam.Client, id string) ([]types.Tag, error) {
			out, err := admin.ListUserTags(ctx, &iam.ListUserTagsInput{UserName: &id})
			if err != nil {
				return nil, err
			}
			return out.Tags, nil
		},
		missing:   "nobody",
		foldsKeys: true,
	},
	{
		kind: "role",
		create: func(ctx context.Context, admin *iam.Client) (string, error) {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("tagged"), AssumeRolePolicyDocument: aws.String(trustAccount)})
			return "tagged", err
		},
		tag: func(ctx context.Context, admin *iam.Client, id string, tags []types.Tag) error {
			_, err := admin.TagRole(ctx, &iam.TagRoleInput{RoleName: &id, Tags: tags})
			return err
		},
		untag: func(ctx context.Context, admin *iam.Client, id string, keys []string) error {
			_, err := admin.UntagRole(ctx, &iam.UntagRoleInput{RoleName: &id, TagKeys: keys})
			return err
		},
		list: func(ctx context.Context, admin *iam.Client, id string) ([]types.Tag, error) {
			out, err := admin.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: &id})
			if err != nil {
				return nil, err
			}
			return out.Tags, nil
		},
		missing:   "nobody",
		foldsKeys: true,
	},
	{
		kind: "managed policy",
		create: func(ctx context.Context, admin *iam.Client) (string, error) {
			out, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("tagged"),
				PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`)})
			if err != nil {
				return "", err
			}
			return aws.ToString(out.Policy.Arn), nil
		},
		tag: func(ctx context.Context, admin *iam.Client, id string, tags []types.Tag) error {
			_, err := admin.TagPolicy(ctx, &iam.TagPolicyInput{PolicyArn: &id, Tags: tags})
			return err
		},
		untag: func(ctx context.Context, admin *iam.Client, id string, keys []string) error {
			_, err := admin.UntagPolicy(ctx, &iam.UntagPolicyInput{PolicyArn: &id, TagKeys: keys})
			return err
		},
		list: func(ctx context.Context, admin *iam.Client, id string) ([]types.Tag, error) {
			out, err := admin.ListPolicyTags(ctx, &iam.ListPolicyTagsInput{PolicyArn: &id})
			if err != nil {
				return nil, err
			}
			return out.Tags, nil
		},
		missing: "arn:aws:iam::111122223333:policy/nothing",
	},
	{
		kind: "OIDC provider",
		create: func(ctx context.Context, admin *iam.Client) (string, error) {
			out, err := admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://issuer.example.com")})
			if err != nil {
				return "", err
			}
			return aws.ToString(out.OpenIDConnectProviderArn), nil
		},
		tag: func(ctx context.Context, admin *iam.Client, id string, tags []types.Tag) error {
			_, err := admin.TagOpenIDConnectProvider(ctx, &iam.TagOpenIDConnectProviderInput{OpenIDConnectProviderArn: &id, Tags: tags})
			return err
		},
		untag: func(ctx context.Context, admin *iam.Client, id string, keys []string) error {
			_, err := admin.UntagOpenIDConnectProvider(ctx, &iam.UntagOpenIDConnectProviderInput{OpenIDConnectProviderArn: &id, TagKeys: keys})
			return err
		},
		list: func(ctx context.Context, admin *iam.Client, id string) ([]types.Tag, error) {
			out, err := admin.ListOpenIDConnectProviderTags(ctx, &iam.ListOpenIDConnectProviderTagsInput{OpenIDConnectProviderArn: &id})
			if err != nil {
				return nil, err
			}
			return out.Tags, nil
		},
		missing: "arn:aws:iam::111122223333:oidc-provider/nothing.example.com",
	},
	{
		kind: "instance profile",
		create: func(ctx context.Context, admin *iam.Client) (string, error) {
			_, err := admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("tagged")})
			return "tagged", err
		},
		tag: func(ctx context.Context, admin *iam.Client, id string, tags []types.Tag) error {
			_, err := admin.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: &id, Tags: tags})
			return err
		},
		untag: func(ctx context.Context, admin *iam.Client, id string, keys []string) error {
			_, err := admin.UntagInstanceProfile(ctx, &iam.UntagInstanceProfileInput{InstanceProfileName: &id, TagKeys: keys})
			return err
		},
		list: func(ctx context.Context, admin *iam.Client, id string) ([]types.Tag, error) {
			out, err := admin.ListInstanceProfileTags(ctx, &iam.ListInstanceProfileTagsInput{InstanceProfileName: &id})
			if err != nil {
				return nil, err
			}
			return out.Tags, nil
		},
		missing: "nobody",
	},
}

// manyTags are n distinct tags k0=v … k{n-1}=v.
func manyTags(n int) []types.Tag {
	out := make([]types.Tag, n)
	for i := range out {
		out[i] = tag(fmt.Sprintf("k%d", i), "v")
	}
	return out
}

// outcome is what one step should do to an entity: the error code wanted
// ("" for success) and the entity's tags afterwards (unchanged on an
// error).
type outcome struct {
	code string
	want map[string]string
}

// TestTagRulesOfEveryKind runs IAM's documented tag rules against users,
// roles, managed policies, OIDC providers and instance profiles. Most rules
// are the same for every kind: untagging a key that is not there succeeds,
// a request that breaks a limit changes nothing, the aws: prefix is
// reserved. Case is not: the IAM User Guide has tag keys "not case
// sensitive" for IAM users and roles (a key in another case replaces the
// tag) and case sensitive for customer managed policies, instance profiles
// and OpenID Connect providers (both keys are kept).
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_tags.html#id_tags_rules_creating
func TestTagRulesOfEveryKind(t *testing.T) {
	tagging := func(tags ...types.Tag) func(context.Context, taggable, *iam.Client, string) error {
		return func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
			return k.tag(ctx, admin, id, tags)
		}
	}
	untagging := func(keys ...string) func(context.Context, taggable, *iam.Client, string) error {
		return func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
			return k.untag(ctx, admin, id, keys)
		}
	}
	// plus49 adds the tags of manyTags(49) that m does not set.
	plus49 := func(m map[string]string) map[string]string {
		for _, tg := range manyTags(49) {
			if _, ok := m[*tg.Key]; !ok {
				m[*tg.Key] = *tg.Value
			}
		}
		return m
	}
	steps := []struct {
		name string
		do   func(ctx context.Context, k taggable, admin *iam.Client, id string) error
		// folded is the outcome for users and roles; sensitive, for the
		// other kinds, when it differs (zero: the same).
		folded, sensitive outcome
	}{
		{"tag adds keys in one call", tagging(tag("team", "red"), tag("env", "dev")),
			outcome{"", map[string]string{"team": "red", "env": "dev"}}, outcome{}},
		{"a key in another case replaces the tag of a user or role, and is a second tag of any other kind", tagging(tag("TEAM", "blue")),
			outcome{"", map[string]string{"TEAM": "blue", "env": "dev"}},
			outcome{"", map[string]string{"team": "red", "TEAM": "blue", "env": "dev"}}},
		{"untagging a key that is not there succeeds and changes nothing", untagging("absent"),
			outcome{"", map[string]string{"TEAM": "blue", "env": "dev"}},
			outcome{"", map[string]string{"team": "red", "TEAM": "blue", "env": "dev"}}},
		{"untag removes a key in any case from a user or role, and only that spelling from any other kind", untagging("team"),
			outcome{"", map[string]string{"env": "dev"}},
			outcome{"", map[string]string{"TEAM": "blue", "env": "dev"}}},
		{"untag removes a key in its own spelling from every kind", untagging("TEAM"),
			outcome{"", map[string]string{"env": "dev"}}, outcome{}},
		{"the same key twice in one request is InvalidInput", tagging(tag("dup", "1"), tag("dup", "2")),
			outcome{"InvalidInput", nil}, outcome{}},
		{"keys differing in case in one request are InvalidInput for a user or role, and two tags of any other kind", tagging(tag("dup", "1"), tag("DUP", "2")),
			outcome{"InvalidInput", nil},
			outcome{"", map[string]string{"env": "dev", "dup": "1", "DUP": "2"}}},
		{"untagging both spellings leaves every kind alike", untagging("dup", "DUP"),
			outcome{"", map[string]string{"env": "dev"}}, outcome{}},
		{"50 tags are allowed", tagging(manyTags(49)...),
			outcome{"", plus49(map[string]string{"env": "dev"})}, outcome{}},
		{"a 51st tag is LimitExceeded and adds nothing", tagging(tag("one-too-many", "v")),
			outcome{"LimitExceeded", nil}, outcome{}},
		{"at the limit, a key in another case replaces a user's or role's tag, and is a 51st tag of any other kind", tagging(tag("ENV", "prod")),
			outcome{"", plus49(map[string]string{"ENV": "prod"})},
			outcome{"LimitExceeded", nil}},
		{"replacing a value at the limit in the same spelling is not a new tag", tagging(tag("k0", "w")),
			outcome{"", plus49(map[string]string{"ENV": "prod", "k0": "w"})},
			outcome{"", plus49(map[string]string{"env": "dev", "k0": "w"})}},
		{"untagging many keys in one call", untagging(keysOf(manyTags(49))...),
			outcome{"", map[string]string{"ENV": "prod"}},
			outcome{"", map[string]string{"env": "dev"}}},
		{"a key of 129 characters is a ValidationError", tagging(tag(strings.Repeat("k", 129), "v")),
			outcome{"ValidationError", nil}, outcome{}},
		{"a key of 128 characters is allowed",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				if err := k.tag(ctx, admin, id, []types.Tag{tag(strings.Repeat("k", 128), "v")}); err != nil {
					return err
				}
				return k.untag(ctx, admin, id, []string{strings.Repeat("k", 128)})
			}, outcome{"", map[string]string{"ENV": "prod"}}, outcome{"", map[string]string{"env": "dev"}}},
		{"a value of 257 characters is a ValidationError", tagging(tag("long", strings.Repeat("v", 257))),
			outcome{"ValidationError", nil}, outcome{}},
		{"an empty key is a ValidationError", tagging(tag("", "v")),
			outcome{"ValidationError", nil}, outcome{}},
		{"a key under the reserved aws: prefix, in any case, is InvalidInput", tagging(tag("AWS:team", "x")),
			outcome{"InvalidInput", nil}, outcome{}},
		{"tagging an entity that does not exist is NoSuchEntity",
			func(ctx context.Context, k taggable, admin *iam.Client, _ string) error {
				return k.tag(ctx, admin, k.missing, []types.Tag{tag("a", "b")})
			}, outcome{"NoSuchEntity", nil}, outcome{}},
		{"untagging an entity that does not exist is NoSuchEntity",
			func(ctx context.Context, k taggable, admin *iam.Client, _ string) error {
				return k.untag(ctx, admin, k.missing, []string{"a"})
			}, outcome{"NoSuchEntity", nil}, outcome{}},
		{"listing the tags of an entity that does not exist is NoSuchEntity",
			func(ctx context.Context, k taggable, admin *iam.Client, _ string) error {
				_, err := k.list(ctx, admin, k.missing)
				return err
			}, outcome{"NoSuchEntity", nil}, outcome{}},
	}
	_, admin := adminClient(t)
	ctx := context.Background()
	for _, k := range taggables {
		t.Run(k.kind, func(t *testing.T) {
			id, err := k.create(ctx, admin)
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			want := map[string]string{}
			for _, s := range steps {
				o := s.folded
				if !k.foldsKeys && (s.sensitive.code != "" || s.sensitive.want != nil) {
					o = s.sensitive
				}
				err := s.do(ctx, k, admin, id)
				if o.code == "" {
					if err != nil {
						t.Fatalf("%s: %v", s.name, err)
					}
					want = o.want
				} else {
					wantCode(t, s.name, err, o.code)
				}
				tags, err := k.list(ctx, admin, id)
				if err != nil {
					t.Fatalf("%s: list: %v", s.name, err)
				}
				if got := tagMapOf(tags); !maps.Equal(got, want) {
					t.Errorf("%s: tags %v, want %v", s.name, got, want)
				}
			}
		})
	}
}

func keysOf(tags []types.Tag) []string {
	out := make([]string, len(tags))
	for i, tg := range tags {
		out[i] = *tg.Key
	}
	return out
}

func tagMapOf(tags []types.Tag) map[string]string {
	m := map[string]string{}
	for _, tg := range tags {
		m[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
	}
	return m
}

// TestTagCaseInConditionsAndReads checks what the per-kind case rule means
// for the tags others read. A role keeps one spelling of a key, which
// GetRole returns; an instance profile may keep Team and team, and both are
// listed. Condition key names compare without case in AWS policy
// evaluation (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition.html),
// so aws:ResourceTag/team names both of the profile's tags: the one tagged
// first gives its value, on every request. Values compare with case.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_tags.html#id_tags_rules_creating
func TestTagCaseInConditionsAndReads(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("app"),
		AssumeRolePolicyDocument: aws.String(trustAccount), Tags: []types.Tag{tag("Team", "red")}}))
	must[*iam.TagRoleOutput](t, "TagRole")(admin.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String("app"), Tags: []types.Tag{tag("team", "blue")}}))
	role := must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")}))
	if got := tagMap(role.Role.Tags); !maps.Equal(got, map[string]string{"team": "blue"}) {
		t.Errorf("GetRole tags = %v; want team=blue alone: a role's keys are not case sensitive", got)
	}

	must[*iam.CreateInstanceProfileOutput](t, "CreateInstanceProfile")(admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
		InstanceProfileName: aws.String("web"), Tags: []types.Tag{tag("Team", "red")}}))
	must[*iam.TagInstanceProfileOutput](t, "TagInstanceProfile")(admin.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{
		InstanceProfileName: aws.String("web"), Tags: []types.Tag{tag("team", "blue")}}))
	profile := must[*iam.GetInstanceProfileOutput](t, "GetInstanceProfile")(admin.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")}))
	if got := tagMap(profile.InstanceProfile.Tags); !maps.Equal(got, map[string]string{"Team": "red", "team": "blue"}) {
		t.Errorf("GetInstanceProfile tags = %v; want Team=red and team=blue: an instance profile's keys are case sensitive", got)
	}

	readIf := func(key, value string) string {
		return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["iam:GetRole","iam:GetInstanceProfile"],"Resource":"*",` +
			`"Condition":{"StringEquals":{"` + key + `":"` + value + `"}}}}`
	}
	cases := []struct {
		name, user, policy string
		call               func(c *iam.Client) error
		allowed            bool
	}{
		{"a role's tag is matched by a key name in any case", "r1", readIf("aws:ResourceTag/TEAM", "blue"),
			func(c *iam.Client) error {
				_, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")})
				return err
			}, true},
		{"a role's replaced value no longer matches", "r2", readIf("aws:ResourceTag/Team", "red"),
			func(c *iam.Client) error {
				_, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")})
				return err
			}, false},
		{"a tag value compares with case", "r3", readIf("aws:ResourceTag/team", "BLUE"),
			func(c *iam.Client) error {
				_, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("app")})
				return err
			}, false},
		{"of a profile's Team and team, the first tagged gives aws:ResourceTag/team", "p1", readIf("aws:ResourceTag/team", "red"),
			func(c *iam.Client) error {
				_, err := c.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")})
				return err
			}, true},
		{"the second spelling's value is not the condition key's", "p2", readIf("aws:ResourceTag/team", "blue"),
			func(c *iam.Client) error {
				_, err := c.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")})
				return err
			}, false},
	}
	for _, tc := range cases {
		c := userClient(t, e, admin, tc.user, tc.policy)
		// Each case asks several times: the answer must not depend on the
		// order a map yields the profile's two keys in.
		for range 5 {
			err := tc.call(c)
			if tc.allowed && err != nil {
				t.Errorf("%s: %v, want allowed", tc.name, err)
				break
			}
			if !tc.allowed {
				wantCode(t, tc.name, err, "AccessDenied")
			}
		}
	}
}

// TestTagValueUnderReservedPrefixIsRefused pins a choice where AWS's pages
// disagree. The IAM User Guide says "You cannot create a tag key or value
// that begins with the text aws:"
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_tags.html#id_tags_rules_creating),
// while the API reference's Tag.Value pattern, [\p{L}\p{Z}\p{N}_.:/=+\-@]*,
// allows such a value (https://docs.aws.amazon.com/IAM/latest/APIReference/API_Tag.html).
// leash local follows the guide: such a value is InvalidInput, as a key
// under aws: is, for every kind and on create, and nothing is changed.
func TestTagValueUnderReservedPrefixIsRefused(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	for _, k := range taggables {
		id, err := k.create(ctx, admin)
		if err != nil {
			t.Fatalf("%s: create: %v", k.kind, err)
		}
		for _, value := range []string{"aws:cloudformation", "AWS:x"} {
			err := k.tag(ctx, admin, id, []types.Tag{tag("ok", "v"), tag("origin", value)})
			wantError(t, k.kind+" tagged origin="+value, err, "InvalidInput", "Tag values cannot start with the reserved prefix aws:")
		}
		if tags, err := k.list(ctx, admin, id); err != nil || len(tags) != 0 {
			t.Errorf("%s: tags after the refusals = %v, %v; want none", k.kind, tagMapOf(tags), err)
		}
		if err := k.tag(ctx, admin, id, []types.Tag{tag("origin", "not-aws:x")}); err != nil {
			t.Errorf("%s: a value with aws: later than its start: %v", k.kind, err)
		}
	}

	_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bob"), Tags: []types.Tag{tag("origin", "aws:x")}})
	wantError(t, "CreateUser with a tag value under aws:", err, "InvalidInput", "Tag values cannot start with the reserved prefix aws:")
	_, err = admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bob")})
	wantCode(t, "the refused user", err, "NoSuchEntity")
	_, err = admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("p"), PolicyDocument: aws.String(allow("s3:GetObject")),
		Tags: []types.Tag{tag("origin", "aws:x")}})
	wantError(t, "CreatePolicy with a tag value under aws:", err, "InvalidInput", "Tag values cannot start with the reserved prefix aws:")
	_, err = admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("arn:aws:iam::111122223333:policy/p")})
	wantCode(t, "the refused policy", err, "NoSuchEntity")
}
