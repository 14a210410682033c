package localaws_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestUserReadsBeforeDelete pins the four reads Terraform makes before
// deleting a user: an empty list for a user that exists (leash local issues
// none of these), NoSuchEntity for one that does not, the caller's own
// user when UserName is left out, and authorization as for the user's
// other reads.
func TestUserReadsBeforeDelete(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	// bob may read only his own user.
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("bob")}))
	self := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["iam:List*","sts:AssumeRole"],"Resource":["arn:aws:iam::*:user/${aws:username}","arn:aws:iam::*:role/*"]}]}`
	must[*iam.PutUserPolicyOutput](t, "PutUserPolicy")(admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("bob"), PolicyName: aws.String("self"), PolicyDocument: aws.String(self)}))
	k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("bob")})).AccessKey
	bobCreds := credentials.NewStaticCredentialsProvider(aws.ToString(k.AccessKeyId), aws.ToString(k.SecretAccessKey), "")
	bob := e.IAM(bobCreds)
	// A role session has no user of its own to stand for.
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("reader"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	must[*iam.PutRolePolicyOutput](t, "PutRolePolicy")(admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("reader"), PolicyName: aws.String("all"), PolicyDocument: aws.String(allowAll)}))
	assumed := must[*sts.AssumeRoleOutput](t, "AssumeRole")(e.STS(bobCreds).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String("arn:aws:iam::" + account + ":role/reader"), RoleSessionName: aws.String("reads")})).Credentials
	session := e.IAM(credentials.NewStaticCredentialsProvider(aws.ToString(assumed.AccessKeyId), aws.ToString(assumed.SecretAccessKey), aws.ToString(assumed.SessionToken)))

	// Each read returns the length of its list.
	reads := []struct {
		name string
		read func(c *iam.Client, user *string) (int, error)
	}{
		{"ListMFADevices", func(c *iam.Client, user *string) (int, error) {
			out, err := c.ListMFADevices(ctx, &iam.ListMFADevicesInput{UserName: user})
			if err != nil {
				return 0, err
			}
			return len(out.MFADevices), nil
		}},
		{"ListSSHPublicKeys", func(c *iam.Client, user *string) (int, error) {
			out, err := c.ListSSHPublicKeys(ctx, &iam.ListSSHPublicKeysInput{UserName: user})
			if err != nil {
				return 0, err
			}
			return len(out.SSHPublicKeys), nil
		}},
		{"ListSigningCertificates", func(c *iam.Client, user *string) (int, error) {
			out, err := c.ListSigningCertificates(ctx, &iam.ListSigningCertificatesInput{UserName: user})
			if err != nil {
				return 0, err
			}
			return len(out.Certificates), nil
		}},
		{"ListServiceSpecificCredentials", func(c *iam.Client, user *string) (int, error) {
			out, err := c.ListServiceSpecificCredentials(ctx, &iam.ListServiceSpecificCredentialsInput{UserName: user})
			if err != nil {
				return 0, err
			}
			return len(out.ServiceSpecificCredentials), nil
		}},
	}
	cases := []struct {
		name   string
		client *iam.Client
		user   *string
		code   string // "" for an empty list
	}{
		{"an existing user has none", admin, aws.String("alice"), ""},
		{"the user name is compared without case", admin, aws.String("ALICE"), ""},
		{"an unknown user is NoSuchEntity", admin, aws.String("ghost"), "NoSuchEntity"},
		{"no UserName means the caller's own user", bob, nil, ""},
		{"a user allowed only its own user reads it", bob, aws.String("bob"), ""},
		{"another user's is refused", bob, aws.String("alice"), "AccessDenied"},
		{"a role session must name the user", session, nil, "ValidationError"},
	}
	for _, r := range reads {
		for _, c := range cases {
			n, err := r.read(c.client, c.user)
			switch {
			case c.code == "" && (err != nil || n != 0):
				t.Errorf("%s, %s: %d items, %v; want an empty list", r.name, c.name, n, err)
			case c.code != "":
				wantCode(t, r.name+", "+c.name, err, c.code)
			}
		}
	}
}

func TestListServiceSpecificCredentialsOfAllUsers(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	out, err := admin.ListServiceSpecificCredentials(ctx, &iam.ListServiceSpecificCredentialsInput{AllUsers: aws.Bool(true)})
	if err != nil || len(out.ServiceSpecificCredentials) != 0 {
		t.Errorf("AllUsers: %+v, %v; want an empty list", out, err)
	}
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice")}))
	_, err = admin.ListServiceSpecificCredentials(ctx, &iam.ListServiceSpecificCredentialsInput{AllUsers: aws.Bool(true), UserName: aws.String("alice")})
	wantCode(t, "AllUsers with UserName", err, "ValidationError")
}

func TestListVirtualMFADevices(t *testing.T) {
	e := localtest.Start(t, localaws.Config{AccountID: account})
	admin := e.IAM(nil)
	ctx := context.Background()
	for _, status := range []types.AssignmentStatusType{"", types.AssignmentStatusTypeAny, types.AssignmentStatusTypeAssigned, types.AssignmentStatusTypeUnassigned} {
		out, err := admin.ListVirtualMFADevices(ctx, &iam.ListVirtualMFADevicesInput{AssignmentStatus: status})
		if err != nil || len(out.VirtualMFADevices) != 0 || out.IsTruncated {
			t.Errorf("ListVirtualMFADevices %q: %+v, %v; want an empty list", status, out, err)
		}
	}
	_, err := admin.ListVirtualMFADevices(ctx, &iam.ListVirtualMFADevicesInput{AssignmentStatus: "Lost"})
	wantCode(t, "an AssignmentStatus outside the enum", err, "ValidationError")
	_, err = admin.ListVirtualMFADevices(ctx, &iam.ListVirtualMFADevicesInput{MaxItems: aws.Int32(0)})
	wantCode(t, "MaxItems 0", err, "ValidationError")
}
