package localaws_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"leash.dev/leash/localaws"
)

func tags(kv ...string) []ststypes.Tag {
	var out []ststypes.Tag
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, ststypes.Tag{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
	}
	return out
}

// allowIf is an identity policy allowing action on every resource under a
// condition given as JSON.
func allowIf(action, condition string) string {
	return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"` + action + `","Resource":"*","Condition":` + condition + `}}`
}

// TestTransitiveSessionTagsCarryThroughRoleChains pins how session tags
// pass along a role chain: tags marked transitive are inherited by the
// sessions a session assumes, stay transitive, are aws:PrincipalTag there,
// cannot be passed again, and count toward the 50-tag and packed-size
// limits; tags not marked transitive are not inherited.
func TestTransitiveSessionTagsCarryThroughRoleChains(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	aliceARN := "arn:aws:iam::" + stsAccount + ":user/alice"
	roleARN := func(name string) string { return "arn:aws:iam::" + stsAccount + ":role/" + name }
	teamIsPayments := allowIf("iam:ListUsers", `{"StringEquals":{"aws:PrincipalTag/team":"payments"}}`)
	costIsSet := allowIf("iam:ListRoles", `{"Null":{"aws:PrincipalTag/cost":"false"}}`)
	first := e.role(t, "first", trustPrincipal(aliceARN, "sts:AssumeRole", "sts:TagSession"), costIsSet, 0)
	second := e.role(t, "second", trustPrincipal(roleARN("first"), "sts:AssumeRole", "sts:TagSession"), teamIsPayments, 0)
	e.putRolePolicy(t, "second", "cost", costIsSet)
	third := e.role(t, "third", trustPrincipal(roleARN("second"), "sts:AssumeRole", "sts:TagSession"), teamIsPayments, 0)
	untagged := e.role(t, "untagged", trustPrincipal(roleARN("first")), teamIsPayments, 0)

	assume := func(as aws.CredentialsProvider, role string, in sts.AssumeRoleInput) (*sts.AssumeRoleOutput, error) {
		in.RoleArn, in.RoleSessionName = aws.String(role), aws.String("s1")
		return e.stsAs(as).AssumeRole(ctx, &in)
	}
	mustAssume := func(as aws.CredentialsProvider, role string, in sts.AssumeRoleInput) aws.CredentialsProvider {
		t.Helper()
		out, err := assume(as, role, in)
		if err != nil {
			t.Fatalf("AssumeRole %s: %v", role, err)
		}
		return session(out.Credentials)
	}
	// The first session: team transitive, cost not.
	s1 := mustAssume(alice, first, sts.AssumeRoleInput{Tags: tags("team", "payments", "cost", "1"), TransitiveTagKeys: []string{"team"}})
	s2 := mustAssume(s1, second, sts.AssumeRoleInput{})
	s3 := mustAssume(s2, third, sts.AssumeRoleInput{})

	t.Run("requests", func(t *testing.T) {
		listUsers := func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).ListUsers(ctx, &iam.ListUsersInput{})
			return err
		}
		listRoles := func(p aws.CredentialsProvider) error {
			_, err := e.iamAs(p).ListRoles(ctx, &iam.ListRolesInput{})
			return err
		}
		tests := []struct {
			name    string
			request func(aws.CredentialsProvider) error
			as      aws.CredentialsProvider
			allowed bool
		}{
			// "Transitive tags persist during role chaining":
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining
			{"a transitive tag is aws:PrincipalTag of the chained session", listUsers, s2, true},
			// "Heart and Star will continue to be transitive":
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining
			{"an inherited tag stays transitive, one hop further", listUsers, s3, true},
			// The control: the first session has the cost tag ("the
			// request context includes the aws:PrincipalTag context key":
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html).
			{"a tag not marked transitive is the first session's principal tag", listRoles, s1, true},
			// "By default, tags are not passed to subsequent role
			// sessions": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining
			{"a tag not marked transitive is not inherited", listRoles, s2, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				err := tt.request(tt.as)
				if allowed := err == nil; allowed != tt.allowed {
					t.Errorf("allowed %v (%v), want %v", allowed, err, tt.allowed)
				}
				if !tt.allowed && apiCode(err) != "AccessDenied" {
					t.Errorf("error %v, want AccessDenied", err)
				}
			})
		}
	})

	// A first session whose transitive tags take most of the packed size,
	// and one with the most tags a session may carry.
	var heavyTags []ststypes.Tag
	var heavyKeys []string
	for i := range 7 {
		k := fmt.Sprintf("heavy%d", i)
		heavyTags = append(heavyTags, tags(k, strings.Repeat("v", 256))...)
		heavyKeys = append(heavyKeys, k)
	}
	heavy := mustAssume(alice, first, sts.AssumeRoleInput{Tags: heavyTags, TransitiveTagKeys: heavyKeys})
	var manyTags []ststypes.Tag
	var manyKeys []string
	for i := range 50 {
		k := fmt.Sprintf("k%d", i)
		manyTags = append(manyTags, tags(k, "v")...)
		manyKeys = append(manyKeys, k)
	}
	many := mustAssume(alice, first, sts.AssumeRoleInput{Tags: manyTags, TransitiveTagKeys: manyKeys})
	big := tags("extra", strings.Repeat("x", 256))

	tests := []struct {
		name string
		as   aws.CredentialsProvider
		role string
		in   sts.AssumeRoleInput
		// code and words are the error; "" when the call succeeds.
		code, words string
	}{
		// "If you try to pass the Heart = 3 session tag, the operation
		// will fail": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining;
		// "If you pass a session tag with the same key as an inherited tag,
		// the operation fails", keys compared without case: https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
		{"passing an inherited transitive tag again, in another case, is refused", s1, second, sts.AssumeRoleInput{Tags: tags("Team", "search")},
			"InvalidParameterValue", "One of the specified transitive tag keys can't be set because it conflicts with a transitive tag key from the calling session."},
		// The same rule, its value unchanged: https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
		{"passing an inherited tag again, even with its value, is refused", s2, third, sts.AssumeRoleInput{Tags: tags("team", "payments")},
			"InvalidParameterValue", "conflicts with a transitive tag key from the calling session"},
		// "The principal tags for the third session come from any new
		// session tags, the inherited transitive session tags, and the
		// role tags": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining
		{"a new tag beside the inherited ones is allowed", s1, second, sts.AssumeRoleInput{Tags: tags("env", "dev")}, "", ""},
		// Only transitive tags are inherited, so only they are fixed:
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining
		{"a tag the calling session did not mark transitive may be passed again", s1, second, sts.AssumeRoleInput{Tags: tags("cost", "2")}, "", ""},
		// TransitiveTagKeys are "A list of keys for session tags that you
		// want to set as transitive": https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html
		{"a transitive key that names no passed tag is refused", alice, first, sts.AssumeRoleInput{Tags: tags("team", "a"), TransitiveTagKeys: []string{"cost"}},
			"InvalidParameterValue", "The specified transitive tag key must be included in the requested tags."},
		// Carrying transitive tags into a session tags it, which needs
		// sts:TagSession ("Permissions required to add session tags",
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html).
		// The guide does not say so of inherited tags, but STS refuses
		// such a chain and names sts:TagSession.
		{"carrying transitive tags needs sts:TagSession in the chained role's trust policy", s1, untagged, sts.AssumeRoleInput{},
			"AccessDenied", "sts:TagSession on resource: " + untagged},
		// The control: nothing is inherited, nothing tagged:
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html#id_session-tags_role-chaining
		{"a session without transitive tags chains without sts:TagSession", mustAssume(alice, first, sts.AssumeRoleInput{Tags: tags("team", "payments")}), untagged, sts.AssumeRoleInput{}, "", ""},
		// "The total packed size of the session policies and session tags
		// combined is too large" fails the operation, and the inherited
		// tags are the session's tags too:
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
		{"inherited tags count toward the packed size", heavy, second, sts.AssumeRoleInput{Tags: big},
			"PackedPolicyTooLarge", "Packed size of the session policies and tags consumes"},
		// The control: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
		{"the same tag fits when nothing is inherited", alice, first, sts.AssumeRoleInput{Tags: big}, "", ""},
		// "You can pass a maximum of 50 session tags":
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
		{"inherited tags count toward the 50 tags of a session", many, second, sts.AssumeRoleInput{Tags: tags("one", "more")},
			"ValidationError", "The session would carry 51 session tags, 50 of them transitive tags inherited from the calling session"},
		// The boundary: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html
		{"a session may inherit 50 tags", many, second, sts.AssumeRoleInput{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := assume(tt.as, tt.role, tt.in)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("AssumeRole: %v", err)
				}
				return
			}
			wantError(t, "AssumeRole", err, tt.code, tt.words)
		})
	}

	// The packed size of a chained session counts what it inherited ("The
	// PackedPolicySize response element indicates by percentage how close
	// the policies and tags for your request are to the upper size limit":
	// https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRole.html).
	out, err := assume(heavy, second, sts.AssumeRoleInput{})
	if err != nil {
		t.Fatalf("AssumeRole from the heavy session: %v", err)
	}
	if p := packedPolicySize(out); p == nil || *p < 80 {
		t.Errorf("PackedPolicySize of a session inheriting 7 tags of 256 characters = %v, want at least 80", p)
	}
}

// TestSourceIdentityCarriesThroughRoleChains pins source identity along a
// role chain: once set it is aws:SourceIdentity on every request of the
// session and of the sessions chained from it, it is inherited without
// being passed again, passing it again unchanged is allowed, changing it is
// refused, chaining needs sts:SetSourceIdentity, and CloudTrail's record of
// a chained session's requests carries it in
// userIdentity.sessionContext.sourceIdentity.
func TestSourceIdentityCarriesThroughRoleChains(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", "")
	aliceARN := "arn:aws:iam::" + stsAccount + ":user/alice"
	roleARN := func(name string) string { return "arn:aws:iam::" + stsAccount + ":role/" + name }
	sourceIsAlice := allowIf("iam:ListUsers", `{"StringEquals":{"aws:SourceIdentity":"alice"}}`)
	first := e.role(t, "first", trustPrincipal(aliceARN, "sts:AssumeRole", "sts:SetSourceIdentity"), sourceIsAlice, 0)
	// The trust policy of the guide's CriticalRole_2: aws:SourceIdentity
	// of the calling session decides.
	second := e.role(t, "second", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"`+roleARN("first")+`"},
		"Action":["sts:AssumeRole","sts:SetSourceIdentity"],"Condition":{"StringLike":{"aws:SourceIdentity":["alice"]}}}}`, sourceIsAlice, 0)
	third := e.role(t, "third", trustPrincipal(roleARN("second"), "sts:AssumeRole", "sts:SetSourceIdentity"), sourceIsAlice, 0)
	unset := e.role(t, "unset", trustPrincipal(roleARN("first")), sourceIsAlice, 0)

	assumeNamed := func(as aws.CredentialsProvider, role, source, name string) (*sts.AssumeRoleOutput, error) {
		in := sts.AssumeRoleInput{RoleArn: aws.String(role), RoleSessionName: aws.String(name)}
		if source != "" {
			in.SourceIdentity = aws.String(source)
		}
		return e.stsAs(as).AssumeRole(ctx, &in)
	}
	assume := func(as aws.CredentialsProvider, role, source string) (*sts.AssumeRoleOutput, error) {
		return assumeNamed(as, role, source, "s1")
	}
	// Each session has a name of its own, so that the audit records tell
	// them apart.
	mustAssume := func(as aws.CredentialsProvider, role, source, name, want string) aws.CredentialsProvider {
		t.Helper()
		out, err := assumeNamed(as, role, source, name)
		if err != nil {
			t.Fatalf("AssumeRole %s: %v", role, err)
		}
		if got := aws.ToString(out.SourceIdentity); got != want {
			t.Fatalf("AssumeRole %s: SourceIdentity %q, want %q", role, got, want)
		}
		return session(out.Credentials)
	}
	s1 := mustAssume(alice, first, "alice", "s1", "alice")
	anonymous := mustAssume(alice, first, "", "anonymous", "")
	s2 := mustAssume(s1, second, "", "s2", "alice")
	s3 := mustAssume(s2, third, "", "s3", "alice")

	t.Run("chaining", func(t *testing.T) {
		tests := []struct {
			name, role, source string
			as                 aws.CredentialsProvider
			// code and words are the error; "" when the call succeeds.
			code, words string
		}{
			// "The source identity was set during the assumption of
			// CriticalRole, so it does not need to be explicitly set
			// again": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"a chained session inherits the source identity without passing it", second, "", s1, "", ""},
			// Only "a source identity that is different" is denied:
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"passing the inherited source identity again is allowed", second, "alice", s1, "", ""},
			// "The value that is set persists when a role is used to
			// assume another role": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"the source identity reaches every session of the chain", third, "", s2, "", ""},
			// "If the user attempts to set a source identity that is
			// different from the value set when CriticalRole was assumed,
			// the assume role request will be denied":
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"changing the source identity in a chain is refused", second, "mallory", s1,
				"ValidationError", "The source identity is already set for this assume role session"},
			// "When you assume a role with another role, called role
			// chaining, permissions for sts:SetSourceIdentity are required
			// ... in the role trust policy of the target role":
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"carrying a source identity needs sts:SetSourceIdentity in the chained role's trust policy", unset, "", s1,
				"AccessDenied", "sts:SetSourceIdentity on resource: " + unset},
			// The trust policy of the guide's CriticalRole_2 tests
			// aws:SourceIdentity, the calling session's source identity:
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"a session without a source identity does not match aws:SourceIdentity", second, "", anonymous,
				"AccessDenied", "sts:AssumeRole on resource: " + second},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				out, err := assume(tt.as, tt.role, tt.source)
				if tt.code != "" {
					wantError(t, "AssumeRole", err, tt.code, tt.words)
					return
				}
				if err != nil {
					t.Fatalf("AssumeRole: %v", err)
				}
				if got := aws.ToString(out.SourceIdentity); got != "alice" {
					t.Errorf("SourceIdentity of the chained session %q, want alice", got)
				}
			})
		}
	})

	// "After a source identity is set, the aws:SourceIdentity key is
	// present in all subsequent requests made during the role session":
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
	t.Run("requests", func(t *testing.T) {
		tests := []struct {
			name    string
			as      aws.CredentialsProvider
			allowed bool
		}{
			// "After a source identity is set, ... present in all
			// subsequent requests": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"the session that set it has aws:SourceIdentity", s1, true},
			// "persists when a role is used to assume another role":
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
			{"a chained session has aws:SourceIdentity", s2, true},
			{"a session two hops on has aws:SourceIdentity", s3, true},
			// The key is present only once set:
			// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-sourceidentity
			{"a session without one matches no aws:SourceIdentity condition", anonymous, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := e.iamAs(tt.as).ListUsers(ctx, &iam.ListUsersInput{})
				if allowed := err == nil; allowed != tt.allowed {
					t.Errorf("ListUsers allowed %v (%v), want %v", allowed, err, tt.allowed)
				}
			})
		}
	})

	// "If the user uses the assumed role session to perform an action, the
	// source identity information is present in the userIdentity key in
	// the CloudTrail log": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html
	t.Run("audit", func(t *testing.T) {
		want := map[string]string{}
		for role, p := range map[string]aws.CredentialsProvider{"first": s1, "second": s2, "third": s3} {
			arn, err := e.whoAmI(p)
			if err != nil {
				t.Fatalf("GetCallerIdentity as %s: %v", role, err)
			}
			want[arn] = "alice"
		}
		anonARN, err := e.whoAmI(anonymous)
		if err != nil {
			t.Fatal(err)
		}
		want[anonARN] = ""
		seen := map[string]bool{}
		for _, ev := range auditEvents(t, e.dir) {
			id := ev.UserIdentity
			wantSource, ok := want[id.ARN]
			if !ok || ev.EventName != "GetCallerIdentity" {
				continue
			}
			if id.SessionContext == nil {
				t.Errorf("GetCallerIdentity by %s: no session context", id.ARN)
				continue
			}
			if got := id.SessionContext.SourceIdentity; got != wantSource {
				t.Errorf("GetCallerIdentity by %s: sessionContext.sourceIdentity %q, want %q", id.ARN, got, wantSource)
			}
			seen[id.ARN] = true
		}
		if len(seen) != len(want) {
			t.Errorf("audit records of GetCallerIdentity for %v, want one for each of %v", seen, want)
		}
	})
}
