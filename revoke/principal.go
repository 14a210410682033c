package revoke

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"leash.dev/leash/iamclient"
)

// denyCalls are the inline-policy calls of one principal: users and roles
// share the shape but not the actions.
type denyCalls struct {
	kind        string // "User" or "Role", as in the action names
	get         func(ctx context.Context) (string, error)
	put         func(ctx context.Context, doc string) error
	del         func(ctx context.Context) error
	previous    time.Time // the cutoff of the deny in place
	hasPrevious bool
}

func (r *Revocation) planUser(ctx context.Context) error {
	c, name := r.client, r.name
	u, err := c.GetUser(ctx, name)
	if err != nil {
		return r.notFound(err)
	}
	if err := r.checkARN(u.ARN); err != nil {
		return err
	}
	r.Principal, r.LongestSession = u.ARN, UserSessionMax
	d := &denyCalls{kind: "User",
		get: func(ctx context.Context) (string, error) { return c.UserPolicy(ctx, name, PolicyName) },
		put: func(ctx context.Context, doc string) error { return c.PutUserPolicy(ctx, name, PolicyName, doc) },
		del: func(ctx context.Context) error { return c.DeleteUserPolicy(ctx, name, PolicyName) },
	}
	if err := r.readDeny(ctx, d); err != nil {
		return err
	}
	if r.opts.Lift {
		return r.planLift(d)
	}
	keys, err := c.AccessKeys(ctx, name)
	if err != nil {
		return denied(err, "iam:ListAccessKeys", u.ARN, r.Caller)
	}
	own := ""
	if r.self {
		if own, err = c.SigningKeyID(ctx); err != nil {
			return err
		}
	}
	var ownKey *iamclient.KeyInfo
	for _, k := range keys {
		if k.ID == own {
			ownKey = &k
			continue
		}
		if k.Active {
			r.add("iam:UpdateAccessKey", name+" "+k.ID+" → Inactive", func(ctx context.Context) (string, error) {
				return "", denied(c.DeactivateAccessKey(ctx, name, k.ID), "iam:UpdateAccessKey", u.ARN, r.Caller)
			})
		}
		if !r.opts.KeepKeysInactive {
			r.add("iam:DeleteAccessKey", name+" "+k.ID, func(ctx context.Context) (string, error) {
				return "", denied(c.DeleteAccessKey(ctx, name, k.ID), "iam:DeleteAccessKey", u.ARN, r.Caller)
			})
		}
	}
	switch {
	case len(keys) == 0:
		r.Notes = append(r.Notes, "the user has no access key")
	case r.opts.KeepKeysInactive:
		r.Notes = append(r.Notes, fmt.Sprintf("%d access key(s) kept, inactive, for evidence (--keep-keys-inactive)", len(keys)))
	}
	hasLogin, err := c.HasLoginProfile(ctx, name)
	if err != nil {
		return denied(err, "iam:GetLoginProfile", u.ARN, r.Caller)
	}
	if hasLogin {
		r.add("iam:DeleteLoginProfile", name, func(ctx context.Context) (string, error) {
			return "", denied(c.DeleteLoginProfile(ctx, name), "iam:DeleteLoginProfile", u.ARN, r.Caller)
		})
	} else {
		r.Notes = append(r.Notes, "the user has no console password (login profile)")
	}
	r.planDeny(d)
	if ownKey != nil {
		r.planOwnKey(*ownKey)
	}
	return nil
}

// planOwnKey adds the step that ends the key this revocation is signed
// with (--self): last, since no call can follow it. The key is deleted
// outright, or only deactivated with --keep-keys-inactive.
func (r *Revocation) planOwnKey(k iamclient.KeyInfo) {
	c, name := r.client, r.name
	r.Notes = append(r.Notes, fmt.Sprintf("%s signs these calls, so it is ended last: no call can follow", k.ID))
	if r.opts.KeepKeysInactive {
		if k.Active {
			r.add("iam:UpdateAccessKey", name+" "+k.ID+" → Inactive", func(ctx context.Context) (string, error) {
				return "", denied(c.DeactivateAccessKey(ctx, name, k.ID), "iam:UpdateAccessKey", r.Principal, r.Caller)
			})
		}
		return
	}
	r.add("iam:DeleteAccessKey", name+" "+k.ID, func(ctx context.Context) (string, error) {
		return "", denied(c.DeleteAccessKey(ctx, name, k.ID), "iam:DeleteAccessKey", r.Principal, r.Caller)
	})
}

func (r *Revocation) planRole(ctx context.Context) error {
	c, name := r.client, r.name
	role, err := c.GetRole(ctx, name)
	if err != nil {
		return r.notFound(err)
	}
	if err := r.checkARN(role.ARN); err != nil {
		return err
	}
	r.Principal, r.LongestSession = role.ARN, RoleLongestSession(role.MaxSessionDuration)
	d := &denyCalls{kind: "Role",
		get: func(ctx context.Context) (string, error) { return c.RolePolicy(ctx, name, PolicyName) },
		put: func(ctx context.Context, doc string) error { return c.PutRolePolicy(ctx, name, PolicyName, doc) },
		del: func(ctx context.Context) error { return c.DeleteRolePolicy(ctx, name, PolicyName) },
	}
	if err := r.readDeny(ctx, d); err != nil {
		return err
	}
	if r.opts.Lift {
		return r.planLift(d)
	}
	if len(r.opts.Trust) > 0 {
		if err := r.planTrust(ctx, role); err != nil {
			return err
		}
	}
	r.planDeny(d)
	return nil
}

// planTrust adds the calls that remove --trust values from the role's trust
// policy: a tag per value first (the intent, see TrustTag), then the new
// trust. A value already removed by an earlier run is noted and skipped.
func (r *Revocation) planTrust(ctx context.Context, role iamclient.Role) error {
	c, name := r.client, r.name
	have, err := TrustValues(role.Trust)
	if err != nil {
		return err
	}
	tags, err := c.RoleTags(ctx, name)
	if err != nil {
		return denied(err, "iam:ListRoleTags", role.ARN, r.Caller)
	}
	var remove []string
	for _, v := range r.opts.Trust {
		if _, done := tags[TrustTag(v)]; done && !slices.Contains(have, v) {
			r.Notes = append(r.Notes, fmt.Sprintf("%q was removed from the trust policy by an earlier run (tag %s)", v, TrustTag(v)))
			continue
		}
		remove = append(remove, v)
	}
	if len(remove) == 0 {
		return nil
	}
	trust, err := RemoveTrust(role.Trust, remove)
	if errors.Is(err, ErrLastTrustStatement) {
		return &Refusal{Msg: fmt.Sprintf("--role %s: %v", r.opts.Name, err)}
	}
	if err != nil {
		return err
	}
	r.Trust = trust
	intent := map[string]string{}
	for _, v := range remove {
		intent[TrustTag(v)] = r.EndpointTime.Format(time.RFC3339)
	}
	r.add("iam:TagRole", name+" "+strings.Join(slices.Sorted(maps.Keys(intent)), ", ")+" (what is removed, so a run cut short is finished)", func(ctx context.Context) (string, error) {
		return "", denied(c.TagRole(ctx, name, intent), "iam:TagRole", role.ARN, r.Caller)
	})
	r.add("iam:UpdateAssumeRolePolicy", name+" trust → "+trust, func(ctx context.Context) (string, error) {
		return "", denied(c.UpdateTrust(ctx, name, trust), "iam:UpdateAssumeRolePolicy", role.ARN, r.Caller)
	})
	return nil
}

// readDeny reads the session deny in place, if any.
func (r *Revocation) readDeny(ctx context.Context, d *denyCalls) error {
	doc, err := d.get(ctx)
	if iamclient.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return denied(err, "iam:Get"+d.kind+"Policy", r.Principal, r.Caller)
	}
	cutoff, err := Cutoff(doc)
	if err != nil {
		return &Refusal{Msg: fmt.Sprintf("%s has an inline policy %s that leash did not write (%v); rename or remove it by hand, then run again", r.Principal, PolicyName, err)}
	}
	d.previous, d.hasPrevious = cutoff, true
	r.PreviousCutoff = cutoff
	return nil
}

// planDeny adds the calls that put the session deny. Without
// --issued-before, when earlier steps stop new sessions (keys deactivated,
// a trust narrowed), the cutoff is the endpoint's time read after them: a
// session issued while they ran is ended too.
func (r *Revocation) planDeny(d *denyCalls) {
	c := r.client
	if r.Cutoff.IsZero() {
		r.Cutoff = cutoffAt(r.EndpointTime)
		if len(r.Steps) > 0 {
			r.CutoffAtApply = true
			r.add("sts:GetCallerIdentity", "the endpoint's time, as the cutoff, now that no new session can be issued", func(ctx context.Context) (string, error) {
				_, now, err := c.CallerIdentityAt(ctx)
				if err != nil {
					return "", err
				}
				if !now.IsZero() {
					r.Cutoff = cutoffAt(now)
				}
				return "cutoff " + r.Cutoff.Format(time.RFC3339), nil
			})
		}
	}
	r.LiftAfter = LiftTime(r.Cutoff, r.LongestSession)
	if d.hasPrevious {
		if !r.CutoffAtApply && !r.Cutoff.After(d.previous) {
			r.Cutoff, r.LiftAfter = d.previous, LiftTime(d.previous, r.LongestSession)
			r.Notes = append(r.Notes, fmt.Sprintf("the session deny in place already ends sessions issued before %s, no earlier than the cutoff asked; it is kept as it is",
				d.previous.Format(time.RFC3339)))
			return
		}
		r.Notes = append(r.Notes, fmt.Sprintf("a session deny is in place with cutoff %s; it is renewed, which also ends every session issued since then",
			d.previous.Format(time.RFC3339)))
	}
	action := "iam:Put" + d.kind + "Policy"
	r.add(action, r.name+" "+PolicyName+" (deny every action to sessions issued before the cutoff)", func(ctx context.Context) (string, error) {
		if d.hasPrevious && !r.Cutoff.After(d.previous) {
			r.Cutoff = d.previous
			r.LiftAfter = LiftTime(r.Cutoff, r.LongestSession)
			return "the deny in place is as late already; kept", nil
		}
		if err := d.put(ctx, SessionDeny(r.Cutoff)); err != nil {
			return "", denied(err, action, r.Principal, r.Caller)
		}
		r.LiftAfter = LiftTime(r.Cutoff, r.LongestSession)
		return "sessions issued before " + r.Cutoff.Format(time.RFC3339) + " are refused", nil
	})
}

// planLift adds the call that removes the deny, or refuses before its lift
// time.
func (r *Revocation) planLift(d *denyCalls) error {
	if !d.hasPrevious {
		r.Notes = append(r.Notes, fmt.Sprintf("%s has no session deny (%s); nothing to lift", r.Principal, PolicyName))
		return nil
	}
	r.Cutoff = time.Time{}
	r.LiftAfter = LiftTime(d.previous, r.LongestSession)
	if r.EndpointTime.Before(r.LiftAfter) {
		wait := r.LiftAfter.Sub(r.EndpointTime).Round(time.Second)
		if !r.opts.Force {
			return &Refusal{Msg: fmt.Sprintf("%s: the session deny (cutoff %s) may be lifted at %s, in %s by the endpoint's clock: a session issued before the cutoff can last until then (longest session %s). Run again then, or give --force to lift it now",
				r.Principal, d.previous.Format(time.RFC3339), r.LiftAfter.Format(time.RFC3339), wait, r.LongestSession)}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("lifting %s before the lift time (--force): sessions issued before %s that have not expired work again", wait, d.previous.Format(time.RFC3339)))
	}
	action := "iam:Delete" + d.kind + "Policy"
	r.add(action, r.name+" "+PolicyName, func(ctx context.Context) (string, error) {
		return "", denied(d.del(ctx), action, r.Principal, r.Caller)
	})
	return nil
}

// cutoffAt is the default cutoff for an endpoint time read from a Date
// header: the next whole second. The header has one-second resolution and
// aws:TokenIssueTime too, so a session issued in the second the header
// names would not be "less than" it; the next second is the first cutoff
// sure to come after every session issued so far.
func cutoffAt(date time.Time) time.Time {
	return date.Truncate(time.Second).Add(time.Second)
}
