package operator

import (
	"context"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/iamclient"
)

// madeRole says whether leash makes, or made, the request's role: STS mode
// without stsIAMRoleARN, or a status whose principal is a role under the
// cluster's path (made before the request changed mode).
func (p *Provisioner) madeRole(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, mode leashv1.CredentialsMode) bool {
	if mode == leashv1.ModeSTS && spec != nil && spec.STSIAMRoleARN == "" {
		return true
	}
	name := userName(p.cfg.ClusterName, cr.Namespace, cr.Name, string(cr.UID))
	return strings.HasSuffix(cr.Status.Principal, ":role"+userPath(p.cfg.ClusterName)+name)
}

// deleteMadeRole deletes the role leash made for the request with its
// policies, and every managed policy part by name, as one may outlive its
// role after a crash. It is safe to repeat.
func (p *Provisioner) deleteMadeRole(ctx context.Context, cr *leashv1.CredentialsRequest) (string, error) {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return "", err
	}
	r := p.madeRoleFor(cr, rc.identity)
	if err := p.deleteRole(ctx, rc.iam, r, string(cr.UID)); err != nil {
		return "", err
	}
	for i := range maxManagedPolicies {
		if err := rc.iam.DeletePolicy(ctx, r.partARN(i)); err != nil {
			return "", err
		}
	}
	return r.name, nil
}

// deleteRole deletes a role leash made, in the order IAM requires: inline
// policies, attached policies (deleting the ones leash made for it), then
// the role. A role that is gone, or is not owned by uid, is left alone.
func (p *Provisioner) deleteRole(ctx context.Context, c *iamclient.Client, r mintedUser, uid string) error {
	role, err := c.GetRole(ctx, r.name)
	if iamclient.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if role.Tags[TagRequestUID] != uid || role.Tags[TagCluster] != p.cfg.ClusterName {
		return nil
	}
	inline, err := c.RolePolicyNames(ctx, r.name)
	if err != nil {
		return err
	}
	for _, n := range inline {
		if err := c.DeleteRolePolicy(ctx, r.name, n); err != nil {
			return err
		}
	}
	attached, err := c.AttachedRolePolicies(ctx, r.name)
	if err != nil {
		return err
	}
	for _, arn := range attached {
		if err := c.DetachRolePolicy(ctx, r.name, arn); err != nil && !iamclient.IsNotFound(err) {
			return err
		}
		for _, part := range partNames(r.name) {
			if strings.HasSuffix(arn, ":policy"+r.path+part) {
				if err := c.DeletePolicy(ctx, arn); err != nil {
					return err
				}
			}
		}
	}
	return c.DeleteRole(ctx, r.name)
}
