package localaws_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

const (
	readS3   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`
	readS3v2 = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket"],"Resource":"*"}]}`
	trustEC2 = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
)

// detailsAccount is an account of users, roles and managed policies that
// spans several pages of MaxItems 2: every kind of entity, inline and
// attached policies, boundaries (an AWS managed one used only as a
// boundary), tags and a policy with two versions.
func detailsAccount(t *testing.T) (*localtest.Endpoint, *iam.Client) {
	t.Helper()
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	local := "arn:aws:iam::" + account + ":policy/team/read-s3"
	_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read-s3"), Path: aws.String("/team/"), PolicyDocument: aws.String(readS3), Description: aws.String("reads b")})
	step("CreatePolicy read-s3", err)
	_, err = admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(local), PolicyDocument: aws.String(readS3v2), SetAsDefault: true})
	step("CreatePolicyVersion", err)
	for _, name := range []string{"unused-1", "unused-2"} {
		_, err = admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(name), PolicyDocument: aws.String(readS3)})
		step("CreatePolicy "+name, err)
	}
	for i := range 4 {
		name := fmt.Sprintf("user-%d", i)
		in := &iam.CreateUserInput{UserName: aws.String(name), Path: aws.String("/eng/")}
		if i == 0 {
			in.PermissionsBoundary = aws.String(local)
			in.Tags = []types.Tag{tag("team", "data")}
		}
		_, err = admin.CreateUser(ctx, in)
		step("CreateUser "+name, err)
		_, err = admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("inline"), PolicyDocument: aws.String(readS3)})
		step("PutUserPolicy "+name, err)
	}
	_, err = admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("user-1"), PolicyArn: aws.String(local)})
	step("AttachUserPolicy", err)
	for i := range 3 {
		name := fmt.Sprintf("role-%d", i)
		in := &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trustEC2)}
		if i == 0 {
			in.PermissionsBoundary = aws.String("arn:aws:iam::aws:policy/AdministratorAccess")
		}
		_, err = admin.CreateRole(ctx, in)
		step("CreateRole "+name, err)
	}
	_, err = admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("role-1"), PolicyArn: aws.String("arn:aws:iam::aws:policy/IAMReadOnlyAccess")})
	step("AttachRolePolicy", err)
	_, err = admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("role-2"), PolicyName: aws.String("inline"), PolicyDocument: aws.String(readS3)})
	step("PutRolePolicy", err)
	return e, admin
}

// names are the entities of a page or snapshot as "kind name".
func names(users []types.UserDetail, groups []types.GroupDetail, roles []types.RoleDetail, policies []types.ManagedPolicyDetail) []string {
	var out []string
	for _, u := range users {
		out = append(out, "user "+aws.ToString(u.UserName))
	}
	for _, g := range groups {
		out = append(out, "group "+aws.ToString(g.GroupName))
	}
	for _, r := range roles {
		out = append(out, "role "+aws.ToString(r.RoleName))
	}
	for _, p := range policies {
		out = append(out, "policy "+aws.ToString(p.Arn))
	}
	return out
}

// expectedEntities are the entities of detailsAccount: its users and roles
// as ListUsers and ListRoles give them (the administrator's own among
// them), the account's managed policies, and the AWS managed policies in
// use, but not IAMFullAccess, which nothing uses.
func expectedEntities(t *testing.T, admin *iam.Client) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	users := must[*iam.ListUsersOutput](t, "ListUsers")(admin.ListUsers(ctx, &iam.ListUsersInput{}))
	for _, u := range users.Users {
		out = append(out, "user "+aws.ToString(u.UserName))
	}
	roles := must[*iam.ListRolesOutput](t, "ListRoles")(admin.ListRoles(ctx, &iam.ListRolesInput{}))
	for _, r := range roles.Roles {
		out = append(out, "role "+aws.ToString(r.RoleName))
	}
	pols := must[*iam.ListPoliciesOutput](t, "ListPolicies")(admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: types.PolicyScopeTypeLocal}))
	for _, p := range pols.Policies {
		out = append(out, "policy "+aws.ToString(p.Arn))
	}
	out = append(out, "policy arn:aws:iam::aws:policy/AdministratorAccess", "policy arn:aws:iam::aws:policy/IAMReadOnlyAccess")
	sort.Strings(out)
	return out
}

// TestAccountAuthorizationDetailsPagesEveryEntityOnce pages with MaxItems
// 2 across the four lists and checks that every entity comes exactly once,
// that only the last page is not truncated, and that leash's paginating
// client reads the same snapshot.
func TestAccountAuthorizationDetailsPagesEveryEntityOnce(t *testing.T) {
	e, admin := detailsAccount(t)
	ctx := context.Background()
	want := expectedEntities(t, admin)

	var got []string
	pages := 0
	in := &iam.GetAccountAuthorizationDetailsInput{MaxItems: aws.Int32(2)}
	for {
		out, err := admin.GetAccountAuthorizationDetails(ctx, in)
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		page := names(out.UserDetailList, out.GroupDetailList, out.RoleDetailList, out.Policies)
		if len(page) > 2 || (out.IsTruncated && len(page) != 2) {
			t.Fatalf("page %d has %d items (IsTruncated %v), want 2 on every page but the last", pages, len(page), out.IsTruncated)
		}
		got = append(got, page...)
		if !out.IsTruncated {
			if out.Marker != nil {
				t.Errorf("last page has Marker %q", aws.ToString(out.Marker))
			}
			break
		}
		in.Marker = out.Marker
	}
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("paged entities:\n%s\nwant each once:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if wantPages := (len(want) + 1) / 2; pages != wantPages {
		t.Errorf("%d pages, want %d", pages, wantPages)
	}

	whole, err := e.Client().AccountAuthorizationDetails(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all := names(whole.UserDetailList, whole.GroupDetailList, whole.RoleDetailList, whole.Policies)
	sort.Strings(all)
	if !slices.Equal(all, want) {
		t.Errorf("iamclient.AccountAuthorizationDetails read:\n%s\nwant:\n%s", strings.Join(all, "\n"), strings.Join(want, "\n"))
	}
}

// TestAccountAuthorizationDetailsCarriesEveryDocument checks the details
// of each kind: URL-encoded inline, trust and version documents that
// decode to what was written, attachments with names, boundaries, tags,
// every version of a managed policy with the default marked, and the use
// counts of AWS managed policies.
func TestAccountAuthorizationDetailsCarriesEveryDocument(t *testing.T) {
	_, admin := detailsAccount(t)
	out := must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(
		admin.GetAccountAuthorizationDetails(context.Background(), &iam.GetAccountAuthorizationDetailsInput{MaxItems: aws.Int32(1000)}))
	local := "arn:aws:iam::" + account + ":policy/team/read-s3"

	user := func(name string) types.UserDetail {
		for _, u := range out.UserDetailList {
			if aws.ToString(u.UserName) == name {
				return u
			}
		}
		t.Fatalf("no user %s", name)
		return types.UserDetail{}
	}
	u0 := user("user-0")
	if aws.ToString(u0.Arn) != "arn:aws:iam::"+account+":user/eng/user-0" || aws.ToString(u0.Path) != "/eng/" || u0.CreateDate == nil || !strings.HasPrefix(aws.ToString(u0.UserId), "AIDA") {
		t.Errorf("user-0: Arn %q Path %q UserId %q CreateDate %v", aws.ToString(u0.Arn), aws.ToString(u0.Path), aws.ToString(u0.UserId), u0.CreateDate)
	}
	if len(u0.UserPolicyList) != 1 || aws.ToString(u0.UserPolicyList[0].PolicyName) != "inline" || decoded(t, u0.UserPolicyList[0].PolicyDocument) != readS3 {
		t.Errorf("user-0 UserPolicyList = %+v, want inline with the document written", u0.UserPolicyList)
	}
	if b := u0.PermissionsBoundary; b == nil || aws.ToString(b.PermissionsBoundaryArn) != local || b.PermissionsBoundaryType != types.PermissionsBoundaryAttachmentTypePolicy {
		t.Errorf("user-0 PermissionsBoundary = %+v, want %s", b, local)
	}
	if tagMap(u0.Tags)["team"] != "data" {
		t.Errorf("user-0 Tags = %v", tagMap(u0.Tags))
	}
	if u0.GroupList == nil || len(u0.GroupList) != 0 {
		t.Errorf("user-0 GroupList = %v, want present and empty (user-0 is in no group)", u0.GroupList)
	}
	if a := user("user-1").AttachedManagedPolicies; len(a) != 1 || aws.ToString(a[0].PolicyArn) != local || aws.ToString(a[0].PolicyName) != "read-s3" {
		t.Errorf("user-1 AttachedManagedPolicies = %+v, want read-s3", a)
	}
	if len(out.GroupDetailList) != 0 {
		t.Errorf("GroupDetailList = %+v, want empty", out.GroupDetailList)
	}

	roles := map[string]types.RoleDetail{}
	for _, r := range out.RoleDetailList {
		roles[aws.ToString(r.RoleName)] = r
	}
	if r := roles["role-0"]; decoded(t, r.AssumeRolePolicyDocument) != trustEC2 || r.PermissionsBoundary == nil ||
		aws.ToString(r.PermissionsBoundary.PermissionsBoundaryArn) != "arn:aws:iam::aws:policy/AdministratorAccess" || r.InstanceProfileList == nil {
		t.Errorf("role-0: trust %q boundary %+v InstanceProfileList %v", decoded(t, r.AssumeRolePolicyDocument), r.PermissionsBoundary, r.InstanceProfileList)
	}
	if a := roles["role-1"].AttachedManagedPolicies; len(a) != 1 || aws.ToString(a[0].PolicyName) != "IAMReadOnlyAccess" {
		t.Errorf("role-1 AttachedManagedPolicies = %+v, want IAMReadOnlyAccess", a)
	}
	if l := roles["role-2"].RolePolicyList; len(l) != 1 || decoded(t, l[0].PolicyDocument) != readS3 {
		t.Errorf("role-2 RolePolicyList = %+v", l)
	}

	policies := map[string]types.ManagedPolicyDetail{}
	for _, p := range out.Policies {
		policies[aws.ToString(p.Arn)] = p
	}
	p := policies[local]
	if aws.ToString(p.DefaultVersionId) != "v2" || aws.ToInt32(p.AttachmentCount) != 1 || aws.ToInt32(p.PermissionsBoundaryUsageCount) != 1 ||
		!p.IsAttachable || aws.ToString(p.Description) != "reads b" || aws.ToString(p.Path) != "/team/" {
		t.Errorf("read-s3: DefaultVersionId %q AttachmentCount %d PermissionsBoundaryUsageCount %d IsAttachable %v Description %q Path %q",
			aws.ToString(p.DefaultVersionId), aws.ToInt32(p.AttachmentCount), aws.ToInt32(p.PermissionsBoundaryUsageCount), p.IsAttachable, aws.ToString(p.Description), aws.ToString(p.Path))
	}
	docs := map[string]string{}
	for _, v := range p.PolicyVersionList {
		docs[aws.ToString(v.VersionId)] = decoded(t, v.Document)
		if v.IsDefaultVersion != (aws.ToString(v.VersionId) == "v2") {
			t.Errorf("read-s3 %s IsDefaultVersion %v", aws.ToString(v.VersionId), v.IsDefaultVersion)
		}
	}
	if docs["v1"] != readS3 || docs["v2"] != readS3v2 || len(docs) != 2 {
		t.Errorf("read-s3 versions = %v, want v1 and v2 with their documents", docs)
	}
	if a := policies["arn:aws:iam::aws:policy/IAMReadOnlyAccess"]; aws.ToInt32(a.AttachmentCount) != 1 || len(a.PolicyVersionList) != 1 ||
		!strings.Contains(decoded(t, a.PolicyVersionList[0].Document), "iam:List*") {
		t.Errorf("IAMReadOnlyAccess: AttachmentCount %d, versions %+v", aws.ToInt32(a.AttachmentCount), a.PolicyVersionList)
	}
	if a := policies["arn:aws:iam::aws:policy/AdministratorAccess"]; aws.ToInt32(a.PermissionsBoundaryUsageCount) != 1 || aws.ToInt32(a.AttachmentCount) != 0 {
		t.Errorf("AdministratorAccess: PermissionsBoundaryUsageCount %d AttachmentCount %d, want 1 and 0", aws.ToInt32(a.PermissionsBoundaryUsageCount), aws.ToInt32(a.AttachmentCount))
	}
	if _, ok := policies["arn:aws:iam::aws:policy/IAMFullAccess"]; ok {
		t.Error("IAMFullAccess is listed though nothing uses it")
	}
}

// TestAccountAuthorizationDetailsFilters pins that Filter selects entity
// types, LocalManagedPolicy the account's policies and AWSManagedPolicy
// the AWS managed ones in use.
func TestAccountAuthorizationDetailsFilters(t *testing.T) {
	_, admin := detailsAccount(t)
	want := expectedEntities(t, admin)
	only := func(prefixes ...string) []string {
		var out []string
		for _, w := range want {
			for _, p := range prefixes {
				if strings.HasPrefix(w, p) {
					out = append(out, w)
				}
			}
		}
		return out
	}
	tests := []struct {
		name   string
		filter []types.EntityType
		want   []string
	}{
		{"User gives only users", []types.EntityType{types.EntityTypeUser}, only("user ")},
		{"Role gives only roles", []types.EntityType{types.EntityTypeRole}, only("role ")},
		{"Group gives the groups, none in this account", []types.EntityType{types.EntityTypeGroup}, nil},
		{"LocalManagedPolicy gives the account's policies", []types.EntityType{types.EntityTypeLocalManagedPolicy}, only("policy arn:aws:iam::" + account)},
		{"AWSManagedPolicy gives the AWS managed policies in use", []types.EntityType{types.EntityTypeAWSManagedPolicy}, only("policy arn:aws:iam::aws:")},
		{"User and Role give both", []types.EntityType{types.EntityTypeRole, types.EntityTypeUser}, only("user ", "role ")},
		{"no filter gives everything", nil, want},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := admin.GetAccountAuthorizationDetails(context.Background(), &iam.GetAccountAuthorizationDetailsInput{Filter: tt.filter, MaxItems: aws.Int32(1000)})
			if err != nil {
				t.Fatal(err)
			}
			got := names(out.UserDetailList, out.GroupDetailList, out.RoleDetailList, out.Policies)
			sort.Strings(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestAccountAuthorizationDetailsRefusesBadInput pins IAM's errors for a
// page size out of range, a marker it did not give, and an unknown entity
// type.
func TestAccountAuthorizationDetailsRefusesBadInput(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	tests := []struct {
		name     string
		in       iam.GetAccountAuthorizationDetailsInput
		code     string
		contains string
	}{
		{"MaxItems 0 is below the range", iam.GetAccountAuthorizationDetailsInput{MaxItems: aws.Int32(0)}, "ValidationError", "Member must have value greater than or equal to 1"},
		{"MaxItems 1001 is above the range", iam.GetAccountAuthorizationDetailsInput{MaxItems: aws.Int32(1001)}, "ValidationError", "Member must have value less than or equal to 1000"},
		{"a Marker IAM did not give is refused", iam.GetAccountAuthorizationDetailsInput{Marker: aws.String("not-a-marker")}, "InvalidInput", "Invalid Marker."},
		{"a Marker past the end is refused", iam.GetAccountAuthorizationDetailsInput{Marker: aws.String("9999")}, "InvalidInput", "Invalid Marker."},
		{"an unknown entity type is refused with the valid ones", iam.GetAccountAuthorizationDetailsInput{Filter: []types.EntityType{"Users"}}, "ValidationError",
			"Value '[Users]' at 'filter' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [User, Role, Group, LocalManagedPolicy, AWSManagedPolicy]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := admin.GetAccountAuthorizationDetails(context.Background(), &tt.in)
			if apiCode(err) != tt.code || !strings.Contains(err.Error(), tt.contains) {
				t.Fatalf("err = %v, want %s containing %q", err, tt.code, tt.contains)
			}
		})
	}
}

// TestAccountAuthorizationDetailsNeedsPermissionOnStar checks the
// authorization: a user without the permission is refused on resource
// "*", and one allowed iam:GetAccountAuthorizationDetails reads the
// account.
func TestAccountAuthorizationDetailsNeedsPermissionOnStar(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	client := func(name, doc string) *iam.Client {
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}))
		if doc != "" {
			must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}))
		}
		k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)}))
		return e.IAM(credentials.NewStaticCredentialsProvider(aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey), ""))
	}
	tests := []struct {
		name   string
		policy string
		denied bool
	}{
		{"no policy is denied", "", true},
		{"an allow on users only is denied", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetAccountAuthorizationDetails","Resource":"arn:aws:iam::*:user/*"}]}`, true},
		{"an allow on * reads the account", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetAccountAuthorizationDetails","Resource":"*"}]}`, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("reader-%d", i)
			out, err := client(name, tt.policy).GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{Filter: []types.EntityType{types.EntityTypeUser}})
			if tt.denied {
				want := "User: arn:aws:iam::" + account + ":user/" + name + " is not authorized to perform: iam:GetAccountAuthorizationDetails on resource: *"
				if apiCode(err) != "AccessDenied" || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want AccessDenied: %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(names(out.UserDetailList, nil, nil, nil), "user "+name) {
				t.Errorf("the allowed reader's snapshot lacks the reader: %v", names(out.UserDetailList, nil, nil, nil))
			}
		})
	}
}
