package operator

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
	"leash.dev/leash/policy"
)

// TestLacksCountsTheUsersGroups pins that the passthrough and manual
// permission check reads a user's groups' policies, inline and attached, as
// IAM grants them: a user allowed only through its group lacks nothing, and
// lacks both actions once it leaves the group.
func TestLacksCountsTheUsersGroups(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{})
	admin, client := l.IAM(nil), l.Client()
	describe := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`
	read := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`
	managed, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read"), PolicyDocument: aws.String(read)})
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("passthrough")})
			return err
		},
		func() error {
			_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("controllers")})
			return err
		},
		func() error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("controllers"), PolicyName: aws.String("describe"), PolicyDocument: aws.String(describe)})
			return err
		},
		func() error {
			_, err := admin.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("controllers"), PolicyArn: managed.Policy.Arn})
			return err
		},
		func() error {
			_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("controllers"), UserName: aws.String("passthrough")})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("setup step %d: %v", i, err)
		}
	}
	requested, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:DescribeInstances","s3:GetObject"],"Resource":"*"}]}`), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	principal := "arn:aws:iam::" + l.AccountID() + ":user/passthrough"
	lacking := func() []string {
		t.Helper()
		// A new cache each time: the question is what IAM holds now.
		gaps, err := lacks(ctx, client, newPermissionCache(time.Minute, time.Now), principal, requested)
		if err != nil {
			t.Fatal(err)
		}
		var actions []string
		for _, g := range gaps {
			actions = append(actions, g.Action)
		}
		slices.Sort(actions)
		return actions
	}
	if got := lacking(); len(got) != 0 {
		t.Errorf("a member of the group lacks %v, want nothing", got)
	}
	if _, err := admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("controllers"), UserName: aws.String("passthrough")}); err != nil {
		t.Fatal(err)
	}
	if got, want := lacking(), []string{"ec2:DescribeInstances", "s3:GetObject"}; !slices.Equal(got, want) {
		t.Errorf("after leaving the group it lacks %v, want %v", got, want)
	}
}
