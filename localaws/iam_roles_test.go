package localaws_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

func TestRoleLifecycle(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	role := aws.String("deployer")
	created := must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{
		RoleName: role, Path: aws.String("/ci/"), AssumeRolePolicyDocument: aws.String(trustAccount),
		Description: aws.String("deploys"), MaxSessionDuration: aws.Int32(7200), Tags: []types.Tag{tag("team", "blue")},
	})).Role
	if aws.ToString(created.Arn) != "arn:aws:iam::"+account+":role/ci/deployer" || !strings.HasPrefix(aws.ToString(created.RoleId), "AROA") ||
		decoded(t, created.AssumeRolePolicyDocument) != trustAccount || aws.ToInt32(created.MaxSessionDuration) != 7200 ||
		aws.ToString(created.Description) != "deploys" || tagMap(created.Tags)["team"] != "blue" || created.CreateDate == nil {
		t.Errorf("CreateRole = %+v", created)
	}

	got := must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("DEPLOYER")})).Role
	if aws.ToString(got.RoleName) != "deployer" || decoded(t, got.AssumeRolePolicyDocument) != trustAccount || aws.ToString(got.RoleId) != aws.ToString(created.RoleId) {
		t.Errorf("GetRole = %+v", got)
	}

	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`
	must[*iam.UpdateAssumeRolePolicyOutput](t, "UpdateAssumeRolePolicy")(admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: role, PolicyDocument: aws.String(trust)}))
	must[*iam.UpdateRoleOutput](t, "UpdateRole")(admin.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: role, Description: aws.String("deploys more"), MaxSessionDuration: aws.Int32(43200)}))
	got = must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: role})).Role
	if decoded(t, got.AssumeRolePolicyDocument) != trust || aws.ToString(got.Description) != "deploys more" || aws.ToInt32(got.MaxSessionDuration) != 43200 {
		t.Errorf("after updates: %s %q %d", decoded(t, got.AssumeRolePolicyDocument), aws.ToString(got.Description), aws.ToInt32(got.MaxSessionDuration))
	}

	described := must[*iam.UpdateRoleDescriptionOutput](t, "UpdateRoleDescription")(admin.UpdateRoleDescription(ctx, &iam.UpdateRoleDescriptionInput{RoleName: role, Description: aws.String("ships")})).Role
	if aws.ToString(described.Description) != "ships" || aws.ToInt32(described.MaxSessionDuration) != 43200 {
		t.Errorf("UpdateRoleDescription = %+v", described)
	}

	must[*iam.TagRoleOutput](t, "TagRole")(admin.TagRole(ctx, &iam.TagRoleInput{RoleName: role, Tags: []types.Tag{tag("env", "prod")}}))
	must[*iam.UntagRoleOutput](t, "UntagRole")(admin.UntagRole(ctx, &iam.UntagRoleInput{RoleName: role, TagKeys: []string{"team"}}))
	tags := must[*iam.ListRoleTagsOutput](t, "ListRoleTags")(admin.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: role}))
	if m := tagMap(tags.Tags); len(m) != 1 || m["env"] != "prod" {
		t.Errorf("role tags = %v, want env=prod alone", m)
	}

	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("auditor"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	list := must[*iam.ListRolesOutput](t, "ListRoles")(admin.ListRoles(ctx, &iam.ListRolesInput{}))
	var names []string
	for _, r := range list.Roles {
		names = append(names, aws.ToString(r.RoleName))
		if len(r.Tags) != 0 || r.PermissionsBoundary != nil {
			t.Errorf("ListRoles shows %s's tags or boundary, which IAM leaves out", aws.ToString(r.RoleName))
		}
	}
	if !slices.Equal(names, []string{"auditor", "deployer"}) {
		t.Errorf("ListRoles = %v", names)
	}
	list = must[*iam.ListRolesOutput](t, "ListRoles")(admin.ListRoles(ctx, &iam.ListRolesInput{PathPrefix: aws.String("/ci/")}))
	if len(list.Roles) != 1 || aws.ToString(list.Roles[0].RoleName) != "deployer" {
		t.Errorf("ListRoles under /ci/ = %+v", list.Roles)
	}

	// Inline policies.
	doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`
	must[*iam.PutRolePolicyOutput](t, "PutRolePolicy")(admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: role, PolicyName: aws.String("s3"), PolicyDocument: aws.String(doc)}))
	inline := must[*iam.GetRolePolicyOutput](t, "GetRolePolicy")(admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: role, PolicyName: aws.String("s3")}))
	if aws.ToString(inline.RoleName) != "deployer" || decoded(t, inline.PolicyDocument) != doc {
		t.Errorf("GetRolePolicy = %+v", inline)
	}
	names = must[*iam.ListRolePoliciesOutput](t, "ListRolePolicies")(admin.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: role})).PolicyNames
	if !slices.Equal(names, []string{"s3"}) {
		t.Errorf("ListRolePolicies = %v", names)
	}

	// A role with policies cannot be deleted; without them it can.
	must[*iam.AttachRolePolicyOutput](t, "AttachRolePolicy")(admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: role, PolicyArn: aws.String("arn:aws:iam::aws:policy/IAMReadOnlyAccess")}))
	_, err := admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: role})
	wantCode(t, "DeleteRole with an inline policy", err, "DeleteConflict")
	must[*iam.DeleteRolePolicyOutput](t, "DeleteRolePolicy")(admin.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: role, PolicyName: aws.String("s3")}))
	_, err = admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: role})
	wantCode(t, "DeleteRole with an attached policy", err, "DeleteConflict")
	must[*iam.DetachRolePolicyOutput](t, "DetachRolePolicy")(admin.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: role, PolicyArn: aws.String("arn:aws:iam::aws:policy/IAMReadOnlyAccess")}))
	must[*iam.DeleteRoleOutput](t, "DeleteRole")(admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: role}))
	_, err = admin.GetRole(ctx, &iam.GetRoleInput{RoleName: role})
	wantCode(t, "GetRole after DeleteRole", err, "NoSuchEntity")
}

// TestPolicyDocumentsAreParsedFirst sends documents the engine refuses to
// every operation that takes one: the SDK sees MalformedPolicyDocument
// with the JSON path of the problem.
func TestPolicyDocumentsAreParsedFirst(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	managed := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("m"), PolicyDocument: aws.String(allowAll)})).Policy.Arn
	badEffect := `{"Version":"2012-10-17","Statement":[{"Effect":"Maybe","Action":"s3:*","Resource":"*"}]}`
	// An identity policy must not name a principal; a trust policy must.
	withPrincipal := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`
	noPrincipal := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"sts:AssumeRole"}]}`
	tests := []struct {
		name string
		call func(doc string) error
		doc  string
	}{
		{"PutUserPolicy", func(doc string) error {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, badEffect},
		{"PutRolePolicy", func(doc string) error {
			_, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("ci"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, withPrincipal},
		{"CreatePolicy", func(doc string) error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("bad"), PolicyDocument: aws.String(doc)})
			return err
		}, badEffect},
		{"CreatePolicyVersion", func(doc string) error {
			_, err := admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: managed, PolicyDocument: aws.String(doc)})
			return err
		}, withPrincipal},
		{"CreateRole", func(doc string) error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("bad"), AssumeRolePolicyDocument: aws.String(doc)})
			return err
		}, noPrincipal},
		{"UpdateAssumeRolePolicy", func(doc string) error {
			_, err := admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("ci"), PolicyDocument: aws.String(doc)})
			return err
		}, badEffect},
		{"SimulateCustomPolicy", func(doc string) error {
			_, err := admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{PolicyInputList: []string{allowAll, doc}, ActionNames: []string{"s3:GetObject"}})
			return err
		}, badEffect},
		{"not JSON", func(doc string) error {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, `{"Version":"2012-10-17","Statement":[`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(tt.doc)
			if apiCode(err) != "MalformedPolicyDocument" {
				t.Fatalf("%v, want MalformedPolicyDocument", err)
			}
			if tt.name != "not JSON" && !strings.Contains(err.Error(), "Statement[") {
				t.Errorf("%v: the message names no JSON path", err)
			}
		})
	}
}

// TestPolicySizeQuotas checks IAM's size quotas as the SDK sees them: a
// document at the quota is accepted, one character more is LimitExceeded.
// White space does not count.
func TestPolicySizeQuotas(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	// identity is an identity policy of exactly size characters without
	// white space, padded with spaces that do not count.
	identity := func(size int) string {
		head := `{ "Version": "2012-10-17", "Statement": [ { "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::`
		tail := `" } ] }`
		return head + strings.Repeat("b", size-nonSpace(head+tail)) + tail
	}
	trust := func(size int) string {
		head := `{ "Version": "2012-10-17", "Statement": [ { "Effect": "Allow", "Principal": { "AWS": "arn:aws:iam::111122223333:root" }, "Action": "sts:AssumeRole", "Condition": { "StringEquals": { "sts:ExternalId": "`
		tail := `" } } } ] }`
		return head + strings.Repeat("x", size-nonSpace(head+tail)) + tail
	}
	tests := []struct {
		name  string
		quota int
		doc   func(int) string
		call  func(doc string) error
		msg   string
	}{
		{"a user's inline policies: 2,048", 2048, identity, func(doc string) error {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, "Maximum policy size of 2048 bytes exceeded for user alice"},
		{"a role's inline policies: 10,240", 10240, identity, func(doc string) error {
			_, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("ci"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, "Maximum policy size of 10240 bytes exceeded for role ci"},
		{"a managed policy: 6,144", 6144, identity, func(doc string) error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("p" + strconv.Itoa(len(doc))), PolicyDocument: aws.String(doc)})
			return err
		}, "Cannot exceed quota for PolicySize: 6144"},
		{"a role's trust policy: 2,048", 2048, trust, func(doc string) error {
			_, err := admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("ci"), PolicyDocument: aws.String(doc)})
			return err
		}, "Cannot exceed quota for ACLSizePerRole: 2048"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(tt.doc(tt.quota)); err != nil {
				t.Errorf("a document of %d characters: %v", tt.quota, err)
			}
			err := tt.call(tt.doc(tt.quota + 1))
			if apiCode(err) != "LimitExceeded" || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("a document of %d characters: %v, want LimitExceeded: %s", tt.quota+1, err, tt.msg)
			}
		})
	}
	// The user quota is on all of a user's inline policies together.
	_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("second"), PolicyDocument: aws.String(identity(200))})
	wantCode(t, "a second policy past the user's total", err, "LimitExceeded")
}

func nonSpace(s string) int {
	return len(strings.Join(strings.Fields(s), ""))
}
