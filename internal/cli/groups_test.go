package cli

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestCheckUserReadsItsGroups pins that check --user evaluates the policies
// of the user's groups as IAM does: a user with no policy of its own is
// allowed what its group allows, and not once it leaves the group.
func TestCheckUserReadsItsGroups(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{})
	admin := l.IAM(nil)
	describe := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`
	steps := []func() error{
		func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("member")})
			return err
		},
		func() error {
			_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("viewers")})
			return err
		},
		func() error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("viewers"), PolicyName: aws.String("describe"), PolicyDocument: aws.String(describe)})
			return err
		},
		func() error {
			_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("viewers"), UserName: aws.String("member")})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("setup step %d: %v", i, err)
		}
	}
	args := []string{"check", "--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath(), "--user", "member", "--must-allow", "ec2:DescribeInstances"}
	out, stderr, code := run(t, args...)
	if code != ExitOK || strings.Contains(out, "--must-allow ec2:DescribeInstances fails") {
		t.Errorf("a member of viewers: exit %d, want the group's policy to allow\n%s%s", code, out, stderr)
	}
	if _, err := admin.RemoveUserFromGroup(ctx, &iam.RemoveUserFromGroupInput{GroupName: aws.String("viewers"), UserName: aws.String("member")}); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = run(t, args...)
	if code != 1 || !strings.Contains(out, "--must-allow ec2:DescribeInstances fails") {
		t.Errorf("after leaving viewers: exit %d, want the assertion to fail\n%s%s", code, out, stderr)
	}
}

// TestWhoCanLiveAccountThroughGroups pins that who-can over --endpoint sees
// a user allowed only through its group, read from leash local's
// GetAccountAuthorizationDetails (GroupDetailList and the user's GroupList).
func TestWhoCanLiveAccountThroughGroups(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{})
	admin := l.IAM(nil)
	read := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::reports/*"}]}`
	steps := []func() error{
		func() error {
			_, err := admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("carol")})
			return err
		},
		func() error {
			_, err := admin.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("readers")})
			return err
		},
		func() error {
			_, err := admin.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("readers"), PolicyName: aws.String("reports"), PolicyDocument: aws.String(read)})
			return err
		},
		func() error {
			_, err := admin.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("readers"), UserName: aws.String("carol")})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("setup step %d: %v", i, err)
		}
	}
	out, stderr, code := run(t, "who-can", "s3:GetObject", "arn:aws:s3:::reports/q1.csv", "--output", "json", "--endpoint", l.URL, "--credentials-file", l.AdminCredentialsPath())
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	var got whoCanJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	carol := "arn:aws:iam::" + l.AccountID() + ":user/carol"
	var how []string
	for _, p := range got.Principals {
		if p.ARN != carol {
			continue
		}
		how = append(how, p.Decision)
		for _, s := range p.Statements {
			how = append(how, s.Type+" "+s.Policy+" via "+s.Via)
		}
	}
	if want := []string{"Allowed", "inline reports via group readers"}; !slices.Equal(how, want) {
		t.Errorf("carol: %v, want %v\n%s", how, want, out)
	}
}
