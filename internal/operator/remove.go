package operator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// Remove takes back what Sync made for a request: a minted user with
// everything attached to it, then the Secret (unless the administrator owns
// it, in Manual mode). It is safe to repeat after a crash.
func (p *Provisioner) Remove(ctx context.Context, cr *leashv1.CredentialsRequest) error {
	spec, err := awsSpec(cr)
	if errors.Is(err, errNotAWS) {
		return nil
	}
	mode := p.cfg.Mode
	if err == nil {
		if m, merr := p.modeOf(cr, spec); merr == nil {
			mode = m
		}
	}
	if mode == leashv1.ModeManual {
		return nil
	}
	if p.madeRole(cr, spec, mode) {
		name, err := p.deleteMadeRole(ctx, cr)
		if err != nil {
			return err
		}
		if name != "" {
			p.event(cr, "RoleDeleted", "deleted IAM role %s with its policies", name)
		}
	}
	if mode == leashv1.ModeMint || knownUser(cr) != "" {
		name, err := p.deleteMinted(ctx, cr)
		if err != nil {
			return err
		}
		p.event(cr, "UserDeleted", "deleted IAM user %s with its keys and policies", name)
	}
	ref := cr.Spec.SecretRef
	s, err := p.cluster.Secret(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return fmt.Errorf("read Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if ownedBy(s, cr) {
		if err := p.cluster.DeleteSecret(ctx, ref.Namespace, ref.Name, s.UID); err != nil {
			return fmt.Errorf("delete Secret %s/%s: %w", ref.Namespace, ref.Name, err)
		}
	}
	return nil
}

// deleteMinted deletes the user minted for the request with everything
// attached to it, and returns its name.
func (p *Provisioner) deleteMinted(ctx context.Context, cr *leashv1.CredentialsRequest) (string, error) {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return "", err
	}
	u := p.userFor(cr, rc.identity)
	if err := p.deleteUser(ctx, rc.iam, u.name, string(cr.UID)); err != nil {
		return "", err
	}
	// A managed policy may outlive its user after a crash, or be left
	// unattached by one: each part is deleted by its name either way.
	for i := range maxManagedPolicies {
		// A part of the same name attached to the role STS mode made for the
		// request (a request turned from Mint to STS) is the role's now.
		if err := rc.iam.DeletePolicy(ctx, u.partARN(i)); err != nil && !iamclient.IsDeleteConflict(err) {
			return "", err
		}
	}
	return u.name, nil
}

// deleteUser deletes a user leash minted, in the order IAM requires: keys,
// inline and attached policies, login profile (which blocks the delete if
// forgotten), then the user. A user that is gone, or is not owned by uid,
// is left alone.
func (p *Provisioner) deleteUser(ctx context.Context, c *iamclient.Client, name, uid string) error {
	u, err := c.GetUser(ctx, name)
	if iamclient.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if u.Tags[TagRequestUID] != uid {
		return nil
	}
	keys, err := c.AccessKeys(ctx, name)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := c.DeleteAccessKey(ctx, name, k.ID); err != nil {
			return err
		}
	}
	inline, err := c.UserPolicyNames(ctx, name)
	if err != nil {
		return err
	}
	for _, n := range inline {
		if err := c.DeleteUserPolicy(ctx, name, n); err != nil && !iamclient.IsNotFound(err) {
			return err
		}
	}
	attached, err := c.AttachedUserPolicies(ctx, name)
	if err != nil {
		return err
	}
	for _, arn := range attached {
		if err := c.DetachUserPolicy(ctx, name, arn); err != nil && !iamclient.IsNotFound(err) {
			return err
		}
		for _, part := range partNames(name) { // the ones leash made for it
			if strings.HasSuffix(arn, ":policy"+u.Path+part) {
				if err := c.DeletePolicy(ctx, arn); err != nil && !iamclient.IsDeleteConflict(err) {
					return err
				}
			}
		}
	}
	if err := c.DeleteLoginProfile(ctx, name); err != nil {
		return err
	}
	if err := c.DeleteUser(ctx, name); err != nil && !iamclient.IsNotFound(err) {
		return err
	}
	return nil
}

// providerStatus decodes status.providerStatus.
func providerStatus(cr *leashv1.CredentialsRequest) (leashv1.AWSProviderStatus, error) {
	var st leashv1.AWSProviderStatus
	if cr.Status.ProviderStatus == nil || len(cr.Status.ProviderStatus.Raw) == 0 {
		return st, nil
	}
	err := json.Unmarshal(cr.Status.ProviderStatus.Raw, &st)
	return st, err
}

// encodeProviderStatus is status.providerStatus for a minted user.
func encodeProviderStatus(user, policyName string) *runtime.RawExtension {
	if user == "" {
		return nil
	}
	st := leashv1.AWSProviderStatus{User: user, Policy: policyName}
	st.APIVersion, st.Kind = leashv1.GroupVersion.String(), "AWSProviderStatus"
	raw, _ := json.Marshal(st)
	return &runtime.RawExtension{Raw: raw}
}
