package iamclient_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

const (
	readDoc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}`
	listDoc = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"*"}]}`
	trust   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}]}`
)

// TestLoadPolicies reads the policies of a user and a role from leash local
// as the operator's permission check and leash check --user do: inline,
// attached, a user's groups' inline and attached, and the boundary, each
// parsed, and nothing else.
func TestLoadPolicies(t *testing.T) {
	ctx := context.Background()
	l := localtest.Start(t, localaws.Config{AccountID: "111122223333"})
	sdk, client := l.IAM(nil), l.Client()

	read, err := sdk.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("read"), PolicyDocument: aws.String(readDoc)})
	if err != nil {
		t.Fatal(err)
	}
	readARN := aws.ToString(read.Policy.Arn)
	bound, err := sdk.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("bound"), PolicyDocument: aws.String(readDoc)})
	if err != nil {
		t.Fatal(err)
	}
	boundARN := aws.ToString(bound.Policy.Arn)
	list, err := sdk.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("list"), PolicyDocument: aws.String(listDoc)})
	if err != nil {
		t.Fatal(err)
	}
	listARN := aws.ToString(list.Policy.Arn)
	steps := []func() error{
		func() error {
			_, err := sdk.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), PermissionsBoundary: &boundARN})
			return err
		},
		func() error {
			_, err := sdk.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("alice"), PolicyName: aws.String("own"), PolicyDocument: aws.String(listDoc)})
			return err
		},
		func() error {
			_, err := sdk.AttachUserPolicy(ctx, &iam.AttachUserPolicyInput{UserName: aws.String("alice"), PolicyArn: &readARN})
			return err
		},
		func() error {
			_, err := sdk.CreateGroup(ctx, &iam.CreateGroupInput{GroupName: aws.String("readers")})
			return err
		},
		func() error {
			_, err := sdk.PutGroupPolicy(ctx, &iam.PutGroupPolicyInput{GroupName: aws.String("readers"), PolicyName: aws.String("shared"), PolicyDocument: aws.String(listDoc)})
			return err
		},
		func() error {
			_, err := sdk.AttachGroupPolicy(ctx, &iam.AttachGroupPolicyInput{GroupName: aws.String("readers"), PolicyArn: &listARN})
			return err
		},
		func() error {
			_, err := sdk.AddUserToGroup(ctx, &iam.AddUserToGroupInput{GroupName: aws.String("readers"), UserName: aws.String("alice")})
			return err
		},
		func() error {
			_, err := sdk.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ci"), AssumeRolePolicyDocument: aws.String(trust)})
			return err
		},
		func() error {
			_, err := sdk.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("ci"), PolicyName: aws.String("deploy"), PolicyDocument: aws.String(listDoc)})
			return err
		},
		func() error {
			_, err := sdk.AttachRolePolicy(ctx, &iam.AttachRolePolicyInput{RoleName: aws.String("ci"), PolicyArn: &readARN})
			return err
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("setup step %d: %v", i, err)
		}
	}

	cases := []struct {
		name, kind, principal string
		identity              []string // the names of the identity policies, sorted
		boundary              string   // "" for none
	}{
		{"a user has its and its group's inline and attached policies and its boundary", "user", "alice", []string{"own", "shared", listARN, readARN}, boundARN},
		{"a role has its inline and attached policies and no boundary", "role", "ci", []string{"deploy", readARN}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pp, err := client.LoadPolicies(ctx, c.kind, c.principal)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, n := range pp.Identity {
				if n.Document == nil || len(n.Document.Statements) != 1 {
					t.Errorf("policy %s is not parsed: %+v", n.Name, n.Document)
				}
				names = append(names, n.Name)
			}
			slices.Sort(names)
			want := slices.Sorted(slices.Values(c.identity))
			if !slices.Equal(names, want) {
				t.Errorf("identity policies %v, want %v", names, want)
			}
			switch {
			case c.boundary == "" && pp.Boundary != nil:
				t.Errorf("boundary %s, want none", pp.Boundary.Name)
			case c.boundary != "" && (pp.Boundary == nil || pp.Boundary.Name != c.boundary || pp.Boundary.Document == nil):
				t.Errorf("boundary %+v, want %s parsed", pp.Boundary, c.boundary)
			}
			set := pp.Set()
			if got := len(set.Identity); got != len(c.identity) {
				t.Errorf("Set has %d identity policies, want %d", got, len(c.identity))
			}
			if (set.Boundary != nil) != (c.boundary != "") {
				t.Errorf("Set's boundary %v, want one: %v", set.Boundary, c.boundary != "")
			}
		})
	}

	t.Run("a principal IAM does not have is NoSuchEntity", func(t *testing.T) {
		for _, kind := range []string{"user", "role"} {
			_, err := client.LoadPolicies(ctx, kind, "nobody")
			if !iamclient.IsNotFound(err) {
				t.Errorf("%s nobody: %v, want NoSuchEntity", kind, err)
			}
		}
	})
	t.Run("only users and roles hold policies", func(t *testing.T) {
		_, err := client.LoadPolicies(ctx, "group", "devs")
		if err == nil || iamclient.IsNotFound(err) || errors.As(err, new(*iamclient.PolicyParseError)) {
			t.Errorf("group: %v, want an error naming the kind", err)
		}
	})
}
