package localaws_test

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// The shapes and rules pinned here are those of the IAM API reference:
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_GetAccountAuthorizationDetails.html
// (Filter's values, MaxItems and Marker, IsTruncated, and policy documents
// "URL-encoded compliant with RFC 3986").

// spacedPolicy has the characters URL encoding must escape: spaces, a
// plus, a slash, an ampersand, a percent sign and a Latin-1 letter.
const spacedPolicy = `{ "Version": "2012-10-17", "Statement": [ { "Sid": "ReadAé", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/a+b&c%d/*" } ] }`

// groupsAccount has users in groups, groups with inline and attached
// policies (an AWS managed one attached to a group alone), and roles with
// and without an instance profile.
func groupsAccount(t *testing.T) *iam.Client {
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
	_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("ops-policy"), PolicyDocument: aws.String(readS3)})
	step("CreatePolicy", err)
	for _, g := range []string{"devs", "ops", "empty"} {
		_, err = admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String(g)})
		step("CreateGroup "+g, err)
	}
	_, err = admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("read"), PolicyDocument: aws.String(spacedPolicy)})
	step("PutGroupPolicy", err)
	_, err = admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String("arn:aws:iam::aws:policy/IAMFullAccess")})
	step("AttachGroupPolicy devs", err)
	_, err = admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("ops"), PolicyArn: aws.String("arn:aws:iam::" + account + ":policy/ops-policy")})
	step("AttachGroupPolicy ops", err)
	for user, groups := range map[string][]string{"alice": {"ops", "devs"}, "bob": {"devs"}} {
		_, err = admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(user)})
		step("CreateUser "+user, err)
		for _, g := range groups {
			_, err = admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{UserName: aws.String(user), GroupName: aws.String(g)})
			step("AddUserToGroup", err)
		}
	}
	for _, r := range []string{"web", "batch"} {
		_, err = admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(r), AssumeRolePolicyDocument: aws.String(trustEC2)})
		step("CreateRole "+r, err)
	}
	for _, p := range []string{"web-profile", "spare"} {
		_, err = admin.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String(p)})
		step("CreateInstanceProfile "+p, err)
	}
	_, err = admin.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("web-profile"), RoleName: aws.String("web")})
	step("AddRoleToInstanceProfile", err)
	return admin
}

func authorizationDetails(t *testing.T, admin *iam.Client, in *iam.GetAccountAuthorizationDetailsInput) *iam.GetAccountAuthorizationDetailsOutput {
	t.Helper()
	return must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(admin.GetAccountAuthorizationDetails(context.Background(), in))
}

// TestAccountAuthorizationDetailsGroupsAndInstanceProfiles pins each
// user's GroupList, each group's inline and attached policies, and each
// role's InstanceProfileList.
func TestAccountAuthorizationDetailsGroupsAndInstanceProfiles(t *testing.T) {
	admin := groupsAccount(t)
	out := authorizationDetails(t, admin, &iam.GetAccountAuthorizationDetailsInput{})

	groupLists := map[string][]string{}
	for _, u := range out.UserDetailList {
		groupLists[aws.ToString(u.UserName)] = slices.Sorted(slices.Values(u.GroupList))
	}
	if !slices.Equal(groupLists["alice"], []string{"devs", "ops"}) || !slices.Equal(groupLists["bob"], []string{"devs"}) {
		t.Errorf("GroupLists = %v, want alice in devs and ops, bob in devs", groupLists)
	}

	groups := map[string]types.GroupDetail{}
	for _, g := range out.GroupDetailList {
		groups[aws.ToString(g.GroupName)] = g
	}
	if len(groups) != 3 {
		t.Fatalf("GroupDetailList has %v, want devs, ops and empty", slices.Sorted(maps.Keys(groups)))
	}
	devs := groups["devs"]
	if aws.ToString(devs.Arn) != "arn:aws:iam::"+account+":group/devs" || !strings.HasPrefix(aws.ToString(devs.GroupId), "AGPA") || devs.CreateDate == nil {
		t.Errorf("devs: Arn %q GroupId %q CreateDate %v", aws.ToString(devs.Arn), aws.ToString(devs.GroupId), devs.CreateDate)
	}
	if l := devs.GroupPolicyList; len(l) != 1 || aws.ToString(l[0].PolicyName) != "read" || rfc3986Decoded(t, l[0].PolicyDocument) != spacedPolicy {
		t.Errorf("devs GroupPolicyList = %+v, want read with the document written", l)
	}
	if a := devs.AttachedManagedPolicies; len(a) != 1 || aws.ToString(a[0].PolicyName) != "IAMFullAccess" {
		t.Errorf("devs AttachedManagedPolicies = %+v, want IAMFullAccess", a)
	}
	if a := groups["ops"].AttachedManagedPolicies; len(a) != 1 || aws.ToString(a[0].PolicyArn) != "arn:aws:iam::"+account+":policy/ops-policy" {
		t.Errorf("ops AttachedManagedPolicies = %+v, want ops-policy", a)
	}
	if e := groups["empty"]; e.GroupPolicyList == nil || len(e.GroupPolicyList) != 0 || e.AttachedManagedPolicies == nil || len(e.AttachedManagedPolicies) != 0 {
		t.Errorf("empty: GroupPolicyList %v AttachedManagedPolicies %v, want both present and empty", e.GroupPolicyList, e.AttachedManagedPolicies)
	}

	roles := map[string]types.RoleDetail{}
	for _, r := range out.RoleDetailList {
		roles[aws.ToString(r.RoleName)] = r
	}
	web := roles["web"].InstanceProfileList
	if len(web) != 1 || aws.ToString(web[0].InstanceProfileName) != "web-profile" ||
		aws.ToString(web[0].Arn) != "arn:aws:iam::"+account+":instance-profile/web-profile" ||
		len(web[0].Roles) != 1 || aws.ToString(web[0].Roles[0].RoleName) != "web" {
		t.Errorf("web InstanceProfileList = %+v, want web-profile holding web", web)
	}
	if b := roles["batch"].InstanceProfileList; b == nil || len(b) != 0 {
		t.Errorf("batch InstanceProfileList = %v, want present and empty", b)
	}
}

// rfc3986 is a string of RFC 3986 unreserved characters and percent
// escapes: no space, no plus, nothing a decoder could read two ways.
var rfc3986 = regexp.MustCompile(`^([A-Za-z0-9._~-]|%[0-9A-F]{2})*$`)

// rfc3986Decoded checks that a document is percent-encoded as RFC 3986
// has it (spaces %20, not +) and returns it decoded as the SDKs decode it.
func rfc3986Decoded(t *testing.T, doc *string) string {
	t.Helper()
	raw := aws.ToString(doc)
	if !rfc3986.MatchString(raw) {
		t.Fatalf("document %q has characters RFC 3986 would escape", raw)
	}
	s, err := url.PathUnescape(raw)
	if err != nil {
		t.Fatalf("document %q: %v", raw, err)
	}
	return s
}

// TestAccountAuthorizationDetailsEncodesDocumentsAsRFC3986 pins the
// encoding of every kind of document: inline (user, group, role), trust
// and managed policy versions, with spaces as %20 and + as %2B.
func TestAccountAuthorizationDetailsEncodesDocumentsAsRFC3986(t *testing.T) {
	admin := groupsAccount(t)
	ctx := context.Background()
	spacedTrust := `{ "Version": "2012-10-17", "Statement": [ { "Effect": "Allow", "Principal": { "Service": "ec2.amazonaws.com" }, "Action": "sts:AssumeRole" } ] }`
	for what, err := range map[string]error{
		"PutUserPolicy": func() error {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("spaced"), PolicyDocument: aws.String(spacedPolicy)})
			return err
		}(),
		"PutRolePolicy": func() error {
			_, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("web"), PolicyName: aws.String("spaced"), PolicyDocument: aws.String(spacedPolicy)})
			return err
		}(),
		"UpdateAssumeRolePolicy": func() error {
			_, err := admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("web"), PolicyDocument: aws.String(spacedTrust)})
			return err
		}(),
		"CreatePolicy": func() error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("spaced"), PolicyDocument: aws.String(spacedPolicy)})
			return err
		}(),
	} {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	out := authorizationDetails(t, admin, &iam.GetAccountAuthorizationDetailsInput{})
	docs := map[string]*string{}
	for _, u := range out.UserDetailList {
		for _, p := range u.UserPolicyList {
			docs["user "+aws.ToString(u.UserName)+" "+aws.ToString(p.PolicyName)] = p.PolicyDocument
		}
	}
	for _, g := range out.GroupDetailList {
		for _, p := range g.GroupPolicyList {
			docs["group "+aws.ToString(g.GroupName)+" "+aws.ToString(p.PolicyName)] = p.PolicyDocument
		}
	}
	for _, r := range out.RoleDetailList {
		for _, p := range r.RolePolicyList {
			docs["role "+aws.ToString(r.RoleName)+" "+aws.ToString(p.PolicyName)] = p.PolicyDocument
		}
		docs["trust "+aws.ToString(r.RoleName)] = r.AssumeRolePolicyDocument
	}
	for _, p := range out.Policies {
		for _, v := range p.PolicyVersionList {
			docs["policy "+aws.ToString(p.PolicyName)+" "+aws.ToString(v.VersionId)] = v.Document
		}
	}
	for key, want := range map[string]string{
		"user bob spaced": spacedPolicy, "group devs read": spacedPolicy, "role web spaced": spacedPolicy,
		"trust web": spacedTrust, "policy spaced v1": spacedPolicy,
	} {
		doc, ok := docs[key]
		if !ok {
			t.Errorf("no document for %s", key)
			continue
		}
		if got := rfc3986Decoded(t, doc); got != want {
			t.Errorf("%s decodes to %q, want %q", key, got, want)
		}
		if raw := aws.ToString(doc); !strings.Contains(raw, "%20") || (strings.Contains(want, "+") && !strings.Contains(raw, "%2B")) {
			t.Errorf("%s = %q, want spaces as %%20 and + as %%2B", key, raw)
		}
	}
}

// detailsSequence is a response's entities in the order IAM pages them:
// users, groups, roles, then policies.
func detailsSequence(out *iam.GetAccountAuthorizationDetailsOutput) []string {
	return names(out.UserDetailList, out.GroupDetailList, out.RoleDetailList, out.Policies)
}

// TestAccountAuthorizationDetailsFiltersWithGroups pins each Filter value
// and several at once over an account with groups: Group gives the
// groups, AWSManagedPolicy the AWS managed policy attached to a group
// alone, and naming all five is the same as naming none.
func TestAccountAuthorizationDetailsFiltersWithGroups(t *testing.T) {
	admin := groupsAccount(t)
	all := detailsSequence(authorizationDetails(t, admin, &iam.GetAccountAuthorizationDetailsInput{}))
	only := func(prefixes ...string) []string {
		var out []string
		for _, w := range all {
			for _, p := range prefixes {
				if strings.HasPrefix(w, p) {
					out = append(out, w)
				}
			}
		}
		return out
	}
	if want := "policy arn:aws:iam::aws:policy/IAMFullAccess"; !slices.Contains(all, want) {
		t.Fatalf("the whole snapshot lacks %s, attached to a group:\n%s", want, strings.Join(all, "\n"))
	}
	tests := []struct {
		name   string
		filter []types.EntityType
		want   []string
	}{
		{"Group gives only groups", []types.EntityType{types.EntityTypeGroup}, []string{"group devs", "group empty", "group ops"}},
		{"User gives only users", []types.EntityType{types.EntityTypeUser}, only("user ")},
		{"Role gives only roles", []types.EntityType{types.EntityTypeRole}, []string{"role batch", "role web"}},
		{"AWSManagedPolicy gives the one attached to a group alone", []types.EntityType{types.EntityTypeAWSManagedPolicy}, []string{"policy arn:aws:iam::aws:policy/IAMFullAccess"}},
		{"LocalManagedPolicy gives the account's", []types.EntityType{types.EntityTypeLocalManagedPolicy}, []string{"policy arn:aws:iam::" + account + ":policy/ops-policy"}},
		{"Group and AWSManagedPolicy give both, in IAM's order", []types.EntityType{types.EntityTypeAWSManagedPolicy, types.EntityTypeGroup},
			[]string{"group devs", "group empty", "group ops", "policy arn:aws:iam::aws:policy/IAMFullAccess"}},
		{"both policy kinds give every policy listed", []types.EntityType{types.EntityTypeLocalManagedPolicy, types.EntityTypeAWSManagedPolicy}, only("policy ")},
		{"User, Group and Role give the principals", []types.EntityType{types.EntityTypeRole, types.EntityTypeGroup, types.EntityTypeUser}, only("user ", "group ", "role ")},
		{"all five are the same as none", []types.EntityType{types.EntityTypeUser, types.EntityTypeRole, types.EntityTypeGroup, types.EntityTypeLocalManagedPolicy, types.EntityTypeAWSManagedPolicy}, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := detailsSequence(authorizationDetails(t, admin, &iam.GetAccountAuthorizationDetailsInput{Filter: tt.filter}))
			if !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestAccountAuthorizationDetailsPagesInIAMsOrder pages at several sizes,
// with and without a filter, and pins that the pages joined are the whole
// snapshot in the same order (users, groups, roles, policies), that every
// page but the last is full and truncated with a Marker, and that the last
// has neither.
func TestAccountAuthorizationDetailsPagesInIAMsOrder(t *testing.T) {
	admin := groupsAccount(t)
	filters := map[string][]types.EntityType{
		"no filter":       nil,
		"Group and Role":  {types.EntityTypeGroup, types.EntityTypeRole},
		"User and policy": {types.EntityTypeUser, types.EntityTypeAWSManagedPolicy},
	}
	for fname, filter := range filters {
		whole := detailsSequence(authorizationDetails(t, admin, &iam.GetAccountAuthorizationDetailsInput{Filter: filter}))
		kinds := []string{"user", "group", "role", "policy"}
		if !slices.IsSortedFunc(whole, func(a, b string) int {
			ka, _, _ := strings.Cut(a, " ")
			kb, _, _ := strings.Cut(b, " ")
			return slices.Index(kinds, ka) - slices.Index(kinds, kb)
		}) {
			t.Errorf("%s: snapshot not in IAM's order (users, groups, roles, policies):\n%s", fname, strings.Join(whole, "\n"))
		}
		for _, size := range []int32{1, 2, 3, int32(len(whole)), int32(len(whole) + 1)} {
			t.Run(fmt.Sprintf("%s by %d", fname, size), func(t *testing.T) {
				var got []string
				in := &iam.GetAccountAuthorizationDetailsInput{Filter: filter, MaxItems: aws.Int32(size)}
				for pages := 1; ; pages++ {
					if pages > len(whole)+1 {
						t.Fatalf("more than %d pages", len(whole)+1)
					}
					out := authorizationDetails(t, admin, in)
					page := detailsSequence(out)
					got = append(got, page...)
					if !out.IsTruncated {
						if out.Marker != nil {
							t.Errorf("last page has Marker %q", aws.ToString(out.Marker))
						}
						break
					}
					if len(page) != int(size) || out.Marker == nil {
						t.Fatalf("page %d: %d items, Marker %v, want %d and a Marker on a truncated page", pages, len(page), out.Marker, size)
					}
					in.Marker = out.Marker
				}
				if !slices.Equal(got, whole) {
					t.Errorf("pages joined:\n%s\nwant the snapshot in order:\n%s", strings.Join(got, "\n"), strings.Join(whole, "\n"))
				}
			})
		}
	}
}
