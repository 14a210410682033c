package policy

import "strings"

// Service-linked roles are roles an AWS service creates and controls. AWS
// Organizations does not let SCPs or RCPs restrict them: "SCPs don't affect
// service-linked roles" (AWS Organizations User Guide, "Service control
// policies (SCPs)",
// https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps.html),
// and "RCPs do not impact the effective permissions of any service-linked
// role" (same guide, "Resource control policies (RCPs)", Resources and
// entities not restricted by RCPs,
// https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html).
//
// A service-linked role lives under the path /aws-service-role/ (its ARN is
// arn:aws:iam::ACCOUNT:role/aws-service-role/SERVICE/NAME), so a role ARN
// given as the caller is recognised exactly. A session ARN carries no path
// (arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION), so a session is
// recognised by AWS's naming convention instead: service-linked role names
// begin with AWSServiceRoleFor. The limit: an ordinary role whose name begins
// with AWSServiceRoleFor would be taken for a service-linked one, and a
// service-linked role named otherwise would not; to be exact about such a
// role, give the role ARN with its path as the caller.

// serviceLinkedRolePath is the start of a service-linked role's resource
// part, "role/" followed by its path.
const serviceLinkedRolePath = "role/aws-service-role/"

// serviceLinkedRolePrefix begins the name of every service-linked role AWS
// creates (AWSServiceRoleForAutoScaling, AWSServiceRoleForAmazonEKS...).
const serviceLinkedRolePrefix = "AWSServiceRoleFor"

// isServiceLinkedSession reports whether a session of the named role is
// taken to be a service-linked role's.
func isServiceLinkedSession(role string) bool {
	return strings.HasPrefix(role, serviceLinkedRolePrefix)
}
