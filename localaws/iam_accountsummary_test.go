package localaws_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// The IAM API reference's GetAccountSummary page lists SummaryMap's valid
// keys: https://docs.aws.amazon.com/IAM/latest/APIReference/API_GetAccountSummary.html
// The SDK's SummaryKeyType enumerates the same keys, in the same order.

// accountSummary is the SummaryMap of GetAccountSummary.
func accountSummary(t *testing.T, client *iam.Client) map[string]int32 {
	t.Helper()
	out := must[*iam.GetAccountSummaryOutput](t, "GetAccountSummary")(client.GetAccountSummary(context.Background(), &iam.GetAccountSummaryInput{}))
	return out.SummaryMap
}

// TestAccountSummaryHasEveryDocumentedKey pins that SummaryMap holds every
// key the API reference lists and no other, and that what leash local has
// no counterpart of (the root user's credentials and MFA, MFA devices,
// server certificates) is reported as none.
func TestAccountSummaryHasEveryDocumentedKey(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	got := accountSummary(t, e.IAM(nil))
	var want []string
	for _, k := range types.SummaryKeyType("").Values() {
		want = append(want, string(k))
	}
	slices.Sort(want)
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, want) {
		t.Fatalf("SummaryMap keys:\n%s\nwant the API reference's:\n%s", strings.Join(keys, " "), strings.Join(want, " "))
	}
	for _, k := range []string{
		"AccountAccessKeysPresent", "AccountPasswordPresent", "AccountSigningCertificatesPresent", "AccountMFAEnabled",
		"MFADevices", "MFADevicesInUse", "ServerCertificates",
	} {
		if got[k] != 0 {
			t.Errorf("%s = %d, want 0: leash local has no root credentials, MFA devices or server certificates", k, got[k])
		}
	}
	if got["GlobalEndpointTokenVersion"] != 1 {
		t.Errorf("GlobalEndpointTokenVersion = %d, want 1, a new account's", got["GlobalEndpointTokenVersion"])
	}
}

// TestAccountSummaryQuotasAreTheDefaults pins the quotas leash local
// enforces none of to IAM's defaults for a new account, from the IAM User
// Guide's quotas page:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html
// (PolicyVersionsInUseQuota from the API reference's example response).
func TestAccountSummaryQuotasAreTheDefaults(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	got := accountSummary(t, e.IAM(nil))
	for key, want := range map[string]int32{
		"UsersQuota": 5000, "GroupsQuota": 300, "RolesQuota": 1000, "PoliciesQuota": 1500,
		"InstanceProfilesQuota": 1000, "ServerCertificatesQuota": 20, "SigningCertificatesPerUserQuota": 2,
		"PolicyVersionsInUseQuota": 10000,
	} {
		if got[key] != want {
			t.Errorf("%s = %d, want IAM's default %d", key, got[key], want)
		}
	}
}

// sizedPolicy is a permissions policy of exactly n characters, none of
// them white space.
func sizedPolicy(n int) string {
	head, tail := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::`, `"}]}`
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// sizedTrust is a trust policy of exactly n characters, none of them white
// space.
func sizedTrust(n int) string {
	head := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole","Condition":{"StringEquals":{"sts:ExternalId":"`
	tail := `"}}}]}`
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// TestAccountSummaryQuotasAreTheLimitsEnforced pins each quota leash local
// enforces to the limit it enforces: the quota-th of a thing is accepted
// and the one after it refused with LimitExceeded, as IAM refuses it.
func TestAccountSummaryQuotasAreTheLimitsEnforced(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	quotas := accountSummary(t, admin)
	n := 0
	unique := func(prefix string) string { n++; return fmt.Sprintf("%s-%d", prefix, n) }
	policy := func() string {
		name := unique("p")
		must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(name), PolicyDocument: aws.String(readS3)}))
		return "arn:aws:iam::" + account + ":policy/" + name
	}
	user := func() string {
		name := unique("u")
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}))
		return name
	}
	group := func() string {
		name := unique("g")
		must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String(name)}))
		return name
	}
	role := func() string {
		name := unique("r")
		must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trustEC2)}))
		return name
	}
	// Each case makes the quota-th of something (i counts from 1) on a
	// fresh owner; a count quota is probed by repeating it, a size quota by
	// a document of the quota's size and one a character longer.
	tests := []struct {
		quota string
		count func(owner string, i int) error
		size  func(owner string, size int) error
		owner func() string
	}{
		{quota: "AccessKeysPerUserQuota", owner: user, count: func(u string, _ int) error {
			_, err := admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(u)})
			return err
		}},
		{quota: "GroupsPerUserQuota", owner: user, count: func(u string, _ int) error {
			_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{UserName: aws.String(u), GroupName: aws.String(group())})
			return err
		}},
		{quota: "AttachedPoliciesPerUserQuota", owner: user, count: func(u string, _ int) error {
			_, err := admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String(u), PolicyArn: aws.String(policy())})
			return err
		}},
		{quota: "AttachedPoliciesPerGroupQuota", owner: group, count: func(g string, _ int) error {
			_, err := admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String(g), PolicyArn: aws.String(policy())})
			return err
		}},
		{quota: "AttachedPoliciesPerRoleQuota", owner: role, count: func(r string, _ int) error {
			_, err := admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String(r), PolicyArn: aws.String(policy())})
			return err
		}},
		{quota: "VersionsPerPolicyQuota", owner: policy, count: func(p string, i int) error {
			if i == 1 {
				return nil // CreatePolicy made v1
			}
			_, err := admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: aws.String(p), PolicyDocument: aws.String(readS3v2)})
			return err
		}},
		{quota: "UserPolicySizeQuota", owner: user, size: func(u string, size int) error {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(u), PolicyName: aws.String("p"), PolicyDocument: aws.String(sizedPolicy(size))})
			return err
		}},
		{quota: "GroupPolicySizeQuota", owner: group, size: func(g string, size int) error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String(g), PolicyName: aws.String("p"), PolicyDocument: aws.String(sizedPolicy(size))})
			return err
		}},
		{quota: "RolePolicySizeQuota", owner: role, size: func(r string, size int) error {
			_, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(r), PolicyName: aws.String("p"), PolicyDocument: aws.String(sizedPolicy(size))})
			return err
		}},
		{quota: "PolicySizeQuota", owner: func() string { return "" }, size: func(_ string, size int) error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(unique("sized")), PolicyDocument: aws.String(sizedPolicy(size))})
			return err
		}},
		{quota: "AssumeRolePolicySizeQuota", owner: role, size: func(r string, size int) error {
			_, err := admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String(r), PolicyDocument: aws.String(sizedTrust(size))})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.quota+" is the limit enforced", func(t *testing.T) {
			q := int(quotas[tt.quota])
			if q < 1 {
				t.Fatalf("%s = %d", tt.quota, q)
			}
			owner := tt.owner()
			try := func(i int) error { return tt.size(owner, i) }
			if tt.count != nil {
				for i := 1; i < q; i++ {
					if err := tt.count(owner, i); err != nil {
						t.Fatalf("%s: number %d of %d refused: %v", tt.quota, i, q, err)
					}
				}
				try = func(i int) error { return tt.count(owner, i) }
			}
			if err := try(q); err != nil {
				t.Fatalf("%s: at the quota %d, refused: %v", tt.quota, q, err)
			}
			if err := try(q + 1); apiCode(err) != "LimitExceeded" {
				t.Fatalf("%s: one past the quota %d: err = %v, want LimitExceeded", tt.quota, q, err)
			}
		})
	}
}

// TestAccountSummaryCountsFollowTheStore creates a different number of
// each entity (so that no count can stand in for another) and checks that
// each count moves by its number, that PolicyVersionsInUse counts
// attachments (customer managed and AWS managed policies, to users, groups
// and roles, but not a permissions boundary), and that deleting them
// brings every count back.
func TestAccountSummaryCountsFollowTheStore(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	before := accountSummary(t, admin)
	local := "arn:aws:iam::" + account + ":policy/counted-1"
	readOnly := "arn:aws:iam::aws:policy/IAMReadOnlyAccess"
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	name := func(i int) *string { return aws.String(fmt.Sprintf("counted-%d", i)) }
	const users, groups, roles, policies, profiles, providers = 1, 2, 3, 4, 5, 6
	for i := range policies {
		_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: name(i + 1), PolicyDocument: aws.String(readS3)})
		step("CreatePolicy", err)
	}
	for i := range users {
		_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: name(i + 1), PermissionsBoundary: aws.String(local)})
		step("CreateUser", err)
		_, err = admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: name(i + 1), PolicyArn: aws.String(local)})
		step("AttachUserPolicy", err)
	}
	for i := range groups {
		_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: name(i + 1)})
		step("CreateGroup", err)
		_, err = admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: name(i + 1), PolicyArn: aws.String(readOnly)})
		step("AttachGroupPolicy", err)
	}
	for i := range roles {
		_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: name(i + 1), AssumeRolePolicyDocument: aws.String(trustEC2)})
		step("CreateRole", err)
		for _, arn := range []string{readOnly, local} {
			_, err = admin.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: name(i + 1), PolicyArn: aws.String(arn)})
			step("AttachRolePolicy", err)
		}
	}
	for i := range profiles {
		_, err := admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: name(i + 1)})
		step("CreateInstanceProfile", err)
	}
	var providerARNs []*string
	for i := range providers {
		p, err := admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String(fmt.Sprintf("https://issuer.example.com/counted-%d", i))})
		step("CreateOpenIDConnectProvider", err)
		providerARNs = append(providerARNs, p.OpenIDConnectProviderArn)
	}

	after := accountSummary(t, admin)
	moved := map[string]int32{
		"Users": users, "Groups": groups, "Roles": roles, "Policies": policies, "InstanceProfiles": profiles, "Providers": providers,
		"PolicyVersionsInUse": users + groups + 2*roles,
	}
	for key, v := range after {
		if d := v - before[key]; d != moved[key] {
			t.Errorf("%s went from %d to %d, want a change of %d", key, before[key], v, moved[key])
		}
	}

	for i := range users {
		_, err := admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: name(i + 1), PolicyArn: aws.String(local)})
		step("DetachUserPolicy", err)
		_, err = admin.DeleteUserPermissionsBoundary(ctx, &iam.DeleteUserPermissionsBoundaryInput{UserName: name(i + 1)})
		step("DeleteUserPermissionsBoundary", err)
		_, err = admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: name(i + 1)})
		step("DeleteUser", err)
	}
	for i := range groups {
		_, err := admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: name(i + 1), PolicyArn: aws.String(readOnly)})
		step("DetachGroupPolicy", err)
		_, err = admin.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: name(i + 1)})
		step("DeleteGroup", err)
	}
	for i := range roles {
		for _, arn := range []string{readOnly, local} {
			_, err := admin.DetachRolePolicy(ctx, &iam.DetachRolePolicyInput{RoleName: name(i + 1), PolicyArn: aws.String(arn)})
			step("DetachRolePolicy", err)
		}
		_, err := admin.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: name(i + 1)})
		step("DeleteRole", err)
	}
	for i := range policies {
		_, err := admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: aws.String("arn:aws:iam::" + account + ":policy/" + *name(i + 1))})
		step("DeletePolicy", err)
	}
	for i := range profiles {
		_, err := admin.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: name(i + 1)})
		step("DeleteInstanceProfile", err)
	}
	for _, arn := range providerARNs {
		_, err := admin.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn})
		step("DeleteOpenIDConnectProvider", err)
	}
	if gone := accountSummary(t, admin); !maps.Equal(gone, before) {
		t.Errorf("after deleting everything SummaryMap = %v, want it as before: %v", gone, before)
	}
}

// TestAccountSummaryNeedsPermissionOnStar pins the authorization:
// iam:GetAccountSummary has no resource type, so only a grant on "*"
// allows it, and a refusal names resource "*".
func TestAccountSummaryNeedsPermissionOnStar(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	tests := []struct {
		name   string
		policy string
		denied bool
	}{
		{"no policy is denied", "", true},
		{"an allow on users only is denied", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetAccountSummary","Resource":"arn:aws:iam::*:user/*"}]}`, true},
		{"an allow on * reads the summary", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetAccountSummary","Resource":"*"}]}`, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := fmt.Sprintf("summary-reader-%d", i)
			must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}))
			if tt.policy != "" {
				must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("p"), PolicyDocument: aws.String(tt.policy)}))
			}
			k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)}))
			reader := e.IAM(credentials.NewStaticCredentialsProvider(aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey), ""))
			out, err := reader.GetAccountSummary(ctx, &iam.GetAccountSummaryInput{})
			if tt.denied {
				want := "User: arn:aws:iam::" + account + ":user/" + name + " is not authorized to perform: iam:GetAccountSummary on resource: *"
				if apiCode(err) != "AccessDenied" || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want AccessDenied: %s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.SummaryMap["Users"] < 2 {
				t.Errorf("Users = %d, want at least the administrator and the reader", out.SummaryMap["Users"])
			}
		})
	}
}
