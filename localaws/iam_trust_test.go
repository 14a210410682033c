package localaws_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// TestTrustPolicyPrincipalsAreChecked saves trust policies through
// CreateRole and UpdateAssumeRolePolicy. IAM refuses a principal that is
// not one with MalformedPolicyDocument, `Invalid principal in policy:
// "AWS":"..."`, and changes nothing
// (https://repost.aws/knowledge-center/iam-trust-policy-error lists the
// principal forms a trust policy takes, and that a deleted user or role is
// refused). The forms are the Principal element's:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html
// — "You cannot use a wildcard to match part of a principal name or ARN";
// a user or role ARN "transforms to the ... unique principal ID when you
// save the policy", so it must name an entity. leash local checks that in
// the accounts it holds and accepts any user or role of an account it does
// not hold, which it cannot see (a deliberate difference, in docs/local.md).
func TestTrustPolicyPrincipalsAreChecked(t *testing.T) {
	const (
		own    = "111122223333"
		other  = "444455556666" // an --other-account
		unseen = "777788889999" // an account leash local does not hold
	)
	ctx := context.Background()
	e := localtest.Start(t, localaws.Config{AccountID: own, OtherAccounts: []string{other}})
	admin := e.IAM(nil)
	adminOther := e.IAM(e.AccountAdmin(t, other).Provider())
	must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("alice"), Path: aws.String("/team/")}))
	must[*iam.CreateRoleOutput](t, "CreateRole")(adminOther.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("deployer"),
		AssumeRolePolicyDocument: aws.String(trustPrincipal("arn:aws:iam::" + own + ":root"))}))
	const original = `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"sts:AssumeRole"}}`
	must[*iam.CreateRoleOutput](t, "CreateRole")(admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("existing"), AssumeRolePolicyDocument: aws.String(original)}))

	trust := func(kind, value string) string {
		return `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"` + kind + `":"` + value + `"},"Action":["sts:AssumeRole","sts:AssumeRoleWithWebIdentity"]}}`
	}
	cases := []struct {
		name, kind, value string
		valid             bool
	}{
		{"every principal", "AWS", "*", true},
		{"an account ID", "AWS", unseen, true},
		{"an account's root ARN", "AWS", "arn:aws:iam::" + unseen + ":root", true},
		{"an existing user, with its path", "AWS", "arn:aws:iam::" + own + ":user/team/alice", true},
		{"an existing role of another account leash local holds", "AWS", "arn:aws:iam::" + other + ":role/deployer", true},
		{"a user of an account leash local does not hold, which it cannot check", "AWS", "arn:aws:iam::" + unseen + ":user/anyone", true},
		{"an assumed-role session", "AWS", "arn:aws:sts::" + own + ":assumed-role/existing/session-1", true},
		{"a federated user session", "AWS", "arn:aws:sts::" + own + ":federated-user/bob", true},
		{"not an ARN", "AWS", "not-an-arn", false},
		{"a user that does not exist", "AWS", "arn:aws:iam::" + own + ":user/nobody", false},
		{"an existing user without its path", "AWS", "arn:aws:iam::" + own + ":user/alice", false},
		{"a user name in another case: the name part is case sensitive", "AWS", "arn:aws:iam::" + own + ":user/team/Alice", false},
		{"a role that does not exist in another account leash local holds", "AWS", "arn:aws:iam::" + other + ":role/nobody", false},
		{"a wildcard in part of an ARN", "AWS", "arn:aws:iam::" + unseen + ":user/dev-*", false},
		{"an account ID of 11 digits", "AWS", "12345678901", false},
		{"an ARN of another partition", "AWS", "arn:aws-cn:iam::" + unseen + ":root", false},
		{"a group, which is not a principal", "AWS", "arn:aws:iam::" + unseen + ":group/devs", false},
		{"an assumed-role session without its session name", "AWS", "arn:aws:sts::" + own + ":assumed-role/existing", false},
		{"a service", "Service", "ec2.amazonaws.com", true},
		{"a regional service name", "Service", "logs.us-east-1.amazonaws.com", true},
		{"a service in China", "Service", "ec2.amazonaws.com.cn", true},
		{"a service that is not a DNS name of AWS", "Service", "ec2", false},
		{"a wildcard service", "Service", "*", false},
		{"an OIDC provider", "Federated", "arn:aws:iam::" + own + ":oidc-provider/token.actions.githubusercontent.com", true},
		{"a SAML provider", "Federated", "arn:aws:iam::" + own + ":saml-provider/corp", true},
		{"a web identity provider by name", "Federated", "accounts.google.com", true},
		{"Cognito", "Federated", "cognito-identity.amazonaws.com", true},
		{"a provider that is neither an ARN nor a known name", "Federated", "issuer.example.com", false},
		{"a user ARN as a federated principal", "Federated", "arn:aws:iam::" + own + ":user/team/alice", false},
	}
	for i, tc := range cases {
		doc := trust(tc.kind, tc.value)
		name := fmt.Sprintf("trusting-%d", i)
		_, createErr := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(doc)})
		_, updateErr := admin.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("existing"), PolicyDocument: aws.String(doc)})
		if tc.valid {
			if createErr != nil || updateErr != nil {
				t.Errorf("%s (%s): CreateRole %v, UpdateAssumeRolePolicy %v; want both saved", tc.name, tc.value, createErr, updateErr)
			}
			continue
		}
		message := `Invalid principal in policy: "` + tc.kind + `":"` + tc.value + `"`
		wantError(t, tc.name+": CreateRole", createErr, "MalformedPolicyDocument", message)
		wantError(t, tc.name+": UpdateAssumeRolePolicy", updateErr, "MalformedPolicyDocument", message)
		_, err := admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
		wantCode(t, tc.name+": the refused role", err, "NoSuchEntity")
	}
	// The last valid case leaves Cognito as the existing role's principal;
	// each refusal left the policy as it was.
	got := decoded(t, must[*iam.GetRoleOutput](t, "GetRole")(admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("existing")})).Role.AssumeRolePolicyDocument)
	if want := trust("Federated", "cognito-identity.amazonaws.com"); got != want {
		t.Errorf("existing role's trust policy = %s, want %s", got, want)
	}

	t.Run("a role cannot trust itself before it exists", func(t *testing.T) {
		_, err := admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("self"),
			AssumeRolePolicyDocument: aws.String(trust("AWS", "arn:aws:iam::"+own+":role/self"))})
		wantError(t, "CreateRole trusting itself", err, "MalformedPolicyDocument", `Invalid principal in policy: "AWS":"arn:aws:iam::`+own+`:role/self"`)
	})

	t.Run("a caller who may not change the role learns nothing of the principals", func(t *testing.T) {
		must[*iam.CreateUserOutput](t, "CreateUser")(admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("reader")}))
		k := must[*iam.CreateAccessKeyOutput](t, "CreateAccessKey")(admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String("reader")}))
		reader := e.IAM(credentials.NewStaticCredentialsProvider(*k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey, ""))
		_, err := reader.UpdateAssumeRolePolicy(ctx, &iam.UpdateAssumeRolePolicyInput{RoleName: aws.String("existing"),
			PolicyDocument: aws.String(trust("AWS", "arn:aws:iam::"+other+":role/nobody"))})
		wantCode(t, "UpdateAssumeRolePolicy by a caller without permission", err, "AccessDenied")
	})
}
