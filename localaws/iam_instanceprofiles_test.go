package localaws_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// wantExactRefusal fails unless err is an API error with code and, when message
// is not "", that message.
func wantExactRefusal(t *testing.T, what string, err error, code, message string) {
	t.Helper()
	var api smithy.APIError
	if !errors.As(err, &api) || api.ErrorCode() != code || (message != "" && api.ErrorMessage() != message) {
		t.Errorf("%s: %v, want %s %q", what, err, code, message)
	}
}

// profileNames are the names of the instance profiles, in order.
func profileNames(ps []types.InstanceProfile) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, aws.ToString(p.InstanceProfileName))
	}
	return out
}

func TestInstanceProfileLifecycle(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	role := must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("web"), Path: aws.String("/srv/"), AssumeRolePolicyDocument: aws.String(trustEC2)})).Role
	must[*iam.CreateRoleOutput](t, "CreateRole other")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("other"), AssumeRolePolicyDocument: aws.String(trustEC2)}))

	created := must[*iam.CreateInstanceProfileOutput](t, "CreateInstanceProfile")(admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
		InstanceProfileName: aws.String("web"), Path: aws.String("/app/"), Tags: []types.Tag{tag("team", "blue")},
	})).InstanceProfile
	if aws.ToString(created.Arn) != "arn:aws:iam::"+account+":instance-profile/app/web" || !strings.HasPrefix(aws.ToString(created.InstanceProfileId), "AIPA") ||
		len(aws.ToString(created.InstanceProfileId)) != 21 || aws.ToString(created.Path) != "/app/" || len(created.Roles) != 0 ||
		tagMap(created.Tags)["team"] != "blue" || created.CreateDate == nil {
		t.Errorf("CreateInstanceProfile = %+v", created)
	}
	for _, name := range []string{"web-2", "empty"} {
		must[*iam.CreateInstanceProfileOutput](t, "CreateInstanceProfile "+name)(admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String(name)}))
	}

	refusals := []struct {
		name, code, message string
		call                func() error
	}{
		{"a profile name is taken whatever its case", "EntityAlreadyExists", "Instance Profile WEB already exists.", func() error {
			_, err := admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("WEB")})
			return err
		}},
		{"a profile name has IAM's characters", "ValidationError", "", func() error {
			_, err := admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("a b")})
			return err
		}},
		{"an unknown profile cannot be read", "NoSuchEntity", "Instance Profile nope cannot be found.", func() error {
			_, err := admin.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("nope")})
			return err
		}},
		{"an unknown role cannot be added", "NoSuchEntity", "The role with name ghost cannot be found.", func() error {
			_, err := admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("empty"), RoleName: aws.String("ghost")})
			return err
		}},
		{"a role cannot be added to an unknown profile", "NoSuchEntity", "Instance Profile nope cannot be found.", func() error {
			_, err := admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("nope"), RoleName: aws.String("web")})
			return err
		}},
		{"an unknown role has no profiles to list", "NoSuchEntity", "The role with name ghost cannot be found.", func() error {
			_, err := admin.ListInstanceProfilesForRole(ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("ghost")})
			return err
		}},
		{"a role not in the profile cannot be removed", "NoSuchEntity", "", func() error {
			_, err := admin.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String("empty"), RoleName: aws.String("web")})
			return err
		}},
	}
	for _, r := range refusals {
		wantExactRefusal(t, r.name, r.call(), r.code, r.message)
	}

	for _, name := range []string{"web", "web-2"} {
		must[*iam.AddRoleToInstanceProfileOutput](t, "AddRoleToInstanceProfile "+name)(admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String("WEB")}))
	}
	got := must[*iam.GetInstanceProfileOutput](t, "GetInstanceProfile")(admin.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("Web")})).InstanceProfile
	if len(got.Roles) != 1 || aws.ToString(got.Roles[0].RoleName) != "web" || aws.ToString(got.Roles[0].RoleId) != aws.ToString(role.RoleId) ||
		aws.ToString(got.Roles[0].Arn) != aws.ToString(role.Arn) || aws.ToString(got.Roles[0].Path) != "/srv/" ||
		decoded(t, got.Roles[0].AssumeRolePolicyDocument) != trustEC2 || got.Roles[0].Tags != nil || got.Roles[0].MaxSessionDuration != nil {
		t.Errorf("GetInstanceProfile roles = %+v, want the role web as IAM shows it in a profile", got.Roles)
	}

	// At most one role, and a role in a profile blocks both deletes.
	_, err := admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("web"), RoleName: aws.String("other")})
	wantExactRefusal(t, "a second role", err, "LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")
	_, err = admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("web"), RoleName: aws.String("web")})
	wantExactRefusal(t, "the same role again", err, "LimitExceeded", "Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1")
	_, err = admin.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String("web")})
	wantExactRefusal(t, "DeleteInstanceProfile with a role", err, "DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.")
	_, err = admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("web")})
	wantExactRefusal(t, "DeleteRole in a profile", err, "DeleteConflict", "Cannot delete entity, must remove roles from instance profile first.")

	// Paging: the role's two profiles one at a time, and every profile.
	first := must[*iam.ListInstanceProfilesForRoleOutput](t, "ListInstanceProfilesForRole")(admin.ListInstanceProfilesForRole(ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("web"), MaxItems: aws.Int32(1)}))
	if !first.IsTruncated || first.Marker == nil || !slices.Equal(profileNames(first.InstanceProfiles), []string{"web"}) {
		t.Fatalf("ListInstanceProfilesForRole page 1 = %v truncated %v", profileNames(first.InstanceProfiles), first.IsTruncated)
	}
	second := must[*iam.ListInstanceProfilesForRoleOutput](t, "ListInstanceProfilesForRole")(admin.ListInstanceProfilesForRole(ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("web"), MaxItems: aws.Int32(1), Marker: first.Marker}))
	if second.IsTruncated || !slices.Equal(profileNames(second.InstanceProfiles), []string{"web-2"}) || len(second.InstanceProfiles[0].Roles) != 1 {
		t.Errorf("ListInstanceProfilesForRole page 2 = %+v", second.InstanceProfiles)
	}
	var all []string
	for p := iam.NewListInstanceProfilesPaginator(admin, &iam.ListInstanceProfilesInput{MaxItems: aws.Int32(2)}); p.HasMorePages(); {
		page := must[*iam.ListInstanceProfilesOutput](t, "ListInstanceProfiles")(p.NextPage(ctx))
		for _, ip := range page.InstanceProfiles {
			if ip.Tags != nil {
				t.Errorf("ListInstanceProfiles shows %s's tags, which IAM leaves out", aws.ToString(ip.InstanceProfileName))
			}
		}
		all = append(all, profileNames(page.InstanceProfiles)...)
	}
	if !slices.Equal(all, []string{"empty", "web", "web-2"}) {
		t.Errorf("ListInstanceProfiles = %v", all)
	}
	under := must[*iam.ListInstanceProfilesOutput](t, "ListInstanceProfiles")(admin.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{PathPrefix: aws.String("/app/")}))
	if !slices.Equal(profileNames(under.InstanceProfiles), []string{"web"}) {
		t.Errorf("ListInstanceProfiles under /app/ = %v", profileNames(under.InstanceProfiles))
	}

	// Tags.
	must[*iam.TagInstanceProfileOutput](t, "TagInstanceProfile")(admin.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: aws.String("web"), Tags: []types.Tag{tag("env", "prod")}}))
	// An instance profile's tag keys are case sensitive
	// (https://docs.aws.amazon.com/IAM/latest/UserGuide/id_tags.html#id_tags_rules_creating):
	// untagging TEAM leaves team.
	must[*iam.UntagInstanceProfileOutput](t, "UntagInstanceProfile")(admin.UntagInstanceProfile(ctx, &iam.UntagInstanceProfileInput{InstanceProfileName: aws.String("web"), TagKeys: []string{"TEAM"}}))
	tags := must[*iam.ListInstanceProfileTagsOutput](t, "ListInstanceProfileTags")(admin.ListInstanceProfileTags(ctx, &iam.ListInstanceProfileTagsInput{InstanceProfileName: aws.String("web")}))
	if m := tagMap(tags.Tags); len(m) != 2 || m["team"] != "blue" {
		t.Errorf("profile tags after untagging TEAM = %v, want team=blue kept", m)
	}
	must[*iam.UntagInstanceProfileOutput](t, "UntagInstanceProfile")(admin.UntagInstanceProfile(ctx, &iam.UntagInstanceProfileInput{InstanceProfileName: aws.String("web"), TagKeys: []string{"team"}}))
	tags = must[*iam.ListInstanceProfileTagsOutput](t, "ListInstanceProfileTags")(admin.ListInstanceProfileTags(ctx, &iam.ListInstanceProfileTagsInput{InstanceProfileName: aws.String("web")}))
	if m := tagMap(tags.Tags); len(m) != 1 || m["env"] != "prod" {
		t.Errorf("profile tags = %v, want env=prod alone", m)
	}
	_, err = admin.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: aws.String("nope"), Tags: []types.Tag{tag("env", "prod")}})
	wantExactRefusal(t, "TagInstanceProfile of an unknown profile", err, "NoSuchEntity", "Instance Profile nope cannot be found.")

	// The account snapshot shows the role's profiles with the role inside.
	details := must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(admin.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{Filter: []types.EntityType{types.EntityTypeRole}}))
	for _, r := range details.RoleDetailList {
		want := map[string][]string{"web": {"web", "web-2"}, "other": {}}[aws.ToString(r.RoleName)]
		if !slices.Equal(profileNames(r.InstanceProfileList), want) {
			t.Errorf("role %s's InstanceProfileList = %v, want %v", aws.ToString(r.RoleName), profileNames(r.InstanceProfileList), want)
		}
		for _, ip := range r.InstanceProfileList {
			if len(ip.Roles) != 1 || aws.ToString(ip.Roles[0].RoleName) != "web" {
				t.Errorf("profile %s in the snapshot holds %+v", aws.ToString(ip.InstanceProfileName), ip.Roles)
			}
		}
	}

	// Tear-down in Terraform's order: the role out of its profiles, the
	// profiles, then the role.
	for _, name := range []string{"web", "web-2"} {
		must[*iam.RemoveRoleFromInstanceProfileOutput](t, "RemoveRoleFromInstanceProfile")(admin.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String("web")}))
	}
	left := must[*iam.ListInstanceProfilesForRoleOutput](t, "ListInstanceProfilesForRole")(admin.ListInstanceProfilesForRole(ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("web")}))
	if len(left.InstanceProfiles) != 0 {
		t.Errorf("the role is still in %v", profileNames(left.InstanceProfiles))
	}
	for _, name := range []string{"web", "web-2", "empty"} {
		must[*iam.DeleteInstanceProfileOutput](t, "DeleteInstanceProfile "+name)(admin.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(name)}))
	}
	must[*iam.DeleteRoleOutput](t, "DeleteRole")(admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("web")}))
	_, err = admin.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")})
	wantExactRefusal(t, "GetInstanceProfile after DeleteInstanceProfile", err, "NoSuchEntity", "Instance Profile web cannot be found.")
}

// TestInstanceProfileAuthorization pins what each operation is authorized
// against: the profile's ARN (with its path) for the profile's own actions,
// and iam:PassRole on the role as well for AddRoleToInstanceProfile.
func TestInstanceProfileAuthorization(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("web"), AssumeRolePolicyDocument: aws.String(trustEC2)}))
	for _, in := range []*iam.CreateInstanceProfileInput{
		{InstanceProfileName: aws.String("web"), Path: aws.String("/app/")},
		{InstanceProfileName: aws.String("db"), Path: aws.String("/data/")},
	} {
		must[*iam.CreateInstanceProfileOutput](t, "CreateInstanceProfile")(admin.CreateInstanceProfile(ctx, in))
	}
	appOnly := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetInstanceProfile","iam:AddRoleToInstanceProfile"],"Resource":"arn:aws:iam::*:instance-profile/app/*"}]}`
	withPass := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:GetInstanceProfile","iam:AddRoleToInstanceProfile"],"Resource":"arn:aws:iam::*:instance-profile/app/*"},` +
		`{"Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws:iam::*:role/web"}]}`
	client := func(name, policy string) *iam.Client {
		t.Helper()
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}))
		must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(policy)}))
		k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})).AccessKey
		return e.IAM(credentials.NewStaticCredentialsProvider(aws.ToString(k.AccessKeyId), aws.ToString(k.SecretAccessKey), ""))
	}
	noPass, pass := client("no-pass", appOnly), client("pass", withPass)
	// PassRole only to EC2 instances of the account, as AWS's reference
	// says such a policy must be written, or only to Lambda.
	toService := func(service string) string {
		return `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:AddRoleToInstanceProfile","Resource":"*"},` +
			`{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"` + service + `"},` +
			`"StringLike":{"iam:AssociatedResourceArn":"arn:aws:ec2:*:` + account + `:instance/*"}}}]}`
	}
	toEC2, toLambda := client("to-ec2", toService("ec2.amazonaws.com")), client("to-lambda", toService("lambda.amazonaws.com"))
	must[*iam.CreateInstanceProfileOutput](t, "CreateInstanceProfile")(admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("ec2")}))

	tests := []struct {
		name string
		call func() error
		code string // "" for allowed
	}{
		{"a profile under the allowed path is readable", func() error {
			_, err := noPass.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")})
			return err
		}, ""},
		{"a profile under another path is not", func() error {
			_, err := noPass.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("db")})
			return err
		}, "AccessDenied"},
		{"adding a role needs iam:PassRole on it", func() error {
			_, err := noPass.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("web"), RoleName: aws.String("web")})
			return err
		}, "AccessDenied"},
		{"with iam:PassRole the role is added", func() error {
			_, err := pass.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("web"), RoleName: aws.String("web")})
			return err
		}, ""},
		{"iam:PassRole passes the role to EC2", func() error {
			_, err := toLambda.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("ec2"), RoleName: aws.String("web")})
			return err
		}, "AccessDenied"},
		{"for the account's instances in any region", func() error {
			_, err := toEC2.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("ec2"), RoleName: aws.String("web")})
			return err
		}, ""},
		{"listing profiles is not granted by a profile ARN under a path", func() error {
			_, err := pass.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{})
			return err
		}, "AccessDenied"},
	}
	for _, tt := range tests {
		err := tt.call()
		if tt.code == "" && err != nil {
			t.Errorf("%s: %v, want allowed", tt.name, err)
		}
		if tt.code != "" {
			wantCode(t, tt.name, err, tt.code)
		}
	}
	got := must[*iam.GetInstanceProfileOutput](t, "GetInstanceProfile")(admin.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")}))
	if len(got.InstanceProfile.Roles) != 1 {
		t.Errorf("after the refused and the allowed AddRoleToInstanceProfile the profile holds %d roles, want 1", len(got.InstanceProfile.Roles))
	}
}
