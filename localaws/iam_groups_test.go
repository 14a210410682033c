package localaws_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
)

// wantRefusal fails unless err is an API error with code whose message
// holds words.
func wantRefusal(t *testing.T, what string, err error, code, words string) {
	t.Helper()
	if apiCode(err) != code || !strings.Contains(fmt.Sprint(err), words) {
		t.Errorf("%s: %v, want %s saying %q", what, err, code, words)
	}
}

func groupNames(gs []types.Group) []string {
	var names []string
	for _, g := range gs {
		names = append(names, aws.ToString(g.GroupName))
	}
	return names
}

func userNames(us []types.User) []string {
	var names []string
	for _, u := range us {
		names = append(names, aws.ToString(u.UserName))
	}
	return names
}

func TestGroupLifecycle(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	created := must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("Devs"), Path: aws.String("/eng/")})).Group
	if aws.ToString(created.Arn) != "arn:aws:iam::"+account+":group/eng/Devs" || !strings.HasPrefix(aws.ToString(created.GroupId), "AGPA") ||
		len(aws.ToString(created.GroupId)) != 21 || aws.ToString(created.Path) != "/eng/" || created.CreateDate == nil {
		t.Errorf("CreateGroup = %+v", created)
	}
	must[*iam.CreateGroupOutput](t, "CreateGroup ops")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("ops")}))
	for _, name := range []string{"alice", "bob", "carol"} {
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}))
	}
	for _, name := range []string{"carol", "alice", "bob"} {
		must[*iam.AddUserToGroupOutput](t, "AddUserToGroup")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String(name)}))
	}
	// Adding a member again does nothing.
	must[*iam.AddUserToGroupOutput](t, "AddUserToGroup again")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("Devs"), UserName: aws.String("ALICE")}))
	must[*iam.AddUserToGroupOutput](t, "AddUserToGroup ops")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("ops"), UserName: aws.String("alice")}))

	t.Run("GetGroup pages its users by name", func(t *testing.T) {
		var users []string
		var marker *string
		for pages := 0; ; pages++ {
			out := must[*iam.GetGroupOutput](t, "GetGroup")(admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("DEVS"), MaxItems: aws.Int32(2), Marker: marker}))
			if aws.ToString(out.Group.GroupName) != "Devs" || aws.ToString(out.Group.GroupId) != aws.ToString(created.GroupId) {
				t.Errorf("GetGroup's group = %+v", out.Group)
			}
			users = append(users, userNames(out.Users)...)
			if !out.IsTruncated {
				if pages != 1 {
					t.Errorf("3 users in pages of 2 took %d pages", pages+1)
				}
				break
			}
			marker = out.Marker
		}
		if !slices.Equal(users, []string{"alice", "bob", "carol"}) {
			t.Errorf("GetGroup users = %v", users)
		}
	})
	t.Run("ListGroups pages and filters by path", func(t *testing.T) {
		first := must[*iam.ListGroupsOutput](t, "ListGroups")(admin.ListGroups(ctx, &iam.ListGroupsInput{MaxItems: aws.Int32(1)}))
		if !first.IsTruncated || !slices.Equal(groupNames(first.Groups), []string{"Devs"}) {
			t.Fatalf("first page = %v truncated %v", groupNames(first.Groups), first.IsTruncated)
		}
		second := must[*iam.ListGroupsOutput](t, "ListGroups")(admin.ListGroups(ctx, &iam.ListGroupsInput{MaxItems: aws.Int32(1), Marker: first.Marker}))
		if second.IsTruncated || !slices.Equal(groupNames(second.Groups), []string{"ops"}) {
			t.Errorf("second page = %v truncated %v", groupNames(second.Groups), second.IsTruncated)
		}
		under := must[*iam.ListGroupsOutput](t, "ListGroups")(admin.ListGroups(ctx, &iam.ListGroupsInput{PathPrefix: aws.String("/eng")}))
		if !slices.Equal(groupNames(under.Groups), []string{"Devs"}) {
			t.Errorf("ListGroups under /eng = %v", groupNames(under.Groups))
		}
	})
	t.Run("ListGroupsForUser lists the user's groups", func(t *testing.T) {
		out := must[*iam.ListGroupsForUserOutput](t, "ListGroupsForUser")(admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("alice")}))
		if !slices.Equal(groupNames(out.Groups), []string{"Devs", "ops"}) || out.IsTruncated {
			t.Errorf("alice's groups = %v", groupNames(out.Groups))
		}
		page := must[*iam.ListGroupsForUserOutput](t, "ListGroupsForUser")(admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("alice"), MaxItems: aws.Int32(1)}))
		if !page.IsTruncated || !slices.Equal(groupNames(page.Groups), []string{"Devs"}) {
			t.Errorf("alice's first group of 1 = %v truncated %v", groupNames(page.Groups), page.IsTruncated)
		}
		none := must[*iam.ListGroupsForUserOutput](t, "ListGroupsForUser")(admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("bob")}))
		if !slices.Equal(groupNames(none.Groups), []string{"Devs"}) {
			t.Errorf("bob's groups = %v", groupNames(none.Groups))
		}
	})
	t.Run("UpdateGroup renames and moves it with its members and policies", func(t *testing.T) {
		must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("Devs"), PolicyName: aws.String("p"), PolicyDocument: aws.String(allowAll)}))
		must[*iam.UpdateGroupOutput](t, "UpdateGroup")(admin.UpdateGroup(ctx, &iam.UpdateGroupInput{GroupName: aws.String("Devs"), NewGroupName: aws.String("builders"), NewPath: aws.String("/build/")}))
		_, err := admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("Devs")})
		wantRefusal(t, "GetGroup by the old name", err, "NoSuchEntity", "The group with name Devs cannot be found.")
		out := must[*iam.GetGroupOutput](t, "GetGroup")(admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("builders")}))
		if aws.ToString(out.Group.Arn) != "arn:aws:iam::"+account+":group/build/builders" || aws.ToString(out.Group.GroupId) != aws.ToString(created.GroupId) {
			t.Errorf("renamed group = %+v", out.Group)
		}
		if !slices.Equal(userNames(out.Users), []string{"alice", "bob", "carol"}) {
			t.Errorf("renamed group's users = %v", userNames(out.Users))
		}
		names := must[*iam.ListGroupPoliciesOutput](t, "ListGroupPolicies")(admin.ListGroupPolicies(ctx, &iam.ListGroupPoliciesInput{GroupName: aws.String("builders")})).PolicyNames
		if !slices.Equal(names, []string{"p"}) {
			t.Errorf("renamed group's policies = %v", names)
		}
		groups := must[*iam.ListGroupsForUserOutput](t, "ListGroupsForUser")(admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("carol")}))
		if !slices.Equal(groupNames(groups.Groups), []string{"builders"}) {
			t.Errorf("carol's groups after the rename = %v", groupNames(groups.Groups))
		}
		_, err = admin.UpdateGroup(ctx, &iam.UpdateGroupInput{GroupName: aws.String("builders"), NewGroupName: aws.String("OPS")})
		wantRefusal(t, "UpdateGroup to a taken name", err, "EntityAlreadyExists", "Group with name OPS already exists.")
	})
	t.Run("a renamed user keeps its groups", func(t *testing.T) {
		must[*iam.UpdateUserOutput](t, "UpdateUser")(admin.UpdateUser(ctx, &iam.UpdateUserInput{UserName: aws.String("bob"), NewUserName: aws.String("robert")}))
		out := must[*iam.GetGroupOutput](t, "GetGroup")(admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("builders")}))
		if !slices.Equal(userNames(out.Users), []string{"alice", "carol", "robert"}) {
			t.Errorf("group users after renaming bob = %v", userNames(out.Users))
		}
	})
	t.Run("RemoveUserFromGroup", func(t *testing.T) {
		must[*iam.RemoveUserFromGroupOutput](t, "RemoveUserFromGroup")(admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("builders"), UserName: aws.String("carol")}))
		out := must[*iam.GetGroupOutput](t, "GetGroup")(admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("builders")}))
		if !slices.Equal(userNames(out.Users), []string{"alice", "robert"}) {
			t.Errorf("group users after removing carol = %v", userNames(out.Users))
		}
		groups := must[*iam.ListGroupsForUserOutput](t, "ListGroupsForUser")(admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("carol")}))
		if len(groups.Groups) != 0 {
			t.Errorf("carol's groups after removal = %v", groupNames(groups.Groups))
		}
	})
}

// TestGroupErrorCodes pins the codes and words IAM answers group requests
// it refuses with.
func TestGroupErrorCodes(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs")}))
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	tests := []struct {
		name, code, words string
		call              func() error
	}{
		{"a group name taken in another case is EntityAlreadyExists", "EntityAlreadyExists", "Group with name DEVS already exists.", func() error {
			_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("DEVS")})
			return err
		}},
		{"a group name with a slash is a ValidationError", "ValidationError", "groupName", func() error {
			_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("a/b")})
			return err
		}},
		{"a path without a trailing slash is a ValidationError", "ValidationError", "path", func() error {
			_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("x"), Path: aws.String("/eng")})
			return err
		}},
		{"GetGroup of a missing group", "NoSuchEntity", "The group with name nobody cannot be found.", func() error {
			_, err := admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: aws.String("nobody")})
			return err
		}},
		{"DeleteGroup of a missing group", "NoSuchEntity", "The group with name nobody cannot be found.", func() error {
			_, err := admin.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: aws.String("nobody")})
			return err
		}},
		{"UpdateGroup of a missing group", "NoSuchEntity", "The group with name nobody cannot be found.", func() error {
			_, err := admin.UpdateGroup(ctx, &iam.UpdateGroupInput{GroupName: aws.String("nobody"), NewPath: aws.String("/x/")})
			return err
		}},
		{"AddUserToGroup of a missing group", "NoSuchEntity", "The group with name nobody cannot be found.", func() error {
			_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("nobody"), UserName: aws.String("alice")})
			return err
		}},
		{"AddUserToGroup of a missing user", "NoSuchEntity", "The user with name nobody cannot be found.", func() error {
			_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("devs"), UserName: aws.String("nobody")})
			return err
		}},
		{"RemoveUserFromGroup of a user not in it", "NoSuchEntity", "The user with name alice cannot be found.", func() error {
			_, err := admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("devs"), UserName: aws.String("alice")})
			return err
		}},
		{"ListGroupsForUser of a missing user", "NoSuchEntity", "The user with name nobody cannot be found.", func() error {
			_, err := admin.ListGroupsForUser(ctx, &iam.ListGroupsForUserInput{UserName: aws.String("nobody")})
			return err
		}},
		{"GetGroupPolicy of a missing policy", "NoSuchEntity", "The group policy with name p cannot be found.", func() error {
			_, err := admin.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p")})
			return err
		}},
		{"DeleteGroupPolicy of a missing policy", "NoSuchEntity", "The group policy with name p cannot be found.", func() error {
			_, err := admin.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p")})
			return err
		}},
		{"PutGroupPolicy of a malformed document", "MalformedPolicyDocument", "", func() error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p"), PolicyDocument: aws.String(`{"Statement":"nope"}`)})
			return err
		}},
		{"PutGroupPolicy on a missing group", "NoSuchEntity", "The group with name nobody cannot be found.", func() error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("nobody"), PolicyName: aws.String("p"), PolicyDocument: aws.String(allowAll)})
			return err
		}},
		{"AttachGroupPolicy of a policy that does not exist", "NoSuchEntity", "does not exist or is not attachable", func() error {
			_, err := admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String("arn:aws:iam::" + account + ":policy/nothing")})
			return err
		}},
		{"DetachGroupPolicy of a policy not attached", "NoSuchEntity", "was not found", func() error {
			_, err := admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: aws.String("arn:aws:iam::" + account + ":policy/nothing")})
			return err
		}},
		{"ListAttachedGroupPolicies of a missing group", "NoSuchEntity", "The group with name nobody cannot be found.", func() error {
			_, err := admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("nobody")})
			return err
		}},
		{"ListGroups with a MaxItems over 1000", "ValidationError", "", func() error {
			_, err := admin.ListGroups(ctx, &iam.ListGroupsInput{MaxItems: aws.Int32(1001)})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantRefusal(t, tt.name, tt.call(), tt.code, tt.words) })
	}
}

// TestGroupQuotas pins the group quotas of the IAM User Guide's "IAM and
// AWS STS quotas" page (docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html):
// a user is in at most 10 groups, a group has at most 10 managed policies
// attached, and a group's inline policies together hold at most 5,120
// characters, white space not counted.
func TestGroupQuotas(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("joiner")}))
	for i := range 11 {
		must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String(fmt.Sprintf("g%02d", i))}))
	}
	t.Run("a user is in at most 10 groups", func(t *testing.T) {
		for i := range 10 {
			must[*iam.AddUserToGroupOutput](t, "AddUserToGroup")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String(fmt.Sprintf("g%02d", i)), UserName: aws.String("joiner")}))
		}
		_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("g10"), UserName: aws.String("joiner")})
		wantRefusal(t, "the 11th group", err, "LimitExceeded", "Cannot exceed quota for GroupsPerUser: 10")
		// Adding to a group it is in already is not a new membership.
		if _, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("g00"), UserName: aws.String("joiner")}); err != nil {
			t.Errorf("adding again at the quota: %v", err)
		}
	})
	t.Run("a group has at most 10 managed policies", func(t *testing.T) {
		for i := range 11 {
			p := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String(fmt.Sprintf("m%02d", i)), PolicyDocument: aws.String(allowAll)}))
			_, err := admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("g10"), PolicyArn: p.Policy.Arn})
			if i < 10 && err != nil {
				t.Fatalf("attach policy %d: %v", i+1, err)
			}
			if i == 10 {
				wantRefusal(t, "the 11th policy", err, "LimitExceeded", "Cannot exceed quota for PoliciesPerGroup: 10")
			}
		}
		attached := must[*iam.ListAttachedGroupPoliciesOutput](t, "ListAttachedGroupPolicies")(admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: aws.String("g10")}))
		if len(attached.AttachedPolicies) != 10 {
			t.Errorf("%d policies attached, want 10", len(attached.AttachedPolicies))
		}
	})
	t.Run("a group's inline policies hold at most 5,120 characters besides white space", func(t *testing.T) {
		// doc(n) is a policy of exactly n characters besides white space,
		// padded with spaces that do not count.
		doc := func(n int) string {
			head := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::`
			tail := `"}}`
			return head + strings.Repeat("a", n-len(head)-len(tail)) + tail + strings.Repeat(" ", 500)
		}
		put := func(name, d string) error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("g00"), PolicyName: aws.String(name), PolicyDocument: aws.String(d)})
			return err
		}
		if err := put("a", doc(3000)); err != nil {
			t.Fatalf("3,000 characters: %v", err)
		}
		if err := put("b", doc(2120)); err != nil {
			t.Errorf("5,120 characters in all: %v", err)
		}
		wantRefusal(t, "5,121 characters in all", put("b", doc(2121)), "LimitExceeded", "Maximum policy size of 5120 bytes exceeded for group g00")
		// The refused write left the accepted one in place.
		got := must[*iam.GetGroupPolicyOutput](t, "GetGroupPolicy")(admin.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: aws.String("g00"), PolicyName: aws.String("b")}))
		if decoded(t, got.PolicyDocument) != doc(2120) {
			t.Errorf("policy b changed after a refused replacement")
		}
	})
}

func TestGroupPolicies(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	group := aws.String("devs")
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: group}))
	doc := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:*","Resource":"*"}}`
	for _, name := range []string{"s3", "Admin"} {
		must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: group, PolicyName: aws.String(name), PolicyDocument: aws.String(doc)}))
	}
	got := must[*iam.GetGroupPolicyOutput](t, "GetGroupPolicy")(admin.GetGroupPolicy(ctx, &iam.GetGroupPolicyInput{GroupName: aws.String("DEVS"), PolicyName: aws.String("S3")}))
	if aws.ToString(got.GroupName) != "devs" || aws.ToString(got.PolicyName) != "s3" || decoded(t, got.PolicyDocument) != doc {
		t.Errorf("GetGroupPolicy = %+v", got)
	}
	names := must[*iam.ListGroupPoliciesOutput](t, "ListGroupPolicies")(admin.ListGroupPolicies(ctx, &iam.ListGroupPoliciesInput{GroupName: group})).PolicyNames
	if !slices.Equal(names, []string{"Admin", "s3"}) {
		t.Errorf("ListGroupPolicies = %v", names)
	}
	page := must[*iam.ListGroupPoliciesOutput](t, "ListGroupPolicies")(admin.ListGroupPolicies(ctx, &iam.ListGroupPoliciesInput{GroupName: group, MaxItems: aws.Int32(1)}))
	if !page.IsTruncated || !slices.Equal(page.PolicyNames, []string{"Admin"}) {
		t.Errorf("ListGroupPolicies first of 1 = %v truncated %v", page.PolicyNames, page.IsTruncated)
	}
	must[*iam.DeleteGroupPolicyOutput](t, "DeleteGroupPolicy")(admin.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: group, PolicyName: aws.String("admin")}))
	names = must[*iam.ListGroupPoliciesOutput](t, "ListGroupPolicies")(admin.ListGroupPolicies(ctx, &iam.ListGroupPoliciesInput{GroupName: group})).PolicyNames
	if !slices.Equal(names, []string{"s3"}) {
		t.Errorf("ListGroupPolicies after delete = %v", names)
	}

	managed := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("m"), Path: aws.String("/team/"), PolicyDocument: aws.String(doc)})).Policy
	must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: group, PolicyArn: managed.Arn}))
	must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy again")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: group, PolicyArn: managed.Arn}))
	attached := must[*iam.ListAttachedGroupPoliciesOutput](t, "ListAttachedGroupPolicies")(admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: group})).AttachedPolicies
	if len(attached) != 1 || aws.ToString(attached[0].PolicyArn) != aws.ToString(managed.Arn) || aws.ToString(attached[0].PolicyName) != "m" {
		t.Errorf("ListAttachedGroupPolicies = %+v", attached)
	}
	other := must[*iam.ListAttachedGroupPoliciesOutput](t, "ListAttachedGroupPolicies")(admin.ListAttachedGroupPolicies(ctx, &iam.ListAttachedGroupPoliciesInput{GroupName: group, PathPrefix: aws.String("/other/")})).AttachedPolicies
	if len(other) != 0 {
		t.Errorf("ListAttachedGroupPolicies under /other/ = %+v", other)
	}
	p := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: managed.Arn})).Policy
	if aws.ToInt32(p.AttachmentCount) != 1 {
		t.Errorf("AttachmentCount with one group = %d, want 1", aws.ToInt32(p.AttachmentCount))
	}

	t.Run("ListEntitiesForPolicy lists the group", func(t *testing.T) {
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
		must[*iam.AttachUserPolicyOutput](t, "AttachUserPolicy")(admin.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: managed.Arn}))
		all := must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: managed.Arn}))
		if len(all.PolicyGroups) != 1 || aws.ToString(all.PolicyGroups[0].GroupName) != "devs" || !strings.HasPrefix(aws.ToString(all.PolicyGroups[0].GroupId), "AGPA") || len(all.PolicyUsers) != 1 {
			t.Errorf("ListEntitiesForPolicy = groups %+v users %+v", all.PolicyGroups, all.PolicyUsers)
		}
		groups := must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: managed.Arn, EntityFilter: types.EntityTypeGroup}))
		if len(groups.PolicyGroups) != 1 || len(groups.PolicyUsers) != 0 || len(groups.PolicyRoles) != 0 {
			t.Errorf("EntityFilter=Group = groups %+v users %+v roles %+v", groups.PolicyGroups, groups.PolicyUsers, groups.PolicyRoles)
		}
		users := must[*iam.ListEntitiesForPolicyOutput](t, "ListEntitiesForPolicy")(admin.ListEntitiesForPolicy(ctx, &iam.ListEntitiesForPolicyInput{PolicyArn: managed.Arn, EntityFilter: types.EntityTypeUser}))
		if len(users.PolicyGroups) != 0 || len(users.PolicyUsers) != 1 {
			t.Errorf("EntityFilter=User = groups %+v users %+v", users.PolicyGroups, users.PolicyUsers)
		}
		must[*iam.DetachUserPolicyOutput](t, "DetachUserPolicy")(admin.DetachUserPolicy(ctx, &iam.DetachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: managed.Arn}))
	})
	t.Run("an AWS managed policy attached to a group is counted", func(t *testing.T) {
		arn := aws.String("arn:aws:iam::aws:policy/IAMReadOnlyAccess")
		must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: group, PolicyArn: arn}))
		p := must[*iam.GetPolicyOutput](t, "GetPolicy")(admin.GetPolicy(ctx, &iam.GetPolicyInput{PolicyArn: arn})).Policy
		if aws.ToInt32(p.AttachmentCount) != 1 {
			t.Errorf("AttachmentCount = %d, want 1", aws.ToInt32(p.AttachmentCount))
		}
		must[*iam.DetachGroupPolicyOutput](t, "DetachGroupPolicy")(admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: group, PolicyArn: arn}))
	})
	t.Run("DeletePolicy is refused while a group has it attached", func(t *testing.T) {
		_, err := admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: managed.Arn})
		wantRefusal(t, "DeletePolicy", err, "DeleteConflict", "Cannot delete a policy attached to entities.")
		must[*iam.DetachGroupPolicyOutput](t, "DetachGroupPolicy")(admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: group, PolicyArn: managed.Arn}))
		must[*iam.DeletePolicyOutput](t, "DeletePolicy once detached")(admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: managed.Arn}))
	})
}

// TestDeleteGroupAndMemberConflict pins DeleteConflict for a group with
// members or policies, and for a user still in a group, each with IAM's
// words, until the last blocker is gone.
func TestDeleteGroupAndMemberConflict(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	group, user := aws.String("devs"), aws.String("alice")
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: group}))
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: user}))
	must[*iam.AddUserToGroupOutput](t, "AddUserToGroup")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: group, UserName: user}))
	must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: group, PolicyName: aws.String("p"), PolicyDocument: aws.String(allowAll)}))
	managed := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("m"), PolicyDocument: aws.String(allowAll)}))
	must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: group, PolicyArn: managed.Policy.Arn}))

	_, err := admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: user})
	wantRefusal(t, "DeleteUser while in a group", err, "DeleteConflict", "Cannot delete entity, must remove user from all groups first.")

	steps := []struct {
		words  string
		remove func() error
	}{
		{"Cannot delete entity, must remove users from group first.", func() error {
			_, err := admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: group, UserName: user})
			return err
		}},
		{"Cannot delete entity, must delete policies first.", func() error {
			_, err := admin.DeleteGroupPolicy(ctx, &iam.DeleteGroupPolicyInput{GroupName: group, PolicyName: aws.String("p")})
			return err
		}},
		{"Cannot delete entity, must detach all policies first.", func() error {
			_, err := admin.DetachGroupPolicy(ctx, &iam.DetachGroupPolicyInput{GroupName: group, PolicyArn: managed.Policy.Arn})
			return err
		}},
	}
	for _, step := range steps {
		_, err := admin.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: group})
		wantRefusal(t, "DeleteGroup", err, "DeleteConflict", step.words)
		if err := step.remove(); err != nil {
			t.Fatalf("remove the blocker of %q: %v", step.words, err)
		}
	}
	must[*iam.DeleteGroupOutput](t, "DeleteGroup once nothing blocks")(admin.DeleteGroup(ctx, &iam.DeleteGroupInput{GroupName: group}))
	_, err = admin.GetGroup(ctx, &iam.GetGroupInput{GroupName: group})
	wantCode(t, "GetGroup after DeleteGroup", err, "NoSuchEntity")
	must[*iam.DeleteUserOutput](t, "DeleteUser once out of the group")(admin.DeleteUser(ctx, &iam.DeleteUserInput{UserName: user}))
	must[*iam.DeletePolicyOutput](t, "DeletePolicy once detached")(admin.DeletePolicy(ctx, &iam.DeletePolicyInput{PolicyArn: managed.Policy.Arn}))
}

func TestAccountDetailsListGroups(t *testing.T) {
	_, admin := adminClient(t)
	ctx := context.Background()
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("devs"), Path: aws.String("/eng/")}))
	must[*iam.CreateGroupOutput](t, "CreateGroup")(admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("ops")}))
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	for _, g := range []string{"ops", "devs"} {
		must[*iam.AddUserToGroupOutput](t, "AddUserToGroup")(admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String(g), UserName: aws.String("alice")}))
	}
	must[*iam.PutGroupPolicyOutput](t, "PutGroupPolicy")(admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("devs"), PolicyName: aws.String("p"), PolicyDocument: aws.String(allowAll)}))
	managed := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("m"), PolicyDocument: aws.String(allowAll)}))
	must[*iam.AttachGroupPolicyOutput](t, "AttachGroupPolicy")(admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("devs"), PolicyArn: managed.Policy.Arn}))

	all := must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(admin.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{}))
	var alice *types.UserDetail
	for i, u := range all.UserDetailList {
		if aws.ToString(u.UserName) == "alice" {
			alice = &all.UserDetailList[i]
		}
	}
	if alice == nil || !slices.Equal(alice.GroupList, []string{"devs", "ops"}) {
		t.Errorf("alice's GroupList = %+v", alice)
	}
	var names []string
	for _, g := range all.GroupDetailList {
		names = append(names, aws.ToString(g.GroupName))
	}
	if !slices.Equal(names, []string{"devs", "ops"}) {
		t.Fatalf("GroupDetailList = %v", names)
	}
	devs := all.GroupDetailList[0]
	if aws.ToString(devs.Arn) != "arn:aws:iam::"+account+":group/eng/devs" || aws.ToString(devs.Path) != "/eng/" ||
		len(devs.GroupPolicyList) != 1 || aws.ToString(devs.GroupPolicyList[0].PolicyName) != "p" || decoded(t, devs.GroupPolicyList[0].PolicyDocument) != allowAll ||
		len(devs.AttachedManagedPolicies) != 1 || aws.ToString(devs.AttachedManagedPolicies[0].PolicyArn) != aws.ToString(managed.Policy.Arn) {
		t.Errorf("devs = %+v", devs)
	}

	only := must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(admin.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{Filter: []types.EntityType{types.EntityTypeGroup}}))
	if len(only.GroupDetailList) != 2 || len(only.UserDetailList) != 0 || len(only.RoleDetailList) != 0 || len(only.Policies) != 0 {
		t.Errorf("Filter=Group = %d groups, %d users, %d roles, %d policies", len(only.GroupDetailList), len(only.UserDetailList), len(only.RoleDetailList), len(only.Policies))
	}
	// Paging counts groups among the items, after the users: a page one
	// longer than the users ends after the first group.
	users := len(all.UserDetailList)
	first := must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(admin.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{
		Filter: []types.EntityType{types.EntityTypeUser, types.EntityTypeGroup}, MaxItems: aws.Int32(int32(users + 1))}))
	if !first.IsTruncated || len(first.UserDetailList) != users || len(first.GroupDetailList) != 1 || aws.ToString(first.GroupDetailList[0].GroupName) != "devs" {
		t.Errorf("first page of %d = %d users, %d groups, truncated %v", users+1, len(first.UserDetailList), len(first.GroupDetailList), first.IsTruncated)
	}
	next := must[*iam.GetAccountAuthorizationDetailsOutput](t, "GetAccountAuthorizationDetails")(admin.GetAccountAuthorizationDetails(ctx, &iam.GetAccountAuthorizationDetailsInput{
		Filter: []types.EntityType{types.EntityTypeUser, types.EntityTypeGroup}, MaxItems: aws.Int32(int32(users + 1)), Marker: first.Marker}))
	if next.IsTruncated || len(next.UserDetailList) != 0 || len(next.GroupDetailList) != 1 || aws.ToString(next.GroupDetailList[0].GroupName) != "ops" {
		t.Errorf("second page = %d users, %d groups, truncated %v", len(next.UserDetailList), len(next.GroupDetailList), next.IsTruncated)
	}
}
