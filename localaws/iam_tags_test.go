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
		missing: "nobody",
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
		missing: "nobody",
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
}

// manyTags are n distinct tags k0=v … k{n-1}=v.
func manyTags(n int) []types.Tag {
	out := make([]types.Tag, n)
	for i := range out {
		out[i] = tag(fmt.Sprintf("k%d", i), "v")
	}
	return out
}

// TestTagRulesAreTheSameForEveryKind runs IAM's documented tag rules
// against users, roles, managed policies and OIDC providers alike: tagging
// replaces a key's value regardless of case, untagging a key that is not
// there succeeds, and a request that breaks a limit changes nothing.
func TestTagRulesAreTheSameForEveryKind(t *testing.T) {
	steps := []struct {
		name string
		do   func(ctx context.Context, k taggable, admin *iam.Client, id string) error
		code string            // the error code wanted; "" for success
		want map[string]string // the entity's tags afterwards
	}{
		{"tag adds keys in one call",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("team", "red"), tag("env", "dev")})
			}, "", map[string]string{"team": "red", "env": "dev"}},
		{"tagging a key again replaces its value and spelling, regardless of case",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("TEAM", "blue")})
			}, "", map[string]string{"TEAM": "blue", "env": "dev"}},
		{"untagging a key that is not there succeeds and changes nothing",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.untag(ctx, admin, id, []string{"absent"})
			}, "", map[string]string{"TEAM": "blue", "env": "dev"}},
		{"untag removes a key regardless of case",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.untag(ctx, admin, id, []string{"team"})
			}, "", map[string]string{"env": "dev"}},
		{"50 tags are allowed",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, manyTags(49))
			}, "", func() map[string]string {
				m := map[string]string{"env": "dev"}
				for _, tg := range manyTags(49) {
					m[*tg.Key] = *tg.Value
				}
				return m
			}()},
		{"a 51st tag is LimitExceeded and adds nothing",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("one-too-many", "v")})
			}, "LimitExceeded", nil},
		{"replacing a value at the limit is not a new tag",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				if err := k.tag(ctx, admin, id, []types.Tag{tag("ENV", "prod")}); err != nil {
					return err
				}
				return k.untag(ctx, admin, id, keysOf(manyTags(49)))
			}, "", map[string]string{"ENV": "prod"}},
		{"a key of 129 characters is a ValidationError",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag(strings.Repeat("k", 129), "v")})
			}, "ValidationError", nil},
		{"a key of 128 characters is allowed",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				if err := k.tag(ctx, admin, id, []types.Tag{tag(strings.Repeat("k", 128), "v")}); err != nil {
					return err
				}
				return k.untag(ctx, admin, id, []string{strings.Repeat("k", 128)})
			}, "", map[string]string{"ENV": "prod"}},
		{"a value of 257 characters is a ValidationError",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("long", strings.Repeat("v", 257))})
			}, "ValidationError", nil},
		{"an empty key is a ValidationError",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("", "v")})
			}, "ValidationError", nil},
		{"the same key twice in one request, in any case, is InvalidInput",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("dup", "1"), tag("DUP", "2")})
			}, "InvalidInput", nil},
		{"a key under the reserved aws: prefix is InvalidInput",
			func(ctx context.Context, k taggable, admin *iam.Client, id string) error {
				return k.tag(ctx, admin, id, []types.Tag{tag("AWS:team", "x")})
			}, "InvalidInput", nil},
		{"tagging an entity that does not exist is NoSuchEntity",
			func(ctx context.Context, k taggable, admin *iam.Client, _ string) error {
				return k.tag(ctx, admin, k.missing, []types.Tag{tag("a", "b")})
			}, "NoSuchEntity", nil},
		{"untagging an entity that does not exist is NoSuchEntity",
			func(ctx context.Context, k taggable, admin *iam.Client, _ string) error {
				return k.untag(ctx, admin, k.missing, []string{"a"})
			}, "NoSuchEntity", nil},
		{"listing the tags of an entity that does not exist is NoSuchEntity",
			func(ctx context.Context, k taggable, admin *iam.Client, _ string) error {
				_, err := k.list(ctx, admin, k.missing)
				return err
			}, "NoSuchEntity", nil},
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
				err := s.do(ctx, k, admin, id)
				if s.code == "" {
					if err != nil {
						t.Fatalf("%s: %v", s.name, err)
					}
					want = s.want
				} else {
					wantCode(t, s.name, err, s.code)
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
