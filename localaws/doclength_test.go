package localaws_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// padded is doc followed by spaces up to n characters: white space counts
// toward a document's length but not toward IAM's size quotas.
func padded(doc string, n int) string { return doc + strings.Repeat(" ", n-len(doc)) }

// TestPolicyDocumentLengthIncludesWhiteSpace pins IAM's 131,072-character
// cap on a document parameter, white space included, for every operation
// that takes one: a small policy padded past it is a ValidationError
// naming the parameter as AWS does, and nothing is changed; padded to
// exactly the cap it is accepted, since the size quotas do not count white
// space. STS's session policy keeps its own 2,048.
func TestPolicyDocumentLengthIncludesWhiteSpace(t *testing.T) {
	ctx := context.Background()
	e, admin := adminClient(t)
	const allow = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"*"}]}`
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("padded")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("padded"), AssumeRolePolicyDocument: aws.String(trustAccount)}))
	base := must[*iam.CreatePolicyOutput](t, "CreatePolicy")(admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("padded-base"), PolicyDocument: aws.String(allow)}))
	userARN := *must[*iam.GetUserOutput](t, "GetUser")(admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("padded")})).User.Arn

	// unchanged, when set, checks that a refused call left nothing behind.
	type op struct {
		// doc is a valid document of the kind the operation takes.
		name, param, doc string
		call             func(doc string) error
		unchanged        func() error
	}
	resource := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"` + userARN + `"},"Action":"iam:GetUser","Resource":"*"}]}`
	noUserPolicy := func() error {
		out, err := admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String("padded")})
		if err == nil && len(out.PolicyNames) > 0 {
			t.Errorf("ListUserPolicies: %v after refused calls", out.PolicyNames)
		}
		return err
	}
	ops := []op{
		{"PutUserPolicy", "policyDocument", allow, func(doc string) error {
			_, err := admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("padded"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, noUserPolicy},
		{"PutRolePolicy", "policyDocument", allow, func(doc string) error {
			_, err := admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String("padded"), PolicyName: aws.String("p"), PolicyDocument: aws.String(doc)})
			return err
		}, nil},
		{"CreatePolicy", "policyDocument", allow, func(doc string) error {
			_, err := admin.CreatePolicy(ctx, &iam.CreatePolicyInput{PolicyName: aws.String("padded-new"), PolicyDocument: aws.String(doc)})
			return err
		}, nil},
		{"CreatePolicyVersion", "policyDocument", allow, func(doc string) error {
			_, err := admin.CreatePolicyVersion(ctx, &iam.CreatePolicyVersionInput{PolicyArn: base.Policy.Arn, PolicyDocument: aws.String(doc)})
			return err
		}, nil},
		{"CreateRole", "assumeRolePolicyDocument", trustAccount, func(doc string) error {
			_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("padded-new"), AssumeRolePolicyDocument: aws.String(doc)})
			return err
		}, nil},
		{"UpdateAssumeRolePolicy", "policyDocument", trustAccount, func(doc string) error {
			_, err := admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("padded"), PolicyDocument: aws.String(doc)})
			return err
		}, nil},
		{"SimulateCustomPolicy", "policyInputList", allow, func(doc string) error {
			_, err := admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{PolicyInputList: []string{allow, doc}, ActionNames: []string{"iam:GetUser"}})
			return err
		}, nil},
		{"SimulatePrincipalPolicy", "policyInputList", allow, func(doc string) error {
			_, err := admin.SimulatePrincipalPolicy(ctx, &iam.SimulatePrincipalPolicyInput{PolicySourceArn: aws.String(userARN), PolicyInputList: []string{doc}, ActionNames: []string{"iam:GetUser"}})
			return err
		}, nil},
		{"SimulateCustomPolicy ResourcePolicy", "resourcePolicy", resource, func(doc string) error {
			_, err := admin.SimulateCustomPolicy(ctx, &iam.SimulateCustomPolicyInput{PolicyInputList: []string{allow}, ActionNames: []string{"iam:GetUser"},
				ResourcePolicy: aws.String(doc), CallerArn: aws.String(userARN)})
			return err
		}, nil},
	}
	for _, o := range ops {
		t.Run(o.name+" refuses a small document padded past 131072 characters", func(t *testing.T) {
			want := "Member must have length less than or equal to 131072"
			if strings.HasSuffix(o.param, "List") {
				want = "Member must satisfy constraint: [" + want + "]"
			}
			want = "1 validation error detected: Value at '" + o.param + "' failed to satisfy constraint: " + want
			for _, n := range []int{131073, 200_000} {
				err := o.call(padded(o.doc, n))
				if apiCode(err) != "ValidationError" || httpStatus(err) != 400 || !strings.Contains(err.Error(), want) {
					t.Fatalf("%d characters: got %v (status %d), want 400 ValidationError %q", n, err, httpStatus(err), want)
				}
				if strings.Contains(err.Error(), `"Version"`) {
					t.Errorf("the message quotes the document: %v", err)
				}
			}
			if o.unchanged != nil {
				if err := o.unchanged(); err != nil {
					t.Fatal(err)
				}
			}
		})
		t.Run(o.name+" takes a document padded to exactly 131072 characters", func(t *testing.T) {
			if err := o.call(padded(o.doc, 131072)); err != nil {
				t.Fatal(err)
			}
		})
	}

	// A refused CreatePolicy or CreateRole that had created its entity
	// would have made the accepted one after it EntityAlreadyExists; a
	// refused CreatePolicyVersion shows in the count.
	t.Run("only the calls at the cap took effect", func(t *testing.T) {
		if _, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("padded-new")}); err != nil {
			t.Fatalf("GetRole after the accepted CreateRole: %v", err)
		}
		versions := must[*iam.ListPolicyVersionsOutput](t, "ListPolicyVersions")(admin.ListPolicyVersions(ctx, &iam.ListPolicyVersionsInput{PolicyArn: base.Policy.Arn}))
		if n := len(versions.Versions); n != 2 {
			t.Errorf("policy has %d versions, want 2: the first and the one padded to the cap", n)
		}
	})

	t.Run("AssumeRole's session policy keeps STS's 2048", func(t *testing.T) {
		stsc := e.sts(e.adminKeys(t))
		role := *must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("padded")})).Role.Arn
		_, err := stsc.AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(role), RoleSessionName: aws.String("session"), Policy: aws.String(padded(allow, 200_000))})
		want := "1 validation error detected: Value at 'policy' failed to satisfy constraint: Member must have length less than or equal to 2048"
		if apiCode(err) != "ValidationError" || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want ValidationError %q", err, want)
		}
	})
}
