package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/simulate"
)

func newSimulate() *cobra.Command {
	var o simulate.Options
	const short = "Answer offline whether AWS would allow a request, and why"
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: short,
		Long: long(short, `simulate evaluates requests against IAM policies with leash's engine, which
follows AWS's documented evaluation logic: an explicit Deny anywhere wins;
every organization level's SCPs (and RCPs) must allow; identity and resource
policies allow, with AWS's same-account and cross-account rules; permissions
boundaries and session policies must also allow.

Give the policies and requests with flags (one request per --action), or give
requests as JSON with --request (one object, an array of objects, or JSON
Lines; fields: principal, action, resource, resourceAccount, context,
identityPolicies, resourcePolicy, permissionsBoundary, scps, rcps,
sessionPolicy). With flags, all input is checked before anything is printed.
With --request, requests are streamed: each is answered as it is read, in
constant memory for any number of requests, each distinct policy document is
parsed once, and a request that cannot be decided is answered with decision
Error and the reason (file, JSON path and fix) while the others go on.

As on AWS, the request context carries the caller's own keys: aws:PrincipalArn,
aws:PrincipalAccount, aws:PrincipalType and, for an IAM user, aws:username are
taken from the principal unless the context gives them.

Exit status: 0 when every request is Allowed, 1 when any is denied
(ImplicitDeny or ExplicitDeny), 2 on bad input (the message names the file or
flag, the JSON path, and the fix), including when any --request request was
answered with Error.`),
		Example: example(
			"# Is CreateTags allowed by the cloud controller manager's policy?",
			"leash simulate --identity ccm.json --action ec2:CreateTags",
			"",
			"# Several actions, an SCP at the root and two at an OU, and the reasons",
			"leash simulate --identity ccm.json --scp full-access.json --scp ou.json,regions.json \\",
			"  --action ec2:CreateSecurityGroup --action iam:CreateUser \\",
			"  --context aws:RequestedRegion=eu-north-1 --explain",
			"",
			"# A multivalued context key: repeat it",
			"leash simulate --identity tagger.json --action ec2:CreateTags \\",
			"  --context aws:TagKeys=team --context aws:TagKeys=env",
			"",
			"# Requests from a file (or - for stdin), answered as JSON",
			"leash simulate --request requests.json --output json",
		),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q: give policies with --identity FILE and actions with --action ACTION, or requests with --request FILE", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return simulate.Execute(o, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringArrayVar(&o.Identity, "identity", nil,
		"identity policy `FILE`, named after its base name; repeat for several (e.g. --identity ccm.json)")
	f.StringArrayVar(&o.SCP, "scp", nil,
		"service control policy `FILE[,FILE...]`: each --scp is one organization level, root first; files of one level are separated by commas (e.g. --scp full-access.json --scp ou.json,regions.json)")
	f.StringArrayVar(&o.RCP, "rcp", nil,
		"resource control policy `FILE[,FILE...]`, one level per --rcp like --scp (e.g. --rcp org-rcp.json)")
	f.StringVar(&o.ResourcePolicy, "resource-policy", "",
		"resource-based policy `FILE` of the resource, or the role's trust policy for sts:AssumeRole* (e.g. --resource-policy bucket-policy.json)")
	f.StringVar(&o.Boundary, "boundary", "",
		"permissions boundary `FILE` of the principal (e.g. --boundary boundary.json)")
	f.StringVar(&o.Session, "session", "",
		"session policy `FILE` passed when the session was created (e.g. --session session.json)")
	f.StringArrayVar(&o.Actions, "action", nil,
		"`ACTION` to check as service:Action; repeat for one request per action (e.g. --action s3:GetObject)")
	f.StringVar(&o.Resource, "resource", "",
		"resource `ARN`; \"*\" when not given, for actions without resource-level permissions (e.g. --resource arn:aws:s3:::my-bucket/key)")
	f.StringVar(&o.ResourceAccount, "resource-account", "",
		"12-digit account `ID` that owns the resource, when the ARN has none (e.g. --resource-account 111122223333)")
	f.StringVar(&o.Principal, "principal", "",
		"caller `ARN`, service principal or web identity provider (e.g. --principal arn:aws:sts::111122223333:assumed-role/ccm/i-0abc)")
	f.StringArrayVar(&o.Context, "context", nil,
		"condition key `key=value`; repeat a key to make it multivalued, key= for an empty value (e.g. --context aws:RequestedRegion=eu-north-1)")
	f.BoolVar(&o.Explain, "explain", false,
		"list the deciding statements and the reasons under each row of the table (e.g. --explain)")
	f.StringVar(&o.Output, "output", simulate.OutputTable,
		"output `FORMAT`: table, or json for an array of outcomes in input order, written as they are decided (e.g. --output json)")
	f.StringVar(&o.Request, "request", "",
		"read requests as JSON from `FILE` (- for stdin) instead of the policy and action flags, answering each as it is read (e.g. --request requests.json)")
	return cmd
}
