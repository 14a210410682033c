package operator

import (
	"context"
	"fmt"

	"leash.dev/leash/iamclient"
	"leash.dev/leash/policy"
)

// ceilingPolicyName is the name of the customer managed policy that holds
// a cluster's ceiling. It ends in neither -policy nor -policy-N, so the
// sweep never takes it for a minted user's policy part.
func ceilingPolicyName(cluster string) string { return cluster + "-leash-ceiling" }

// ceilingPath is the IAM path of the ceiling policy: under the cluster's
// path, so that one listing finds all leash made for the cluster.
func ceilingPath(cluster string) string { return userPath(cluster) + "ceiling/" }

// boundaryFor is the permissions boundary every minted user must have:
// the ceiling policy, made or brought up to date in IAM first, or the
// configured --permissions-boundary.
func (p *Provisioner) boundaryFor(ctx context.Context, rc *rootClient) (string, error) {
	if !p.cfg.Guardrails.HasCeiling() {
		return p.cfg.Boundary, nil
	}
	rc.ceiling.Lock()
	defer rc.ceiling.Unlock()
	if rc.ceilingARN != "" {
		return rc.ceilingARN, nil
	}
	arn, err := p.ensureCeiling(ctx, rc.iam, rc.identity)
	if err != nil {
		return "", err
	}
	rc.ceilingARN = arn
	return arn, nil
}

// ensureCeiling creates the ceiling policy, or makes the configured ceiling
// its default version when IAM holds another (the ceiling changed while the
// operator was stopped). Each step is idempotent: a crash after
// CreatePolicy leaves a policy the next start finds by name and compares.
func (p *Provisioner) ensureCeiling(ctx context.Context, c *iamclient.Client, root iamclient.Identity) (string, error) {
	name, path := ceilingPolicyName(p.cfg.ClusterName), ceilingPath(p.cfg.ClusterName)
	arn := fmt.Sprintf("arn:%s:iam::%s:policy%s%s", partition(root.ARN), root.Account, path, name)
	want := p.cfg.Guardrails.ceiling
	cur, err := c.ManagedPolicyDocument(ctx, arn)
	switch {
	case iamclient.IsNotFound(err):
		if _, err := c.CreatePolicy(ctx, path, name, p.cfg.Guardrails.Ceiling); err != nil && !iamclient.IsAlreadyExists(err) {
			return "", fmt.Errorf("create the ceiling policy: %w", err)
		}
	case err != nil:
		return "", fmt.Errorf("read the ceiling policy: %w", err)
	default:
		if have, perr := policy.Parse([]byte(cur), policy.Identity); perr != nil || !policy.Equivalent(have, want) {
			if err := p.replacePolicyVersion(ctx, c, arn, p.cfg.Guardrails.Ceiling); err != nil {
				return "", fmt.Errorf("update the ceiling policy: %w", err)
			}
		}
	}
	return arn, nil
}
