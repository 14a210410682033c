package policy_test

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// allowEverything is an identity policy that allows every action on every
// resource: the rules outside policies must refuse what it cannot grant.
func allowEverything(t testing.TB) *policy.Policies {
	t.Helper()
	d, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "AllowEverything", Document: d}}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const (
	admin   = "arn:aws:iam::111122223333:user/admin"
	slrRole = "arn:aws:iam::111122223333:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
)

// TestServiceRules pins which requests the rules outside policies refuse,
// and that Explain names the rule and the AWS page that states it.
func TestServiceRules(t *testing.T) {
	tests := []struct {
		name, action, resource string
		// page is the refusing rule's page; empty when the request is allowed.
		page string
	}{
		{"an AWS managed policy cannot get a new version", "iam:CreatePolicyVersion", "arn:aws:iam::aws:policy/AdministratorAccess", "access_policies_managed-vs-inline.html"},
		{"actions are matched ignoring case", "IAM:createpolicyversion", "arn:aws:iam::aws:policy/AdministratorAccess", "access_policies_managed-vs-inline.html"},
		{"an AWS managed policy in GovCloud cannot be deleted", "iam:DeletePolicy", "arn:aws-us-gov:iam::aws:policy/ReadOnlyAccess", "access_policies_managed-vs-inline.html"},
		{"an AWS managed policy cannot lose a version", "iam:DeletePolicyVersion", "arn:aws:iam::aws:policy/job-function/ViewOnlyAccess", "access_policies_managed-vs-inline.html"},
		{"an AWS managed policy cannot be untagged", "iam:UntagPolicy", "arn:aws:iam::aws:policy/AdministratorAccess", "API_TagPolicy.html"},
		{"a policy cannot be created in the aws account", "iam:CreatePolicy", "arn:aws:iam::aws:policy/x", "access_policies_managed-vs-inline.html"},
		{"a customer managed policy can be created", "iam:CreatePolicy", "arn:aws:iam::111122223333:policy/x", ""},
		{"a customer managed policy can get a new version", "iam:CreatePolicyVersion", "arn:aws:iam::111122223333:policy/ReadOnly", ""},
		{"a customer policy named aws is not an AWS managed policy", "iam:CreatePolicyVersion", "arn:aws:iam::111122223333:policy/aws/Mine", ""},
		{"a service-linked role's trust policy cannot be changed", "iam:UpdateAssumeRolePolicy", slrRole, "id_roles_update-role-trust-policy.html"},
		{"a service-linked role cannot get an inline policy", "iam:PutRolePolicy", slrRole, "id_roles_update-role-permissions.html"},
		{"a service-linked role cannot lose a managed policy", "iam:DetachRolePolicy", slrRole, "id_roles_update-role-permissions.html"},
		{"a service-linked role cannot lose a boundary", "iam:DeleteRolePermissionsBoundary", slrRole, "API_PutRolePermissionsBoundary.html"},
		{"a service-linked role can be read", "iam:GetRole", slrRole, ""},
		{"a role outside /aws-service-role/ can get an inline policy", "iam:PutRolePolicy", "arn:aws:iam::111122223333:role/AWSServiceRoleForLookalike", ""},
		{"an alias under alias/aws/ cannot be created", "kms:CreateAlias", "arn:aws:kms:eu-west-1:111122223333:alias/aws/s3", "alias-create.html"},
		{"an alias under alias/aws/ cannot be pointed elsewhere", "kms:UpdateAlias", "arn:aws:kms:eu-west-1:111122223333:alias/aws/ebs", "alias-create.html"},
		{"an alias merely starting with aws is the customer's", "kms:CreateAlias", "arn:aws:kms:eu-west-1:111122223333:alias/awsome", ""},
		{"a customer alias can be created", "kms:CreateAlias", "arn:aws:kms:eu-west-1:111122223333:alias/mine", ""},
		{"other KMS actions on an AWS managed key's alias are left to the policies", "kms:DescribeKey", "arn:aws:kms:eu-west-1:111122223333:alias/aws/s3", ""},
	}
	p := allowEverything(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &policy.Request{Principal: admin, Action: tt.action, Resource: tt.resource, ResourceAccount: "111122223333"}
			res := p.Explain(r)
			if d := p.Decide(r); d != res.Decision {
				t.Fatalf("Decide says %s, Explain %s", d, res.Decision)
			}
			if tt.page == "" {
				if res.Decision != policy.Allowed {
					t.Fatalf("decision %s, want Allowed (reasons %+v)", res.Decision, res.Reasons)
				}
				return
			}
			if res.Decision != policy.ExplicitDeny {
				t.Fatalf("decision %s, want ExplicitDeny", res.Decision)
			}
			if len(res.Reasons) != 1 || len(res.Statements) != 0 {
				t.Fatalf("want one reason and no statements, got %+v", res)
			}
			why := res.Reasons[0]
			if why.Code != policy.ReasonServiceRule || !strings.HasSuffix(why.Page, tt.page) || !strings.Contains(why.Message, why.Page) {
				t.Errorf("reason %+v: want code %s and a page ending %s, quoted in the message", why, policy.ReasonServiceRule, tt.page)
			}
		})
	}
}

// TestServiceRuleActionsAreCatalogued keeps the table free of misspelt
// actions, which would silently never match.
func TestServiceRuleActionsAreCatalogued(t *testing.T) {
	cat := catalog.Default()
	for _, a := range policy.ServiceRuleActions() {
		if _, ok := cat.Action(a); !ok {
			t.Errorf("service rule action %s is not in the catalog", a)
		}
	}
}

// TestDecideDoesNotAllocateOnServiceRules pins the hot path's promise for
// requests a rule refuses and for a service-linked role's session.
func TestDecideDoesNotAllocateOnServiceRules(t *testing.T) {
	p := allowEverything(t)
	for _, r := range []*policy.Request{
		{Principal: admin, Action: "iam:CreatePolicyVersion", Resource: "arn:aws:iam::aws:policy/AdministratorAccess"},
		{Principal: admin, Action: "kms:CreateAlias", Resource: "arn:aws:kms:eu-west-1:111122223333:alias/mine"},
		{Principal: "arn:aws:sts::111122223333:assumed-role/AWSServiceRoleForAutoScaling/AutoScaling", Action: "ec2:RunInstances", Resource: "*"},
	} {
		if n := testing.AllocsPerRun(100, func() { p.Decide(r) }); n != 0 {
			t.Errorf("%s on %s: Decide allocates %v times per request, want 0", r.Action, r.Resource, n)
		}
	}
}
