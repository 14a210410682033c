package localaws_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/cloudtrail"
	cttypes "github.com/aws/aws-sdk-go-v2/service/cloudtrail/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	ststypes "github.com/aws/aws-sdk-go-v2/service/sts/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
)

// recordContents is the page that decides what a record holds: "CloudTrail
// record contents for management, data, and network activity events".
const recordContents = "https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html"

// alwaysPresent are the fields recordContents marks "Optional: False",
// with the optional ones that apply to every IAM and STS call
// (managementEvent for eventVersion 1.06 and up and eventType AwsApiCall,
// readOnly, recipientAccountId).
var alwaysPresent = []string{
	"eventTime", "eventVersion", "userIdentity", "eventSource", "eventName", "awsRegion",
	"sourceIPAddress", "userAgent", "requestParameters", "responseElements", "requestID",
	"eventID", "eventType", "eventCategory", "managementEvent", "readOnly", "recipientAccountId",
}

// auditLines are the audit log's records, each as the bytes of its line.
func auditLines(t *testing.T, dir string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// auditCall is one call of the table: the operation, how to make it with
// the SDK, and what its record must hold.
type auditCall struct {
	op string // service:Action
	// call makes the request and returns the secrets it sent or received,
	// none of which may reach the log.
	call func(ctx context.Context) ([]string, error)
	// param is a member requestParameters must have, "" for a request
	// without parameters (requestParameters null).
	param string
	// response is the member responseElements must have, "" for null: a
	// call that changes nothing, or changes state with no result.
	response string
	// code is the error the call must fail with, "" for success; set only
	// for the operations leash local always refuses.
	code string
}

// TestAuditRecordsFollowCloudTrail makes one call of every operation leash
// local serves, through the SDK, and checks its record, in the audit log
// and as LookupEvents' CloudTrailEvent, against CloudTrail's record
// contents (recordContents): every always-present field, the request
// parameters, the response elements of calls that change state (null for
// reads: "If an action does not change state (for example, a request to get
// or list objects), this element is omitted"), and no secret anywhere.
// An operation served but missing from the table fails the test.
func TestAuditRecordsFollowCloudTrail(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	ctx := context.Background()
	adminID, adminSecret := w.adminKeys(t)
	admin := w.admin
	stsc := w.sts(adminID, adminSecret)
	ct := w.cloudtrail(adminID, adminSecret)
	account := stsAccount
	arn := func(resource string) string { return "arn:aws:iam::" + account + ":" + resource }
	doc := allow("iam:GetUser")
	trust := trustPrincipal("arn:aws:iam::"+account+":root", "sts:AssumeRole", "sts:TagSession")
	boundary := "arn:aws:iam::aws:policy/ReadOnlyAccess"
	var keyID, policyARN, providerARN string
	const password1, password2 = "Pa55word!one-Example", "Pa55word!two-Example"
	tags := []iamtypes.Tag{{Key: aws.String("team"), Value: aws.String("infra")}}
	calls := []auditCall{
		{op: "iam:CreateUser", param: "userName", response: "user", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), Tags: tags}))
		}},
		{op: "iam:GetUser", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:ListUsers", param: "maxItems", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListUsers(ctx, &iam.ListUsersInput{MaxItems: aws.Int32(10)}))
		}},
		{op: "iam:UpdateUser", param: "newPath", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateUser(ctx, &iam.UpdateUserInput{UserName: aws.String("alice"), NewPath: aws.String("/team/")}))
		}},
		{op: "iam:TagUser", param: "tags", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.TagUser(ctx, &iam.TagUserInput{UserName: aws.String("alice"), Tags: []iamtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
		}},
		{op: "iam:ListUserTags", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListUserTags(ctx, &iam.ListUserTagsInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:UntagUser", param: "tagKeys", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UntagUser(ctx, &iam.UntagUserInput{UserName: aws.String("alice"), TagKeys: []string{"k"}}))
		}},
		{op: "iam:PutUserPolicy", param: "policyDocument", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}))
		}},
		{op: "iam:GetUserPolicy", param: "policyName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetUserPolicy(ctx, &iam.GetUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p")}))
		}},
		{op: "iam:ListUserPolicies", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:DeleteUserPolicy", param: "policyName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteUserPolicy(ctx, &iam.DeleteUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("p")}))
		}},
		{op: "iam:CreateAccessKey", param: "userName", response: "accessKey", call: func(ctx context.Context) ([]string, error) {
			out, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("alice")})
			if err != nil {
				return nil, err
			}
			keyID = *out.AccessKey.AccessKeyId
			return []string{*out.AccessKey.SecretAccessKey}, nil
		}},
		{op: "iam:ListAccessKeys", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:GetAccessKeyLastUsed", param: "accessKeyId", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetAccessKeyLastUsed(ctx, &iam.GetAccessKeyLastUsedInput{AccessKeyId: aws.String(keyID)}))
		}},
		{op: "iam:UpdateAccessKey", param: "status", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: aws.String(keyID), Status: iamtypes.StatusTypeInactive}))
		}},
		{op: "iam:DeleteAccessKey", param: "accessKeyId", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteAccessKey(ctx, &iam.DeleteAccessKeyInput{UserName: aws.String("alice"), AccessKeyId: aws.String(keyID)}))
		}},
		{op: "iam:CreateLoginProfile", param: "passwordResetRequired", response: "loginProfile", call: func(ctx context.Context) ([]string, error) {
			_, err := admin.CreateLoginProfile(ctx, &iam.CreateLoginProfileInput{UserName: aws.String("alice"), Password: aws.String(password1), PasswordResetRequired: true})
			return []string{password1}, err
		}},
		{op: "iam:GetLoginProfile", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:UpdateLoginProfile", param: "userName", call: func(ctx context.Context) ([]string, error) {
			_, err := admin.UpdateLoginProfile(ctx, &iam.UpdateLoginProfileInput{UserName: aws.String("alice"), Password: aws.String(password2)})
			return []string{password2}, err
		}},
		{op: "iam:DeleteLoginProfile", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteLoginProfile(ctx, &iam.DeleteLoginProfileInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:PutUserPermissionsBoundary", param: "permissionsBoundary", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.PutUserPermissionsBoundary(ctx, &iam.PutUserPermissionsBoundaryInput{UserName: aws.String("alice"), PermissionsBoundary: aws.String(boundary)}))
		}},
		{op: "iam:DeleteUserPermissionsBoundary", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteUserPermissionsBoundary(ctx, &iam.DeleteUserPermissionsBoundaryInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:CreateGroup", param: "groupName", response: "group", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs")}))
		}},
		{op: "iam:GetGroup", param: "groupName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("devs")}))
		}},
		{op: "iam:ListGroups", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListGroups(ctx, &iam.ListGroupsInput{}))
		}},
		{op: "iam:UpdateGroup", param: "newPath", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateGroup(ctx, &iam.UpdateGroupInput{GroupName: aws.String("devs"), NewPath: aws.String("/team/")}))
		}},
		{op: "iam:AddUserToGroup", param: "groupName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("alice")}))
		}},
		{op: "iam:ListGroupsForUser", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:PutGroupPolicy", param: "policyDocument", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}))
		}},
		{op: "iam:GetGroupPolicy", param: "policyName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p")}))
		}},
		{op: "iam:ListGroupPolicies", param: "groupName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListGroupPolicies(ctx, &iam.ListGroupPoliciesInput{GroupName: aws.String("devs")}))
		}},
		{op: "iam:DeleteGroupPolicy", param: "policyName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p")}))
		}},
		{op: "iam:CreatePolicy", param: "policyDocument", response: "policy", call: func(ctx context.Context) ([]string, error) {
			out, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read"), PolicyDocument: aws.String(doc), Tags: tags})
			if err == nil {
				policyARN = *out.Policy.Arn
			}
			return nil, err
		}},
		{op: "iam:GetPolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:TagPolicy", param: "tags", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.TagPolicy(ctx, &iam.TagPolicyInput{PolicyArn: aws.String(policyARN), Tags: []iamtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
		}},
		{op: "iam:ListPolicyTags", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListPolicyTags(ctx, &iam.ListPolicyTagsInput{PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:UntagPolicy", param: "tagKeys", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UntagPolicy(ctx, &iam.UntagPolicyInput{PolicyArn: aws.String(policyARN), TagKeys: []string{"k"}}))
		}},
		{op: "iam:CreatePolicyVersion", param: "setAsDefault", response: "policyVersion", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(policyARN), PolicyDocument: aws.String(allow("iam:GetRole")), SetAsDefault: true}))
		}},
		{op: "iam:ListPolicyVersions", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:GetPolicyVersion", param: "versionId", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetPolicyVersion(ctx, &iam.GetPolicyVersionInput{PolicyArn: aws.String(policyARN), VersionId: aws.String("v1")}))
		}},
		{op: "iam:SetDefaultPolicyVersion", param: "versionId", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.SetDefaultPolicyVersion(ctx, &iam.SetDefaultPolicyVersionInput{PolicyArn: aws.String(policyARN), VersionId: aws.String("v1")}))
		}},
		{op: "iam:DeletePolicyVersion", param: "versionId", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeletePolicyVersion(ctx, &iam.DeletePolicyVersionInput{PolicyArn: aws.String(policyARN), VersionId: aws.String("v2")}))
		}},
		{op: "iam:ListPolicies", param: "onlyAttached", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListPolicies(ctx, &iam.ListPoliciesInput{OnlyAttached: true}))
		}},
		{op: "iam:AttachUserPolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:ListAttachedUserPolicies", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:ListEntitiesForPolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:DetachUserPolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:AttachGroupPolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:ListAttachedGroupPolicies", param: "groupName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("devs")}))
		}},
		{op: "iam:DetachGroupPolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:RemoveUserFromGroup", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("devs"), UserName: aws.String("alice")}))
		}},
		{op: "iam:DeleteGroup", param: "groupName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: aws.String("devs")}))
		}},
		{op: "iam:CreateRole", param: "assumeRolePolicyDocument", response: "role", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("deploy"), AssumeRolePolicyDocument: aws.String(trust), MaxSessionDuration: aws.Int32(7200), Tags: tags}))
		}},
		{op: "iam:GetRole", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:ListRoles", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListRoles(ctx, &iam.ListRolesInput{}))
		}},
		{op: "iam:UpdateRole", param: "maxSessionDuration", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String("deploy"), MaxSessionDuration: aws.Int32(3600)}))
		}},
		{op: "iam:UpdateRoleDescription", param: "description", response: "role", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateRoleDescription(ctx, &iam.UpdateRoleDescriptionInput{RoleName: aws.String("deploy"), Description: aws.String("deploys")}))
		}},
		{op: "iam:UpdateAssumeRolePolicy", param: "policyDocument", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("deploy"), PolicyDocument: aws.String(trust)}))
		}},
		{op: "iam:TagRole", param: "tags", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String("deploy"), Tags: []iamtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}))
		}},
		{op: "iam:ListRoleTags", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListRoleTags(ctx, &iam.ListRoleTagsInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:UntagRole", param: "tagKeys", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UntagRole(ctx, &iam.UntagRoleInput{RoleName: aws.String("deploy"), TagKeys: []string{"k"}}))
		}},
		{op: "iam:PutRolePolicy", param: "policyDocument", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("deploy"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)}))
		}},
		{op: "iam:GetRolePolicy", param: "policyName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetRolePolicy(ctx, &iam.GetRolePolicyInput{RoleName: aws.String("deploy"), PolicyName: aws.String("p")}))
		}},
		{op: "iam:ListRolePolicies", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:AttachRolePolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("deploy"), PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:ListAttachedRolePolicies", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListAttachedRolePolicies(ctx, &iam.ListAttachedRolePoliciesInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:PutRolePermissionsBoundary", param: "permissionsBoundary", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.PutRolePermissionsBoundary(ctx, &iam.PutRolePermissionsBoundaryInput{RoleName: aws.String("deploy"), PermissionsBoundary: aws.String(boundary)}))
		}},
		{op: "iam:DeleteRolePermissionsBoundary", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteRolePermissionsBoundary(ctx, &iam.DeleteRolePermissionsBoundaryInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:CreateInstanceProfile", param: "instanceProfileName", response: "instanceProfile", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("web")}))
		}},
		{op: "iam:GetInstanceProfile", param: "instanceProfileName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("web")}))
		}},
		{op: "iam:ListInstanceProfiles", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{}))
		}},
		{op: "iam:TagInstanceProfile", param: "tags", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: aws.String("web"), Tags: tags}))
		}},
		{op: "iam:ListInstanceProfileTags", param: "instanceProfileName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListInstanceProfileTags(ctx, &iam.ListInstanceProfileTagsInput{InstanceProfileName: aws.String("web")}))
		}},
		{op: "iam:UntagInstanceProfile", param: "tagKeys", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UntagInstanceProfile(ctx, &iam.UntagInstanceProfileInput{InstanceProfileName: aws.String("web"), TagKeys: []string{"team"}}))
		}},
		{op: "iam:AddRoleToInstanceProfile", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("web"), RoleName: aws.String("deploy")}))
		}},
		{op: "iam:ListInstanceProfilesForRole", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListInstanceProfilesForRole(ctx, &iam.ListInstanceProfilesForRoleInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:RemoveRoleFromInstanceProfile", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String("web"), RoleName: aws.String("deploy")}))
		}},
		{op: "iam:DeleteInstanceProfile", param: "instanceProfileName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String("web")}))
		}},
		{op: "iam:CreateOpenIDConnectProvider", param: "clientIDList", response: "openIDConnectProviderArn", call: func(ctx context.Context) ([]string, error) {
			out, err := admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String("https://oidc.example.com/cluster"), ClientIDList: []string{"sts.amazonaws.com"}})
			if err == nil {
				providerARN = *out.OpenIDConnectProviderArn
			}
			return nil, err
		}},
		{op: "iam:GetOpenIDConnectProvider", param: "openIDConnectProviderArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(providerARN)}))
		}},
		{op: "iam:ListOpenIDConnectProviders", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{}))
		}},
		{op: "iam:TagOpenIDConnectProvider", param: "tags", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.TagOpenIDConnectProvider(ctx, &iam.TagOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(providerARN), Tags: tags}))
		}},
		{op: "iam:ListOpenIDConnectProviderTags", param: "openIDConnectProviderArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListOpenIDConnectProviderTags(ctx, &iam.ListOpenIDConnectProviderTagsInput{OpenIDConnectProviderArn: aws.String(providerARN)}))
		}},
		{op: "iam:UntagOpenIDConnectProvider", param: "tagKeys", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UntagOpenIDConnectProvider(ctx, &iam.UntagOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(providerARN), TagKeys: []string{"team"}}))
		}},
		{op: "iam:AddClientIDToOpenIDConnectProvider", param: "clientID", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.AddClientIDToOpenIDConnectProvider(ctx, &iam.AddClientIDToOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(providerARN), ClientID: aws.String("other")}))
		}},
		{op: "iam:RemoveClientIDFromOpenIDConnectProvider", param: "clientID", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.RemoveClientIDFromOpenIDConnectProvider(ctx, &iam.RemoveClientIDFromOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(providerARN), ClientID: aws.String("other")}))
		}},
		{op: "iam:UpdateOpenIDConnectProviderThumbprint", param: "thumbprintList", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.UpdateOpenIDConnectProviderThumbprint(ctx, &iam.UpdateOpenIDConnectProviderThumbprintInput{OpenIDConnectProviderArn: aws.String(providerARN), ThumbprintList: []string{strings.Repeat("a", 40)}}))
		}},
		{op: "iam:DeleteOpenIDConnectProvider", param: "openIDConnectProviderArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(providerARN)}))
		}},
		{op: "iam:SimulatePrincipalPolicy", param: "actionNames", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(arn("user/team/alice")), ActionNames: []string{"iam:GetUser"}}))
		}},
		{op: "iam:SimulateCustomPolicy", param: "policyInputList", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{PolicyInputList: []string{doc}, ActionNames: []string{"iam:GetUser"}}))
		}},
		{op: "iam:GetAccountAuthorizationDetails", param: "filter", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{Filter: []iamtypes.EntityType{iamtypes.EntityTypeUser}}))
		}},
		{op: "iam:GetAccountSummary", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.GetAccountSummary(ctx, &iam.GetAccountSummaryInput{}))
		}},
		{op: "iam:ListMFADevices", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListMFADevices(ctx, &iam.ListMFADevicesInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:ListSSHPublicKeys", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListSSHPublicKeys(ctx, &iam.ListSSHPublicKeysInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:ListServiceSpecificCredentials", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListServiceSpecificCredentials(ctx, &iam.ListServiceSpecificCredentialsInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:ListSigningCertificates", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListSigningCertificates(ctx, &iam.ListSigningCertificatesInput{UserName: aws.String("alice")}))
		}},
		{op: "iam:ListVirtualMFADevices", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.ListVirtualMFADevices(ctx, &iam.ListVirtualMFADevicesInput{}))
		}},
		{op: "sts:GetCallerIdentity", call: func(ctx context.Context) ([]string, error) {
			return ok2(stsc.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}))
		}},
		{op: "sts:GetAccessKeyInfo", param: "accessKeyId", call: func(ctx context.Context) ([]string, error) {
			return ok2(stsc.GetAccessKeyInfo(ctx, &sts.GetAccessKeyInfoInput{AccessKeyId: aws.String(adminID)}))
		}},
		{op: "sts:GetSessionToken", param: "durationSeconds", response: "credentials", call: func(ctx context.Context) ([]string, error) {
			out, err := stsc.GetSessionToken(ctx, &sts.GetSessionTokenInput{DurationSeconds: aws.Int32(900)})
			if err != nil {
				return nil, err
			}
			return []string{*out.Credentials.SecretAccessKey, *out.Credentials.SessionToken}, nil
		}},
		{op: "sts:AssumeRole", param: "roleArn", response: "credentials", call: func(ctx context.Context) ([]string, error) {
			out, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(arn("role/deploy")), RoleSessionName: aws.String("run-1"),
				DurationSeconds: aws.Int32(900), Tags: []ststypes.Tag{{Key: aws.String("ci"), Value: aws.String("yes")}}})
			if err != nil {
				return nil, err
			}
			return []string{*out.Credentials.SecretAccessKey, *out.Credentials.SessionToken}, nil
		}},
		{op: "sts:AssumeRoleWithWebIdentity", param: "roleArn", response: "credentials", call: func(ctx context.Context) ([]string, error) {
			token := w.iss.sign(t, "RS256", w.claims())
			out, err := w.exchange(token)
			if err != nil {
				return []string{token}, err
			}
			return []string{token, *out.Credentials.SecretAccessKey, *out.Credentials.SessionToken}, nil
		}},
		// leash local refuses these two whatever is sent; their records are
		// a refusal's.
		{op: "sts:AssumeRoleWithSAML", param: "roleArn", code: "InvalidAction", call: func(ctx context.Context) ([]string, error) {
			assertion := "PHNhbWxwOlJlc3BvbnNlIEV4YW1wbGU+"
			_, err := w.anonymous().AssumeRoleWithSAML(ctx, &sts.AssumeRoleWithSAMLInput{RoleArn: aws.String(arn("role/deploy")),
				PrincipalArn: aws.String(arn("saml-provider/idp")), SAMLAssertion: aws.String(assertion)})
			return []string{assertion}, err
		}},
		{op: "sts:DecodeAuthorizationMessage", param: "encodedMessage", code: "InvalidAuthorizationMessageException", call: func(ctx context.Context) ([]string, error) {
			return ok2(stsc.DecodeAuthorizationMessage(ctx, &sts.DecodeAuthorizationMessageInput{EncodedMessage: aws.String("bm90LWVuY29kZWQ")}))
		}},
		{op: "cloudtrail:LookupEvents", param: "maxResults", call: func(ctx context.Context) ([]string, error) {
			return ok2(ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{MaxResults: aws.Int32(1)}))
		}},
		{op: "iam:DetachRolePolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: aws.String("deploy"), PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:DeleteRolePolicy", param: "policyName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String("deploy"), PolicyName: aws.String("p")}))
		}},
		{op: "iam:DeleteRole", param: "roleName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String("deploy")}))
		}},
		{op: "iam:DeletePolicy", param: "policyArn", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String(policyARN)}))
		}},
		{op: "iam:DeleteUser", param: "userName", call: func(ctx context.Context) ([]string, error) {
			return ok2(admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: aws.String("alice")}))
		}},
	}

	// The table covers every operation served, once.
	var covered []string
	for _, c := range calls {
		covered = append(covered, c.op)
	}
	slices.Sort(covered)
	if served := localaws.ServedOperations(w.srv); !slices.Equal(covered, served) {
		t.Fatalf("the table covers %d operations, leash local serves %d: add a call for each new operation\nmissing: %v\nnot served: %v",
			len(covered), len(served), minus(served, covered), minus(covered, served))
	}

	secrets := []string{adminSecret}
	records := make([][]byte, len(calls))
	for i, c := range calls {
		before := len(auditLines(t, w.dir))
		got, err := c.call(ctx)
		secrets = append(secrets, got...)
		if code := apiCode(err); code != c.code || (c.code == "" && err != nil) {
			t.Fatalf("%s: error %v, want code %q", c.op, err, c.code)
		}
		lines := auditLines(t, w.dir)
		if len(lines) != before+1 {
			t.Fatalf("%s: the log grew by %d records, want 1", c.op, len(lines)-before)
		}
		records[i] = lines[before]
	}

	for i, c := range calls {
		t.Run(c.op, func(t *testing.T) {
			var rec map[string]any
			if err := json.Unmarshal(records[i], &rec); err != nil {
				t.Fatal(err)
			}
			checkRecord(t, rec, c, account)
			// LookupEvents gives the same record as CloudTrailEvent.
			out, err := ct.LookupEvents(ctx, &cloudtrail.LookupEventsInput{LookupAttributes: attr(cttypes.LookupAttributeKeyEventId, rec["eventID"].(string))})
			if err != nil || len(out.Events) != 1 {
				t.Fatalf("LookupEvents by EventId: %d events, %v", len(out.Events), err)
			}
			var looked map[string]any
			if err := json.Unmarshal([]byte(aws.ToString(out.Events[0].CloudTrailEvent)), &looked); err != nil {
				t.Fatal(err)
			}
			for k := range mergeKeys(rec, looked) {
				if !reflect.DeepEqual(rec[k], looked[k]) {
					t.Errorf("%s: audit log %v, LookupEvents' CloudTrailEvent %v", k, rec[k], looked[k])
				}
			}
		})
	}

	log, err := os.ReadFile(filepath.Join(w.dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if s != "" && bytes.Contains(log, []byte(s)) {
			t.Errorf("the audit log holds a secret the client sent or received (%d bytes)", len(s))
		}
	}
}

// checkRecord checks one record against recordContents and the call's row.
func checkRecord(t *testing.T, rec map[string]any, c auditCall, account string) {
	t.Helper()
	for _, f := range alwaysPresent {
		if _, ok := rec[f]; !ok {
			t.Errorf("%s is missing; %s lists it in every record", f, recordContents)
		}
	}
	service, action, _ := strings.Cut(c.op, ":")
	want := map[string]any{
		"eventVersion": "1.08", "eventSource": service + ".amazonaws.com", "eventName": action,
		"eventType": "AwsApiCall", "eventCategory": "Management", "managementEvent": true, "recipientAccountId": account,
	}
	for k, v := range want {
		if rec[k] != v {
			t.Errorf("%s = %v, want %v", k, rec[k], v)
		}
	}
	for _, k := range []string{"awsRegion", "sourceIPAddress", "userAgent", "requestID", "eventID"} {
		if s, _ := rec[k].(string); s == "" {
			t.Errorf("%s is empty", k)
		}
	}
	if _, err := time.Parse(time.RFC3339, fmtString(rec["eventTime"])); err != nil {
		t.Errorf("eventTime %v: %v", rec["eventTime"], err)
	}
	if _, ok := rec["userIdentity"].(map[string]any); !ok {
		t.Errorf("userIdentity %v is not an object", rec["userIdentity"])
	}
	params, _ := rec["requestParameters"].(map[string]any)
	switch {
	case c.param == "" && rec["requestParameters"] != nil:
		t.Errorf("requestParameters = %v, want null for a request without parameters", rec["requestParameters"])
	case c.param != "" && params[c.param] == nil:
		t.Errorf("requestParameters = %v, want a member %s", rec["requestParameters"], c.param)
	}
	resp, _ := rec["responseElements"].(map[string]any)
	switch {
	case c.response == "" && rec["responseElements"] != nil:
		t.Errorf("responseElements = %v, want null", rec["responseElements"])
	case c.response != "" && resp[c.response] == nil:
		t.Errorf("responseElements = %v, want a member %s", rec["responseElements"], c.response)
	}
	if c.code != "" {
		if rec["errorCode"] != c.code || fmtString(rec["errorMessage"]) == "" {
			t.Errorf("errorCode %v, errorMessage %v; want %s and a message", rec["errorCode"], rec["errorMessage"], c.code)
		}
	} else if rec["errorCode"] != nil {
		t.Errorf("errorCode %v on a call that succeeded", rec["errorCode"])
	}
	for _, gone := range []string{"resource", "decision"} {
		if _, ok := rec[gone]; ok {
			t.Errorf("top-level %s: CloudTrail's records have none (%s)", gone, recordContents)
		}
	}
}

func ok2[T any](_ T, err error) ([]string, error) { return nil, err }

func fmtString(v any) string { s, _ := v.(string); return s }

func mergeKeys(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

// minus is the names of a that b lacks.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestRefusedCallsAreRecordedAsCloudTrailDoes pins the record of a refusal
// (recordContents: errorCode and errorMessage "if the request returns an
// error", responseElements null as for any call that changes nothing) and
// leash local's own account of it in additionalEventData.
func TestRefusedCallsAreRecordedAsCloudTrailDoes(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	bob := e.user(t, "bob", "")
	creds, err := bob.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := func(t *testing.T) map[string]any {
		t.Helper()
		lines := auditLines(t, e.dir)
		var rec map[string]any
		if err := json.Unmarshal(lines[len(lines)-1], &rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	bobIAM := e.iam(creds.AccessKeyID, creds.SecretAccessKey)

	t.Run("a call no policy allows names the engine's decision", func(t *testing.T) {
		_, err := bobIAM.ListUsers(ctx, &iam.ListUsersInput{})
		if apiCode(err) != "AccessDenied" {
			t.Fatalf("ListUsers without a policy: %v, want AccessDenied", err)
		}
		rec := last(t)
		if rec["eventName"] != "ListUsers" || rec["errorCode"] != "AccessDenied" || fmtString(rec["errorMessage"]) == "" {
			t.Errorf("eventName %v, errorCode %v, errorMessage %v; want ListUsers, AccessDenied and the message", rec["eventName"], rec["errorCode"], rec["errorMessage"])
		}
		if v, ok := rec["responseElements"]; !ok || v != nil {
			t.Errorf("responseElements = %v (present %v), want null", v, ok)
		}
		extra, _ := rec["additionalEventData"].(map[string]any)
		if extra["decision"] != "ImplicitDeny" || extra["authorizedResource"] != "arn:aws:iam::"+stsAccount+":user/" {
			t.Errorf("additionalEventData = %v, want decision ImplicitDeny on the account's users", rec["additionalEventData"])
		}
	})

	t.Run("a call with an inactive key is recorded under the action it named", func(t *testing.T) {
		if _, err := e.admin.UpdateAccessKey(ctx, &iam.UpdateAccessKeyInput{UserName: aws.String("bob"), AccessKeyId: aws.String(creds.AccessKeyID), Status: iamtypes.StatusTypeInactive}); err != nil {
			t.Fatal(err)
		}
		_, err := bobIAM.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("bob")})
		if apiCode(err) != "InvalidClientTokenId" {
			t.Fatalf("GetUser with an inactive key: %v, want InvalidClientTokenId", err)
		}
		rec := last(t)
		if rec["eventName"] != "GetUser" || rec["eventSource"] != "iam.amazonaws.com" || rec["errorCode"] != "InvalidClientTokenId" || fmtString(rec["errorMessage"]) == "" {
			t.Errorf("eventName %v, eventSource %v, errorCode %v, errorMessage %v; want GetUser on iam.amazonaws.com refused with InvalidClientTokenId",
				rec["eventName"], rec["eventSource"], rec["errorCode"], rec["errorMessage"])
		}
		// Nothing else of a request whose signature failed is taken in.
		if rec["requestParameters"] != nil || rec["additionalEventData"] != nil {
			t.Errorf("requestParameters %v, additionalEventData %v; want neither from an unauthenticated request", rec["requestParameters"], rec["additionalEventData"])
		}
	})
}

// TestLookupEventsRefusalIs400 pins CloudTrail's status for
// AccessDeniedException: 400, not IAM's 403 (CloudTrail API Reference,
// Common Errors: https://docs.aws.amazon.com/awscloudtrail/latest/APIReference/CommonErrors.html).
func TestLookupEventsRefusalIs400(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	creds, err := e.user(t, "bob", "").Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.cloudtrail(creds.AccessKeyID, creds.SecretAccessKey).LookupEvents(ctx, &cloudtrail.LookupEventsInput{})
	var resp *awshttp.ResponseError
	if apiCode(err) != "AccessDeniedException" || !errors.As(err, &resp) || resp.HTTPStatusCode() != http.StatusBadRequest {
		t.Fatalf("LookupEvents without a policy: %v, want AccessDeniedException with HTTP 400", err)
	}
}
