package localaws_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestManagedPolicyVersions(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	v1 := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`
	v2 := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:PutObject","Resource":"*"}}`
	p := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{
		PolicyName: aws.String("s3-read"), Path: aws.String("/data/"), PolicyDocument: aws.String(v1),
		Description: aws.String("reads"), Tags: []types.Tag{tag("team", "blue")},
	})).Policy
	arn := p.Arn
	if aws.ToString(arn) != "arn:aws:iam::"+account+":policy/data/s3-read" || aws.ToString(p.DefaultVersionId) != "v1" ||
		!strings.HasPrefix(aws.ToString(p.PolicyId), "ANPA") || !p.IsAttachable || aws.ToInt32(p.AttachmentCount) != 0 || tagMap(p.Tags)["team"] != "blue" {
		t.Errorf("CreatePolicy = %+v", p)
	}
	got := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})).Policy
	if aws.ToString(got.Description) != "reads" || aws.ToString(got.PolicyName) != "s3-read" || aws.ToString(got.Path) != "/data/" {
		t.Errorf("GetPolicy = %+v", got)
	}

	must[*iam.TagPolicyOutput](t, "TagPolicy")(admin.TagPolicy(ctx, &iam.TagPolicyInput{PolicyArn: arn, Tags: []types.Tag{tag("env", "prod")}}))
	must[*iam.UntagPolicyOutput](t, "UntagPolicy")(admin.UntagPolicy(ctx, &iam.UntagPolicyInput{PolicyArn: arn, TagKeys: []string{"team"}}))
	if tags := tagMap(must[*iam.ListPolicyTagsOutput](t, "ListPolicyTags")(admin.ListPolicyTags(ctx, &iam.ListPolicyTagsInput{PolicyArn: arn})).Tags); len(tags) != 1 || tags["env"] != "prod" {
		t.Errorf("policy tags = %v, want env=prod alone", tags)
	}

	created := must[*iam.CreatePolicyVersionOutput](t, "CreatePolicyVersion")(admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: arn, PolicyDocument: aws.String(v2), SetAsDefault: true})).PolicyVersion
	if aws.ToString(created.VersionId) != "v2" || !created.IsDefaultVersion || created.Document != nil {
		t.Errorf("CreatePolicyVersion = %+v, want v2, the default, without its document", created)
	}
	version := must[*iam.GetPolicyVersionOutput](t, "GetPolicyVersion")(admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v1")})).PolicyVersion
	if decoded(t, version.Document) != v1 || version.IsDefaultVersion {
		t.Errorf("GetPolicyVersion v1 = %+v", version)
	}
	versions := must[*iam.ListPolicyVersionsOutput](t, "ListPolicyVersions")(admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: arn})).Versions
	if len(versions) != 2 || aws.ToString(versions[0].VersionId) != "v2" || !versions[0].IsDefaultVersion || versions[1].IsDefaultVersion {
		t.Errorf("ListPolicyVersions = %+v, want v2 (default) then v1", versions)
	}

	_, err := admin.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v2")})
	wantCode(t, "DeletePolicyVersion of the default", err, "DeleteConflict")
	must[*iam.SetDefaultPolicyVersionOutput](t, "SetDefaultPolicyVersion")(admin.SetDefaultPolicyVersion(ctx, &iam.SetDefaultPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v1")}))
	if d := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})).Policy.DefaultVersionId; aws.ToString(d) != "v1" {
		t.Errorf("default after SetDefaultPolicyVersion = %s", aws.ToString(d))
	}
	_, err = admin.SetDefaultPolicyVersion(ctx, &iam.SetDefaultPolicyVersionInput{PolicyArn: arn, VersionId: aws.String("v9")})
	wantCode(t, "SetDefaultPolicyVersion to a missing version", err, "NoSuchEntity")

	// Five versions at most.
	for range 3 {
		must[*iam.CreatePolicyVersionOutput](t, "CreatePolicyVersion")(admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: arn, PolicyDocument: aws.String(v2)}))
	}
	_, err = admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: arn, PolicyDocument: aws.String(v2)})
	wantCode(t, "a sixth version", err, "LimitExceeded")

	// A policy with versions besides the default cannot be deleted.
	_, err = admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: arn})
	wantCode(t, "DeletePolicy with versions", err, "DeleteConflict")
	for _, v := range []string{"v2", "v3", "v4", "v5"} {
		must[*iam.DeletePolicyVersionOutput](t, "DeletePolicyVersion")(admin.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: arn, VersionId: aws.String(v)}))
	}
	must[*iam.DeletePolicyOutput](t, "DeletePolicy")(admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: arn}))
	_, err = admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})
	wantCode(t, "GetPolicy after DeletePolicy", err, "NoSuchEntity")
}

func TestAttachmentsAndListPolicies(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	readOnly := "arn:aws:iam::aws:policy/IAMReadOnlyAccess"
	local := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("local"), Path: aws.String("/team/"), PolicyDocument: aws.String(allowAll)})).Policy.Arn
	must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("unused"), PolicyDocument: aws.String(allowAll)}))
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))

	for _, arn := range []string{readOnly, aws.ToString(local)} {
		must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(arn)}))
	}
	must[*iam.AttachRolePolicyOutput](t, "AttachRolePolicy")(admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: local}))

	attached := must[*iam.ListAttachedUserPoliciesOutput](t, "ListAttachedUserPolicies")(admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")})).AttachedPolicies
	if len(attached) != 2 || aws.ToString(attached[0].PolicyName) != "IAMReadOnlyAccess" || aws.ToString(attached[0].PolicyArn) != readOnly || aws.ToString(attached[1].PolicyName) != "local" {
		t.Errorf("ListAttachedUserPolicies = %+v", attached)
	}
	attached = must[*iam.ListAttachedUserPoliciesOutput](t, "ListAttachedUserPolicies")(admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice"), PathPrefix: aws.String("/team/")})).AttachedPolicies
	if len(attached) != 1 || aws.ToString(attached[0].PolicyArn) != aws.ToString(local) {
		t.Errorf("ListAttachedUserPolicies under /team/ = %+v", attached)
	}
	roleAttached := must[*iam.ListAttachedRolePoliciesOutput](t, "ListAttachedRolePolicies")(admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("ci")})).AttachedPolicies
	if len(roleAttached) != 1 || aws.ToString(roleAttached[0].PolicyName) != "local" {
		t.Errorf("ListAttachedRolePolicies = %+v", roleAttached)
	}
	if n := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: local})).Policy.AttachmentCount; aws.ToInt32(n) != 2 {
		t.Errorf("AttachmentCount = %d, want 2", aws.ToInt32(n))
	}
	entities := must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: local}))
	if len(entities.PolicyUsers) != 1 || aws.ToString(entities.PolicyUsers[0].UserName) != "alice" || len(entities.PolicyRoles) != 1 || aws.ToString(entities.PolicyRoles[0].RoleName) != "ci" {
		t.Errorf("ListEntitiesForPolicy = %+v %+v", entities.PolicyUsers, entities.PolicyRoles)
	}

	names := func(in *iam.ListPoliciesInput) []string {
		t.Helper()
		var out []string
		for _, p := range must[*iam.ListPoliciesOutput](t, "ListPolicies")(admin.ListPolicies(ctx, in)).Policies {
			out = append(out, aws.ToString(p.PolicyName))
		}
		return out
	}
	tests := []struct {
		name string
		in   iam.ListPoliciesInput
		want []string
	}{
		{"Local lists the account's own", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeLocal}, []string{"local", "unused"}},
		{"AWS with OnlyAttached lists the attached AWS managed ones", iam.ListPoliciesInput{Scope: types.PolicyScopeTypeAws, OnlyAttached: true}, []string{"IAMReadOnlyAccess"}},
		{"OnlyAttached keeps the attached of both scopes", iam.ListPoliciesInput{OnlyAttached: true}, []string{"IAMReadOnlyAccess", "local"}},
		{"PathPrefix filters by path", iam.ListPoliciesInput{PathPrefix: aws.String("/team/")}, []string{"local"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := names(&tt.in); !slices.Equal(got, tt.want) {
				t.Errorf("ListPolicies = %v, want %v", got, tt.want)
			}
		})
	}
	page := must[*iam.ListPoliciesOutput](t, "ListPolicies")(admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: types.PolicyScopeTypeLocal, MaxItems: aws.Int32(1)}))
	next := must[*iam.ListPoliciesOutput](t, "ListPolicies")(admin.ListPolicies(ctx, &iam.ListPoliciesInput{Scope: types.PolicyScopeTypeLocal, Marker: page.Marker}))
	if len(page.Policies) != 1 || !page.IsTruncated || len(next.Policies) != 1 || next.IsTruncated || aws.ToString(next.Policies[0].PolicyName) != "unused" {
		t.Errorf("pages of ListPolicies: %d (truncated %v), then %d", len(page.Policies), page.IsTruncated, len(next.Policies))
	}

	_, err := admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: local})
	wantCode(t, "DeletePolicy while attached", err, "DeleteConflict")
	must[*iam.DetachUserPolicyOutput](t, "DetachUserPolicy")(admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: local}))
	_, err = admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: local})
	wantCode(t, "DetachUserPolicy twice", err, "NoSuchEntity")
	must[*iam.DetachRolePolicyOutput](t, "DetachRolePolicy")(admin.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: local}))
	must[*iam.DeletePolicyOutput](t, "DeletePolicy")(admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: local}))
}

// TestPermissionsBoundaries sets and removes boundaries and checks that
// the authorizer applies them: a user whose policy allows everything can do
// only what its boundary allows too.
func TestPermissionsBoundaries(t *testing.T) {
	e, admin := adminClient(t)
	ctx := context.Background()
	boundary := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read-only-boundary"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":["iam:Get*","iam:List*"],"Resource":"*"}}`)})).Policy.Arn
	alice := userClient(t, e, admin, "alice", allowAll)
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))

	must[*iam.PutUserPermissionsBoundaryOutput](t, "PutUserPermissionsBoundary")(admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("alice"), PermissionsBoundary: boundary}))
	u := must[*iam.GetUserOutput](t, "GetUser")(alice.GetUser(ctx, &iam.GetUserInput{})).User
	if u.PermissionsBoundary == nil || aws.ToString(u.PermissionsBoundary.PermissionsBoundaryArn) != aws.ToString(boundary) || u.PermissionsBoundary.PermissionsBoundaryType != types.PermissionsBoundaryAttachmentTypePolicy {
		t.Errorf("GetUser's boundary = %+v", u.PermissionsBoundary)
	}
	_, err := alice.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("mine"), AssumeRolePolicyDocument: aws.String(trustAccount)})
	if apiCode(err) != "AccessDenied" || !strings.Contains(err.Error(), "because no permissions boundary allows the iam:CreateRole action") {
		t.Errorf("CreateRole beyond the boundary: %v, want AccessDenied naming the boundary", err)
	}
	_, err = admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: boundary})
	wantCode(t, "DeletePolicy of a boundary in use", err, "DeleteConflict")
	must[*iam.DeleteUserPermissionsBoundaryOutput](t, "DeleteUserPermissionsBoundary")(admin.DeleteUserPermissionsBoundary(ctx, &iam.DeleteUserPermissionsBoundaryInput{UserName: aws.String("alice")}))
	if _, err := alice.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("mine"), AssumeRolePolicyDocument: aws.String(trustAccount)}); err != nil {
		t.Errorf("CreateRole without the boundary: %v", err)
	}

	must[*iam.PutRolePermissionsBoundaryOutput](t, "PutRolePermissionsBoundary")(admin.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("ci"), PermissionsBoundary: boundary}))
	r := must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ci")})).Role
	if r.PermissionsBoundary == nil || aws.ToString(r.PermissionsBoundary.PermissionsBoundaryArn) != aws.ToString(boundary) {
		t.Errorf("GetRole's boundary = %+v", r.PermissionsBoundary)
	}
	if n := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: boundary})).Policy.PermissionsBoundaryUsageCount; aws.ToInt32(n) != 1 {
		t.Errorf("PermissionsBoundaryUsageCount = %d, want 1", aws.ToInt32(n))
	}
	must[*iam.DeleteRolePermissionsBoundaryOutput](t, "DeleteRolePermissionsBoundary")(admin.DeleteRolePermissionsBoundary(ctx, &iam.DeleteRolePermissionsBoundaryInput{RoleName: aws.String("ci")}))
	r = must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("ci")})).Role
	if r.PermissionsBoundary != nil {
		t.Errorf("GetRole's boundary after DeleteRolePermissionsBoundary = %+v", r.PermissionsBoundary)
	}
	must[*iam.DeletePolicyOutput](t, "DeletePolicy")(admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: boundary}))
}

// TestAWSManagedPoliciesAreReadable reads an AWS managed policy as IAM
// serves it, with the administrator's allow-all
// policy.
func TestAWSManagedPoliciesAreReadable(t *testing.T) {
	// The authorizer takes the account of arn:aws:iam::aws:policy/X to be
	// "aws", another account, and wants a resource policy. It needs the
	// operation to name the resource's account (the caller's) until then.
	_, admin := adminClient(t)
	ctx := context.Background()
	readOnly := "arn:aws:iam::aws:policy/IAMReadOnlyAccess"
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(readOnly)}))
	p := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(readOnly)})).Policy
	if aws.ToInt32(p.AttachmentCount) != 1 || aws.ToString(p.PolicyName) != "IAMReadOnlyAccess" || aws.ToString(p.Path) != "/" {
		t.Errorf("GetPolicy of an AWS managed policy = %+v", p)
	}
	doc := must[*iam.GetPolicyVersionOutput](t, "GetPolicyVersion")(admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(readOnly), VersionId: p.DefaultVersionId})).PolicyVersion.Document
	if !strings.Contains(decoded(t, doc), "iam:Get*") {
		t.Errorf("IAMReadOnlyAccess document = %s", decoded(t, doc))
	}
	versions := must[*iam.ListPolicyVersionsOutput](t, "ListPolicyVersions")(admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(readOnly)})).Versions
	if len(versions) != 1 || !versions[0].IsDefaultVersion {
		t.Errorf("ListPolicyVersions = %+v", versions)
	}
	_, err := admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String("arn:aws:iam::aws:policy/NotAPolicy")})
	wantCode(t, "an AWS managed policy leash local does not know", err, "NoSuchEntity")
}
