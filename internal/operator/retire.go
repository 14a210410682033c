package operator

import (
	"context"
	"fmt"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// recordedUser is an outcome that reports the minted user the request's
// status records, and the principal with it: such a user exists until
// Remove or retireMinted deletes it, whatever the request's mode is now.
func recordedUser(cr *leashv1.CredentialsRequest) Outcome {
	st, _ := providerStatus(cr)
	if st.User == "" {
		return Outcome{}
	}
	return Outcome{User: st.User, Policy: st.Policy, Principal: cr.Status.Principal}
}

// retireMinted deletes the user an earlier Mint sync made for a request now
// in another mode, with its keys and policies, once the request's Secret no
// longer names any of its keys: a key no Secret names is a credential
// nobody should hold. Until then (a Manual request whose Secret still holds
// the minted key, or a Passthrough request that could not write the root's)
// the user stays and the status keeps naming it.
func (p *Provisioner) retireMinted(ctx context.Context, cr *leashv1.CredentialsRequest, out *Outcome) error {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	keys, err := rc.iam.AccessKeys(ctx, out.User)
	gone := iamclient.IsNotFound(err) // retired by a sync whose status was not written
	if err != nil && !gone {
		return err
	}
	ref := cr.Spec.SecretRef
	s, err := p.cluster.Secret(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return fmt.Errorf("read Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if s != nil {
		key, _ := secretKey(s)
		for _, k := range keys {
			if k.ID == key.ID || k.ID == s.Annotations[annotationPreviousKey] {
				return nil
			}
		}
	}
	if !gone {
		name, err := p.deleteMinted(ctx, cr)
		if err != nil {
			return err
		}
		p.event(cr, "UserRetired", "deleted IAM user %s with its keys and policies: the request is in %s mode now and no Secret names the user's keys", name, out.Mode)
	}
	if out.Principal == p.userFor(cr, rc.identity).arn {
		out.Principal = ""
	}
	out.User, out.Policy = "", ""
	return nil
}
