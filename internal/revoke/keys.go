package revoke

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/internal/iamclient"
)

// maxSweeps bounds the rounds of listing and removing a user's keys. With
// the lockout in place no key can be made, so the second listing is empty;
// keys still appearing after this many rounds mean something else makes
// them.
const maxSweeps = 10

// planLockout adds the step that puts LockoutName on the user, read back
// and proven with the engine, before any key is touched: the holder of a
// leaked key races the revocation (making keys, reactivating them,
// deleting the deny), and from this step on every such call is refused.
func (r *Revocation) planLockout(d *denyCalls) {
	put := "iam:Put" + d.kind + "Policy"
	r.add(put, r.name+" "+LockoutName+" (refuse every call of the user's keys and sessions while they are removed, keys made meanwhile included)", func(ctx context.Context) (string, error) {
		if err := d.put(ctx, LockoutName, Lockout()); err != nil {
			return "", denied(err, put, r.Principal, r.Caller)
		}
		if err := r.lockoutHeld(ctx, d); err != nil {
			return "", err
		}
		return "read back; the engine proves every call of the user's keys and sessions is refused", nil
	})
}

// lockoutHeld reads LockoutName back and proves it with the engine.
func (r *Revocation) lockoutHeld(ctx context.Context, d *denyCalls) error {
	get := "iam:Get" + d.kind + "Policy"
	doc, err := d.get(ctx, LockoutName)
	if err != nil && !iamclient.IsNotFound(err) {
		return denied(err, get, r.Principal, r.Caller)
	}
	if err == nil {
		err = ProveLockout(doc, r.Principal, r.EndpointTime)
	}
	if err != nil {
		return &Refusal{Msg: fmt.Sprintf("%s: %s is not in place as written (%v): someone removed or changed it during the revocation, so keys may have been made meanwhile. Run the same command again", r.Principal, LockoutName, err)}
	}
	return nil
}

// planSweep adds the step that lists the user's keys until a listing shows
// none but own (with --keep-keys-inactive, none active), removing every key
// it finds, those made after the plan (not in listed) included, and a
// console password made since.
func (r *Revocation) planSweep(own string, listed []iamclient.KeyInfo) {
	c, name, keep := r.client, r.name, r.opts.KeepKeysInactive
	what := "no key"
	if keep {
		what = "no active key"
	}
	r.add("iam:ListAccessKeys", fmt.Sprintf("%s until a listing shows %s (keys made since the plan are removed too), and no console password", name, what), func(ctx context.Context) (string, error) {
		var late []string
		for round := 0; ; round++ {
			keys, err := c.AccessKeys(ctx, name)
			if err != nil {
				return "", denied(err, "iam:ListAccessKeys", r.Principal, r.Caller)
			}
			var left []iamclient.KeyInfo
			for _, k := range keys {
				if k.ID != own && (k.Active || !keep) {
					left = append(left, k)
				}
			}
			if len(left) == 0 {
				break
			}
			if round == maxSweeps {
				return "", &Refusal{Msg: fmt.Sprintf("%s: access keys keep appearing after %d rounds of removal (%s): something outside this user makes them. Find it (leash audit --principal %s), then run the same command again",
					r.Principal, maxSweeps, keyIDs(left), r.Principal)}
			}
			for _, k := range left {
				if round > 0 || !slices.ContainsFunc(listed, func(l iamclient.KeyInfo) bool { return l.ID == k.ID }) {
					late = append(late, k.ID)
				}
				if k.Active {
					if _, err := gone(c.DeactivateAccessKey(ctx, name, k.ID), "iam:UpdateAccessKey", r.Principal, r.Caller); err != nil {
						return "", err
					}
				}
				if !keep {
					if _, err := gone(c.DeleteAccessKey(ctx, name, k.ID), "iam:DeleteAccessKey", r.Principal, r.Caller); err != nil {
						return "", err
					}
				}
			}
		}
		note := "a listing shows " + what
		if len(late) > 0 {
			verb := "removed"
			if keep {
				verb = "deactivated"
			}
			note += fmt.Sprintf("; %s %d key(s) the plan did not list: %s", verb, len(late), strings.Join(late, ", "))
		}
		hasLogin, err := c.HasLoginProfile(ctx, name)
		if err != nil {
			return "", denied(err, "iam:GetLoginProfile", r.Principal, r.Caller)
		}
		if hasLogin {
			if _, err := gone(c.DeleteLoginProfile(ctx, name), "iam:DeleteLoginProfile", r.Principal, r.Caller); err != nil {
				return "", err
			}
			note += "; deleted a console password made since the plan"
		}
		return note, nil
	})
}

// planUnlock adds the steps that end the lockout once the session deny is
// proven, after a last check under it that no key is left, and the final
// listing.
func (r *Revocation) planUnlock(d *denyCalls) {
	c, name, keep := r.client, r.name, r.opts.KeepKeysInactive
	del := "iam:Delete" + d.kind + "Policy"
	r.add(del, name+" "+LockoutName+" (the keys are gone and the session deny is proven; a new key works again)", func(ctx context.Context) (string, error) {
		if err := r.lockoutHeld(ctx, d); err != nil {
			return "", err
		}
		if err := d.del(ctx, LockoutName); err != nil && !iamclient.IsNotFound(err) {
			return "", denied(err, del, r.Principal, r.Caller)
		}
		return "", nil
	})
	r.add("iam:ListAccessKeys", name+" (the final listing)", func(ctx context.Context) (string, error) {
		keys, err := c.AccessKeys(ctx, name)
		if err != nil {
			return "", denied(err, "iam:ListAccessKeys", r.Principal, r.Caller)
		}
		var active []iamclient.KeyInfo
		for _, k := range keys {
			if k.Active {
				active = append(active, k)
			}
		}
		switch {
		case len(active) > 0 || (!keep && len(keys) > 0):
			return "", &Refusal{Msg: fmt.Sprintf("%s: the final listing shows access keys %s after the revocation: something made them once the lockout ended. Run the same command again, and find what made them (leash audit --principal %s)",
				r.Principal, keyIDs(keys), r.Principal)}
		case len(keys) > 0:
			return fmt.Sprintf("%d key(s), all inactive: %s", len(keys), keyIDs(keys)), nil
		}
		return "no access key", nil
	})
}

func keyIDs(keys []iamclient.KeyInfo) string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	return strings.Join(ids, ", ")
}
