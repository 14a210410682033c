package analyze

import (
	"testing"

	"leash.dev/leash/policy"
)

func TestScopeRules(t *testing.T) {
	cases := []ruleCase{
		// LP-006: a wildcard action on "*" with actions that could be scoped.
		{name: "s3:Get* on *", doc: v12(allow(`"s3:Get*"`, `"*"`)),
			id: "LEASH-LP-006", severity: Medium, path: "Statement[0].Action", want: "s3:GetAccelerateConfiguration (bucket)"},
		{name: "wildcard in a list, with a global condition", doc: v12(`{"Effect":"Allow","Action":["sts:GetCallerIdentity","ec2:*Volume"],"Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"true"}}}`),
			id: "LEASH-LP-006", severity: Medium, path: "Statement[0].Action[1]", want: "ec2:AttachVolume (instance, volume)"},
		{name: "ec2:Describe* lists, and listing is rarely scoped", doc: v12(allow(`"ec2:Describe*"`, `"*"`)),
			id: "LEASH-LP-006", severity: -1},
		{name: "wildcard on named resources", doc: v12(allow(`"s3:Get*"`, `"arn:aws:s3:::krops/*"`)),
			id: "LEASH-LP-006", severity: -1},
		{name: "named action on *", doc: v12(allow(`"s3:GetObject"`, `"*"`)),
			id: "LEASH-LP-006", severity: -1},
		{name: "whole service is LEASH-LP-002", doc: v12(allow(`["iam:*","iam:Get*"]`, `"*"`)),
			id: "LEASH-LP-006", severity: -1},
		{name: "every action is LEASH-LP-001", doc: v12(allow(`["*","s3:Get*"]`, `"*"`)),
			id: "LEASH-LP-006", severity: -1},
		{name: "scoped by a resource tag", doc: v12(`{"Effect":"Allow","Action":"ec2:*Instances","Resource":"*","Condition":{"StringEquals":{"aws:ResourceTag/team":"krops"}}}`),
			id: "LEASH-LP-006", severity: -1},
		{name: "Deny", doc: v12(deny(`"s3:Get*"`, `"*"`)),
			id: "LEASH-LP-006", severity: -1},

		// LP-007: write, permissions-management and tagging actions on "*".
		{name: "write on *", doc: v12(allow(`["ec2:DescribeVolumes","ec2:AttachVolume"]`, `"*"`)),
			id: "LEASH-LP-007", severity: Medium, path: "Statement[0].Resource", want: "1 write or tagging action (ec2:AttachVolume)"},
		{name: "permissions management on *", doc: v12(allow(`["iam:GetRole","iam:AttachRolePolicy","iam:TagRole"]`, `["arn:aws:iam::*:role/krops-*","*"]`)),
			id: "LEASH-LP-007", severity: High, path: "Statement[0].Resource[1]", want: "1 permissions-management action (iam:AttachRolePolicy) and 1 write or tagging action (iam:TagRole)"},
		// A trust policy that names an account (its root ARN or ID) leaves
		// the decision to the account's identity policies: a principal
		// allowed sts:AssumeRole on "*" assumes every such role, in its own
		// account and in the accounts that trust it, so it holds those
		// roles' permissions, as a permissions-management grant would (IAM
		// User Guide, "Cross account resource access in IAM":
		// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies-cross-account-resource-access.html).
		{name: "sts:AssumeRole on * is high: the principal becomes any role that trusts its account", doc: v12(allow(`["route53:ListHostedZones","sts:AssumeRole"]`, `"*"`)),
			id: "LEASH-LP-007", severity: High, path: "Statement[0].Resource", want: "sts:AssumeRole (whoever holds it becomes every role whose trust policy trusts its account)"},
		{name: "sts:AssumeRole matched by a wildcard on * is high too", doc: v12(allow(`"sts:Assume*"`, `"*"`)),
			id: "LEASH-LP-007", severity: High, path: "Statement[0].Resource", want: "sts:AssumeRole ("},
		{name: "sts:AssumeRole on named roles is no finding", doc: v12(allow(`"sts:AssumeRole"`, `"arn:aws:iam::123456789012:role/dns-*"`)),
			id: "LEASH-LP-007", severity: -1},
		{name: "tagging on *", doc: v12(allow(`"ec2:CreateTags"`, `"*"`)),
			id: "LEASH-LP-007", severity: Medium, path: "Statement[0].Resource", want: "ec2:CreateTags"},
		{name: "write on named resources", doc: v12(allow(`"ec2:AttachVolume"`, `["arn:aws:ec2:*:*:instance/*","arn:aws:ec2:*:*:volume/*"]`)),
			id: "LEASH-LP-007", severity: -1},
		{name: "write scoped by a service condition", doc: v12(`{"Effect":"Allow","Action":"ec2:AttachVolume","Resource":"*","Condition":{"StringEquals":{"ec2:ResourceTag/team":"krops"}}}`),
			id: "LEASH-LP-007", severity: -1},
		{name: "read on *", doc: v12(allow(`["s3:GetObject","sts:GetCallerIdentity"]`, `"*"`)),
			id: "LEASH-LP-007", severity: -1},
		{name: "write that supports only *", doc: v12(allow(`"iam:SetSecurityTokenServicePreferences"`, `"*"`)),
			id: "LEASH-LP-007", severity: -1},
		{name: "whole service is LEASH-LP-002", doc: v12(allow(`["ec2:*","ec2:AttachVolume"]`, `"*"`)),
			id: "LEASH-LP-007", severity: -1},
		{name: "Deny", doc: v12(deny(`"iam:AttachRolePolicy"`, `"*"`)),
			id: "LEASH-LP-007", severity: -1},
	}
	checkRuleCases(t, cases, func(doc *policy.Document) []Finding { return Scope(doc, "app-policy", nil) })
}

// The seed's krops-ci-e2e policies name their resources: nothing to scope.
func TestScopeKropsCIE2E(t *testing.T) {
	for _, name := range []string{"ack-mgmt", "self-deny", "sweep"} {
		if fs := Scope(docFile(t, policy.Identity, "krops-ci-e2e/"+name+".json"), name, nil); len(fs) != 0 {
			t.Errorf("%s: %v, want no finding", name, fs)
		}
	}
}
