package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestAWSCLITerraformLifecycle drives leash local with the real AWS CLI
// through the calls Terraform makes for a user in a group with an AWS
// managed policy and a role with an instance profile: create, read back,
// use, then destroy in Terraform's order (instance profile, role, group
// attachment, membership, user with its force_destroy reads, group),
// ending with no entity but the administrator.
func TestAWSCLITerraformLifecycle(t *testing.T) {
	p := startLocal(t, t.TempDir())
	cli := newAWSCLI(t, p.url)
	admin := as{credentialsFile: p.credentialsPath()}
	const readOnly = "arn:aws:iam::aws:policy/ReadOnlyAccess"
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}`

	// Create, as `terraform apply` does: each resource, then its read.
	cli.ok(t, admin, nil, "iam", "create-group", "--group-name", "readers", "--path", "/team/")
	cli.ok(t, admin, nil, "iam", "get-group", "--group-name", "readers")
	cli.ok(t, admin, nil, "iam", "create-user", "--user-name", "alice", "--tags", "Key=team,Value=platform")
	cli.ok(t, admin, nil, "iam", "get-user", "--user-name", "alice")
	cli.ok(t, admin, nil, "iam", "add-user-to-group", "--group-name", "readers", "--user-name", "alice")
	var groups struct{ Groups []struct{ GroupName string } }
	cli.ok(t, admin, &groups, "iam", "list-groups-for-user", "--user-name", "alice")
	if len(groups.Groups) != 1 || groups.Groups[0].GroupName != "readers" {
		t.Fatalf("list-groups-for-user: %+v, want readers", groups)
	}
	cli.ok(t, admin, nil, "iam", "attach-group-policy", "--group-name", "readers", "--policy-arn", readOnly)
	var attached struct{ AttachedPolicies []struct{ PolicyArn string } }
	cli.ok(t, admin, &attached, "iam", "list-attached-group-policies", "--group-name", "readers")
	if len(attached.AttachedPolicies) != 1 || attached.AttachedPolicies[0].PolicyArn != readOnly {
		t.Fatalf("list-attached-group-policies: %+v, want %s", attached, readOnly)
	}
	var policy struct {
		Policy struct {
			DefaultVersionID string `json:"DefaultVersionId"`
		}
	}
	cli.ok(t, admin, &policy, "iam", "get-policy", "--policy-arn", readOnly)
	if !strings.HasPrefix(policy.Policy.DefaultVersionID, "v") {
		t.Fatalf("get-policy %s: default version %q", readOnly, policy.Policy.DefaultVersionID)
	}
	cli.ok(t, admin, nil, "iam", "create-role", "--role-name", "node", "--assume-role-policy-document", trust)
	cli.ok(t, admin, nil, "iam", "get-role", "--role-name", "node")
	cli.ok(t, admin, nil, "iam", "list-role-policies", "--role-name", "node")
	cli.ok(t, admin, nil, "iam", "list-attached-role-policies", "--role-name", "node")
	cli.ok(t, admin, nil, "iam", "create-instance-profile", "--instance-profile-name", "node")
	cli.ok(t, admin, nil, "iam", "add-role-to-instance-profile", "--instance-profile-name", "node", "--role-name", "node")
	var ip struct {
		InstanceProfile struct{ Roles []struct{ RoleName string } }
	}
	cli.ok(t, admin, &ip, "iam", "get-instance-profile", "--instance-profile-name", "node")
	if len(ip.InstanceProfile.Roles) != 1 || ip.InstanceProfile.Roles[0].RoleName != "node" {
		t.Fatalf("get-instance-profile: %+v, want the role node", ip)
	}

	// The user acts through its group's AWS managed policy.
	var key struct{ AccessKey accessKey }
	cli.ok(t, admin, &key, "iam", "create-access-key", "--user-name", "alice")
	alice := profile(t, "alice", key.AccessKey)
	cli.ok(t, alice, nil, "iam", "list-roles")
	cli.denied(t, alice, "iam", "create-user", "--user-name", "mallory")

	// A role in an instance profile cannot be deleted.
	if _, errOut, code := cli.run(t, admin, "iam", "delete-role", "--role-name", "node"); code == 0 || !strings.Contains(errOut, "DeleteConflict") {
		t.Errorf("delete-role of a role in an instance profile: exit %d, %q; want DeleteConflict", code, errOut)
	}

	// Destroy, in Terraform's order.
	cli.ok(t, admin, nil, "iam", "remove-role-from-instance-profile", "--instance-profile-name", "node", "--role-name", "node")
	cli.ok(t, admin, nil, "iam", "delete-instance-profile", "--instance-profile-name", "node")
	var forRole struct {
		InstanceProfiles []struct{ InstanceProfileName string }
	}
	cli.ok(t, admin, &forRole, "iam", "list-instance-profiles-for-role", "--role-name", "node")
	if len(forRole.InstanceProfiles) != 0 {
		t.Errorf("list-instance-profiles-for-role after the profile's deletion: %+v", forRole)
	}
	cli.ok(t, admin, nil, "iam", "delete-role", "--role-name", "node")
	cli.ok(t, admin, nil, "iam", "detach-group-policy", "--group-name", "readers", "--policy-arn", readOnly)
	cli.ok(t, admin, nil, "iam", "remove-user-from-group", "--group-name", "readers", "--user-name", "alice")
	// aws_iam_user with force_destroy reads and removes what a user may hold.
	var keys struct {
		AccessKeyMetadata []struct {
			AccessKeyID string `json:"AccessKeyId"`
		}
	}
	cli.ok(t, admin, &keys, "iam", "list-access-keys", "--user-name", "alice")
	for _, k := range keys.AccessKeyMetadata {
		cli.ok(t, admin, nil, "iam", "delete-access-key", "--user-name", "alice", "--access-key-id", k.AccessKeyID)
	}
	for _, read := range [][]string{
		{"list-ssh-public-keys", "SSHPublicKeys"},
		{"list-service-specific-credentials", "ServiceSpecificCredentials"},
		{"list-mfa-devices", "MFADevices"},
		{"list-signing-certificates", "Certificates"},
	} {
		var got map[string]any
		cli.ok(t, admin, &got, "iam", read[0], "--user-name", "alice")
		if list, ok := got[read[1]].([]any); !ok || len(list) != 0 {
			t.Errorf("aws iam %s: %v, want an empty %s", read[0], got, read[1])
		}
	}
	if _, errOut, code := cli.run(t, admin, "iam", "get-login-profile", "--user-name", "alice"); code == 0 || !strings.Contains(errOut, "NoSuchEntity") {
		t.Errorf("get-login-profile of a user without one: exit %d, %q; want NoSuchEntity", code, errOut)
	}
	cli.ok(t, admin, nil, "iam", "delete-user", "--user-name", "alice")
	cli.ok(t, admin, nil, "iam", "delete-group", "--group-name", "readers")

	// Nothing is left but the administrator.
	var users struct{ Users []struct{ UserName string } }
	cli.ok(t, admin, &users, "iam", "list-users")
	var names []string
	for _, u := range users.Users {
		names = append(names, u.UserName)
	}
	if !slices.Equal(names, []string{"admin"}) {
		t.Errorf("users left: %v, want only admin", names)
	}
	for _, list := range [][]string{{"list-roles", "Roles"}, {"list-groups", "Groups"}, {"list-instance-profiles", "InstanceProfiles"}} {
		var got map[string]any
		cli.ok(t, admin, &got, "iam", list[0])
		if l, ok := got[list[1]].([]any); !ok || len(l) != 0 {
			t.Errorf("aws iam %s after the tear-down: %v, want none", list[0], got[list[1]])
		}
	}
	if _, errOut, code := cli.run(t, admin, "iam", "get-group", "--group-name", "readers"); code == 0 || !strings.Contains(errOut, "NoSuchEntity") {
		t.Errorf("get-group after delete-group: exit %d, %q; want NoSuchEntity", code, errOut)
	}
}
