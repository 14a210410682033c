package operator

import (
	"context"
	"fmt"
	"strings"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// madeRole says whether leash makes, or made, the request's role: STS mode
// without stsIAMRoleARN, Broker mode, or a status whose principal is a role
// under the cluster's path (made before the request changed mode).
func (p *Provisioner) madeRole(cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, mode leashv1.CredentialsMode) bool {
	if spec != nil && makesRole(spec, mode) {
		return true
	}
	name := userName(p.cfg.ClusterName, cr.Namespace, cr.Name, string(cr.UID))
	return strings.HasSuffix(cr.Status.Principal, ":role"+userPath(p.cfg.ClusterName)+name)
}

// makesRole says whether leash makes the request's role in mode: STS mode
// without stsIAMRoleARN, or Broker mode. Both make the same role, by name,
// so a request switched between them keeps it and only its trust changes.
func makesRole(spec *leashv1.AWSProviderSpec, mode leashv1.CredentialsMode) bool {
	return mode == leashv1.ModeBroker || (mode == leashv1.ModeSTS && spec.STSIAMRoleARN == "")
}

// deleteMadeRole deletes the role leash made for the request with its
// policies, and every managed policy part by name, as one may outlive its
// role after a crash. It is safe to repeat. It returns the role's name, or
// "" when there was no role of the request's to delete (gone, or another's).
func (p *Provisioner) deleteMadeRole(ctx context.Context, cr *leashv1.CredentialsRequest) (string, error) {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return "", err
	}
	r := p.madeRoleFor(cr, rc.identity)
	deleted, err := p.deleteRole(ctx, rc.iam, r, string(cr.UID))
	if err != nil {
		return "", err
	}
	for i := range maxManagedPolicies {
		// A part of the same name attached to the request's minted user
		// (a request turned from STS to Mint) is the user's now.
		if err := rc.iam.DeletePolicy(ctx, r.partARN(i)); err != nil && !iamclient.IsDeleteConflict(err) {
			return "", err
		}
	}
	if !deleted {
		return "", nil
	}
	return r.name, nil
}

// deleteRole deletes a role leash made, in the order IAM requires: inline
// policies, attached policies (deleting the ones leash made for it), then
// the role. A role that is gone, or is not owned by uid, is left alone, and
// false says so.
func (p *Provisioner) deleteRole(ctx context.Context, c *iamclient.Client, r mintedUser, uid string) (bool, error) {
	role, err := c.GetRole(ctx, r.name)
	if iamclient.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if role.Tags[TagRequestUID] != uid || role.Tags[TagCluster] != p.cfg.ClusterName {
		return false, nil
	}
	inline, err := c.RolePolicyNames(ctx, r.name)
	if err != nil {
		return false, err
	}
	for _, n := range inline {
		if err := c.DeleteRolePolicy(ctx, r.name, n); err != nil {
			return false, err
		}
	}
	attached, err := c.AttachedRolePolicies(ctx, r.name)
	if err != nil {
		return false, err
	}
	for _, arn := range attached {
		if err := c.DetachRolePolicy(ctx, r.name, arn); err != nil && !iamclient.IsNotFound(err) {
			return false, err
		}
		for _, part := range partNames(r.name) {
			if strings.HasSuffix(arn, ":policy"+r.path+part) {
				if err := c.DeletePolicy(ctx, arn); err != nil && !iamclient.IsDeleteConflict(err) {
					return false, err
				}
			}
		}
	}
	return true, c.DeleteRole(ctx, r.name)
}

// retireMadeRole deletes the role an earlier STS sync made for a request
// now in another mode, once its Secret no longer names the role: a request
// turned Manual whose Secret still configures the role keeps it until the
// administrator replaces the Secret.
func (p *Provisioner) retireMadeRole(ctx context.Context, cr *leashv1.CredentialsRequest, mode leashv1.CredentialsMode) error {
	role := cr.Status.Principal
	ref := cr.Spec.SecretRef
	s, err := p.cluster.Secret(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return fmt.Errorf("read Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if s != nil && strings.Contains(string(s.Data[SecretKeyCredentials]), role) {
		return nil
	}
	name, err := p.deleteMadeRole(ctx, cr)
	if err != nil {
		return err
	}
	p.event(cr, "RoleRetired", "deleted IAM role %s with its policies: the request is in %s mode now and its Secret no longer names the role", name, mode)
	return nil
}
