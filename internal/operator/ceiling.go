package operator

import (
	"context"
	"fmt"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/policy"
)

// ceilingPolicyName is the name of the customer managed policy that holds
// a cluster's ceiling. It ends in neither -policy nor -policy-N, so the
// sweep never takes it for a minted user's policy part.
func ceilingPolicyName(cluster string) string { return cluster + "-leash-ceiling" }

// ceilingPath is the IAM path of the ceiling policy: under the cluster's
// path, so that one listing finds all leash made for the cluster.
func ceilingPath(cluster string) string { return userPath(cluster) + "ceiling/" }

// ensureCeiling creates the ceiling policy, or makes g's ceiling its
// default version when IAM holds another (the ceiling changed, while the
// operator ran or was stopped). A new default version is the new boundary
// of every user that has the policy as its boundary, in that one call.
// Each step is idempotent: a crash after CreatePolicy leaves a policy the
// next start finds by name and compares.
func (p *Provisioner) ensureCeiling(ctx context.Context, c *iamclient.Client, root iamclient.Identity, g *Guardrails) (string, error) {
	name, path := ceilingPolicyName(p.cfg.ClusterName), ceilingPath(p.cfg.ClusterName)
	arn := fmt.Sprintf("arn:%s:iam::%s:policy%s%s", partition(root.ARN), root.Account, path, name)
	cur, err := c.ManagedPolicyDocument(ctx, arn)
	switch {
	case iamclient.IsNotFound(err):
		if _, err := c.CreatePolicy(ctx, path, name, g.Ceiling); err != nil && !iamclient.IsAlreadyExists(err) {
			return "", fmt.Errorf("create the ceiling policy: %w", err)
		}
	case err != nil:
		return "", fmt.Errorf("read the ceiling policy: %w", err)
	default:
		if have, perr := policy.Parse([]byte(cur), policy.Identity); perr != nil || !policy.Equivalent(have, g.ceiling) {
			if err := p.replacePolicyVersion(ctx, c, arn, g.Ceiling); err != nil {
				return "", fmt.Errorf("update the ceiling policy: %w", err)
			}
		}
	}
	return arn, nil
}
