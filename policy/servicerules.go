package policy

import "strings"

// serviceRule is a rule AWS applies outside any policy: a request it covers
// is refused whatever the policies say, so the engine decides it before
// reading them. Its decision is ExplicitDeny, the outcome nothing can
// override: no policy can allow these requests, as no policy can allow
// what a Deny statement refuses.
type serviceRule struct {
	// name says the rule, for explanations.
	name string
	// source names the AWS documentation that states the rule, and page is
	// its address.
	source, page string
	// service is the action's service prefix and actions its action names
	// (compared ignoring case, as AWS compares actions).
	service string
	actions []string
	// The resource must be an ARN of arnService whose resource part begins
	// with prefix, in account when account is set.
	arnService, account, prefix string
}

// serviceRules are the rules outside policies, each from the AWS page that
// states it. The table is the one place to add another.
var serviceRules = [...]serviceRule{
	{
		name:    "AWS managed policies cannot be changed by anyone",
		source:  `IAM User Guide, "Managed policies and inline policies": "You cannot change the permissions defined in AWS managed policies"`,
		page:    "https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-vs-inline.html",
		service: "iam",
		actions: []string{"CreatePolicyVersion", "DeletePolicyVersion", "SetDefaultPolicyVersion", "DeletePolicy"},
		// arn:PARTITION:iam::aws:policy/..., in every partition.
		arnService: "iam", account: "aws", prefix: "policy/",
	},
	{
		// CreatePolicy makes a customer managed policy in the caller's
		// account; a policy ARN in the aws account is never one of those.
		name:       "AWS managed policies are created by AWS alone",
		source:     `IAM User Guide, "Managed policies and inline policies": "An AWS managed policy is a standalone policy that is created and administered by AWS"`,
		page:       "https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_managed-vs-inline.html",
		service:    "iam",
		actions:    []string{"CreatePolicy"},
		arnService: "iam", account: "aws", prefix: "policy/",
	},
	{
		name:       "AWS managed policies cannot be tagged",
		source:     `IAM API Reference, TagPolicy and UntagPolicy: tags are added to and removed from "an IAM customer managed policy"`,
		page:       "https://docs.aws.amazon.com/IAM/latest/APIReference/API_TagPolicy.html",
		service:    "iam",
		actions:    []string{"TagPolicy", "UntagPolicy"},
		arnService: "iam", account: "aws", prefix: "policy/",
	},
	{
		name:       "a service-linked role's trust policy cannot be changed in IAM",
		source:     `IAM User Guide, "Update a role trust policy": "You cannot modify the trust policy for a service-linked role"`,
		page:       "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_update-role-trust-policy.html",
		service:    "iam",
		actions:    []string{"UpdateAssumeRolePolicy"},
		arnService: "iam", prefix: serviceLinkedRolePath,
	},
	{
		name:       "a service-linked role's permissions policies cannot be changed in IAM",
		source:     `IAM User Guide, "Update permissions for a role": "You cannot modify the permissions policy for a service-linked role in IAM"`,
		page:       "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_update-role-permissions.html",
		service:    "iam",
		actions:    []string{"PutRolePolicy", "DeleteRolePolicy", "AttachRolePolicy", "DetachRolePolicy"},
		arnService: "iam", prefix: serviceLinkedRolePath,
	},
	{
		name:       "a service-linked role cannot have a permissions boundary",
		source:     `IAM API Reference, PutRolePermissionsBoundary and DeleteRolePermissionsBoundary: "You cannot set the boundary for a service-linked role"`,
		page:       "https://docs.aws.amazon.com/IAM/latest/APIReference/API_PutRolePermissionsBoundary.html",
		service:    "iam",
		actions:    []string{"PutRolePermissionsBoundary", "DeleteRolePermissionsBoundary"},
		arnService: "iam", prefix: serviceLinkedRolePath,
	},
	{
		name:       "KMS aliases beginning alias/aws/ are reserved for AWS managed keys",
		source:     `AWS KMS Developer Guide, "Create aliases": "The alias/aws/ prefix is reserved for AWS managed key"; "You cannot manage aliases for AWS managed keys"`,
		page:       "https://docs.aws.amazon.com/kms/latest/developerguide/alias-create.html",
		service:    "kms",
		actions:    []string{"CreateAlias", "UpdateAlias", "DeleteAlias"},
		arnService: "kms", prefix: "alias/aws/",
	},
}

// matchServiceRule returns the rule that refuses the request, if any. Every
// rule is on an iam: or kms: action, so any other action costs one byte
// comparison; it does not allocate.
func matchServiceRule(in *input) *serviceRule {
	a := in.action
	if len(a) < 4 || !in.resIsARN {
		return nil
	}
	if c := lower(a[0]); c != 'i' && c != 'k' {
		return nil
	}
	svc, name, ok := strings.Cut(a, ":")
	if !ok {
		return nil
	}
	for i := range serviceRules {
		r := &serviceRules[i]
		if in.resParts[2] != r.arnService || !strings.HasPrefix(in.resParts[5], r.prefix) ||
			(r.account != "" && in.resParts[4] != r.account) || !strings.EqualFold(svc, r.service) {
			continue
		}
		for _, n := range r.actions {
			if strings.EqualFold(name, n) {
				return r
			}
		}
	}
	return nil
}

// message is the rule as a reason says it.
func (r *serviceRule) message() string {
	return "refused whatever the policies say: " + r.name + " (" + r.source + ", " + r.page + ")"
}
