package revoke

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/iamclient"
)

// denyCalls are the inline-policy calls of one principal: users and roles
// share the shape but not the actions.
type denyCalls struct {
	kind string // "User" or "Role", as in the action names
	get  func(ctx context.Context, name string) (string, error)
	put  func(ctx context.Context, name, doc string) error
	del  func(ctx context.Context, name string) error
	// previous is the session deny in place, when there is one.
	previous    Deny
	hasPrevious bool
	// foreign says why a policy under PolicyName is not a session deny.
	foreign error
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
	r.Principal, r.LongestSession = u.ARN, Seconds(UserSessionMax)
	d := &denyCalls{kind: "User",
		get: func(ctx context.Context, p string) (string, error) { return c.UserPolicy(ctx, name, p) },
		put: func(ctx context.Context, p, doc string) error { return c.PutUserPolicy(ctx, name, p, doc) },
		del: func(ctx context.Context, p string) error { return c.DeleteUserPolicy(ctx, name, p) },
	}
	if err := r.readDeny(ctx, d); err != nil {
		return err
	}
	lockout, err := r.policyDoc(ctx, d, LockoutName)
	if err != nil {
		return err
	}
	lockoutLeft := lockout != "" && ProveLockout(lockout, u.ARN, r.EndpointTime) == nil
	if r.opts.Lift {
		if lockoutLeft {
			return &Refusal{Msg: fmt.Sprintf("%s still has %s from a revocation cut short: every call of its keys is refused until it finishes. Run leash revoke --user %s again to finish it, then lift", u.ARN, LockoutName, r.opts.Name)}
		}
		return r.planLift(d, UserSessionMax)
	}
	switch {
	case lockoutLeft:
		r.Notes = append(r.Notes, fmt.Sprintf("%s is in place from a revocation cut short; this run finishes it", LockoutName))
	case lockout != "":
		r.Notes = append(r.Notes, fmt.Sprintf("an inline policy named %s is in place that is not the lockout: it is replaced", LockoutName))
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
		r.Notes = append(r.Notes, fmt.Sprintf("%s is not put: it would refuse this run's own calls (--self), so the key's holder can act while its keys are removed", LockoutName))
	} else {
		r.planLockout(d)
	}
	var ownKey *iamclient.KeyInfo
	for _, k := range keys {
		if k.ID == own {
			ownKey = &k
			continue
		}
		if k.Active {
			r.add("iam:UpdateAccessKey", name+" "+k.ID+" → Inactive", func(ctx context.Context) (string, error) {
				return gone(c.DeactivateAccessKey(ctx, name, k.ID), "iam:UpdateAccessKey", u.ARN, r.Caller)
			})
		}
		if !r.opts.KeepKeysInactive {
			r.add("iam:DeleteAccessKey", name+" "+k.ID, func(ctx context.Context) (string, error) {
				return gone(c.DeleteAccessKey(ctx, name, k.ID), "iam:DeleteAccessKey", u.ARN, r.Caller)
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
			return gone(c.DeleteLoginProfile(ctx, name), "iam:DeleteLoginProfile", u.ARN, r.Caller)
		})
	} else {
		r.Notes = append(r.Notes, "the user has no console password (login profile)")
	}
	r.planSweep(own, keys)
	r.planDeny(d, UserSessionMax)
	if !r.self {
		r.planUnlock(d)
	}
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
	longest := RoleLongestSession(role.MaxSessionDuration)
	r.Principal, r.LongestSession = role.ARN, Seconds(longest)
	d := &denyCalls{kind: "Role",
		get: func(ctx context.Context, p string) (string, error) { return c.RolePolicy(ctx, name, p) },
		put: func(ctx context.Context, p, doc string) error { return c.PutRolePolicy(ctx, name, p, doc) },
		del: func(ctx context.Context, p string) error { return c.DeleteRolePolicy(ctx, name, p) },
	}
	if err := r.readDeny(ctx, d); err != nil {
		return err
	}
	if r.opts.Lift {
		return r.planLift(d, longest)
	}
	if len(r.opts.Trust) > 0 {
		if err := r.planTrust(ctx, role); err != nil {
			return err
		}
	}
	r.planDeny(d, longest)
	return nil
}

// planTrust adds the calls that remove --trust values from the role's trust
// policy: a tag per value first (the intent, see TrustTag), then the new
// trust, then a read back of the trust IAM holds, on which the engine
// decides whether each value can still be issued a session. A value already
// removed by an earlier run is noted and skipped.
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
	trust := role.Trust
	if len(remove) > 0 {
		var denied bool
		if trust, denied, err = RemoveTrust(role.Trust, remove); err != nil {
			return err
		}
		if denied {
			r.Notes = append(r.Notes, "no Allow statement would be left (IAM refuses a trust policy without one), so the statements stay and a Deny statement for each value is added")
		}
		r.Trust = trust
	}
	open, err := r.trustOpen(trust)
	if err != nil {
		return err
	}
	r.TrustOpen = open
	if len(remove) > 0 {
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
	}
	r.add("iam:GetRole", name+" trust: read back; the engine decides whether each --trust value can still be issued a session", func(ctx context.Context) (string, error) {
		now, err := c.GetRole(ctx, name)
		if err != nil {
			return "", denied(err, "iam:GetRole", role.ARN, r.Caller)
		}
		open, err := r.trustOpen(now.Trust)
		if err != nil {
			return "", err
		}
		r.TrustOpen = open
		if len(open) > 0 {
			return "NOT closed: " + strings.Join(open, "; "), nil
		}
		return "proven: no new session can be issued to " + strings.Join(r.opts.Trust, ", "), nil
	})
	return nil
}

// trustOpen lists, for each --trust value, what in trust still admits it.
func (r *Revocation) trustOpen(trust string) ([]string, error) {
	var open []string
	for _, v := range r.opts.Trust {
		by, err := analyze.Admitted(trust, r.Principal, v, nil)
		if err != nil {
			return nil, err
		}
		if len(by) > 0 {
			open = append(open, fmt.Sprintf("%q is still admitted by %s", v, strings.Join(by, ", ")))
		}
	}
	return open, nil
}

// readDeny reads the policy under PolicyName, if any. A policy of another
// shape is noted: a revocation replaces it, a lift refuses to remove it.
func (r *Revocation) readDeny(ctx context.Context, d *denyCalls) error {
	doc, err := d.get(ctx, PolicyName)
	if iamclient.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return denied(err, "iam:Get"+d.kind+"Policy", r.Principal, r.Caller)
	}
	deny, err := ReadDeny(doc)
	if err == nil && !r.EndpointTime.IsZero() && deny.Cutoff.After(cutoffAt(r.EndpointTime)) {
		err = fmt.Errorf("has a cutoff %s after the endpoint's time %s, which no revocation writes", deny.Cutoff.Format(time.RFC3339), r.EndpointTime.Format(time.RFC3339))
	}
	if err != nil {
		d.foreign = err
		if !r.opts.Lift {
			r.Notes = append(r.Notes, fmt.Sprintf("the inline policy %s in place is not a session deny (it %v): it is replaced", PolicyName, err))
		}
		return nil
	}
	d.previous, d.hasPrevious = deny, true
	r.PreviousCutoff = deny.Cutoff
	return nil
}

// policyDoc is the principal's inline policy name, empty when it has none.
func (r *Revocation) policyDoc(ctx context.Context, d *denyCalls, name string) (string, error) {
	doc, err := d.get(ctx, name)
	if iamclient.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", denied(err, "iam:Get"+d.kind+"Policy", r.Principal, r.Caller)
	}
	return doc, nil
}

// planDeny adds the calls that put the session deny and prove it. Without
// --issued-before, when earlier steps stop new sessions (keys deactivated,
// a trust narrowed), the cutoff is the endpoint's time read after them: a
// session issued while they ran is ended too. The deny records the longest
// session the principal can have been issued, the larger of current and
// of the record of a deny it renews.
func (r *Revocation) planDeny(d *denyCalls, current time.Duration) {
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
	longest := current
	if d.hasPrevious {
		longest = max(longest, d.previous.LongestSession)
	}
	r.LongestSession = Seconds(longest)
	r.LiftAfter = LiftTime(r.Cutoff, longest)
	keep := false
	if d.hasPrevious {
		if !r.CutoffAtApply && !r.Cutoff.After(d.previous.Cutoff) {
			keep = true
			r.Cutoff = d.previous.Cutoff
			r.LongestSession = Seconds(max(current, recordedOr(d.previous, current)))
			r.LiftAfter = LiftTime(r.Cutoff, r.LongestSession.Duration())
			r.Notes = append(r.Notes, fmt.Sprintf("the session deny in place already ends sessions issued before %s, no earlier than the cutoff asked; it is kept as it is",
				d.previous.Cutoff.Format(time.RFC3339)))
		} else {
			r.Notes = append(r.Notes, fmt.Sprintf("a session deny is in place with cutoff %s; it is renewed, which also ends every session issued since then",
				d.previous.Cutoff.Format(time.RFC3339)))
		}
	}
	action := "iam:Put" + d.kind + "Policy"
	if !keep {
		r.add(action, r.name+" "+PolicyName+" (deny every action to sessions issued before the cutoff)", func(ctx context.Context) (string, error) {
			if d.hasPrevious && !r.Cutoff.After(d.previous.Cutoff) {
				r.Cutoff = d.previous.Cutoff
				r.LongestSession = Seconds(max(current, recordedOr(d.previous, current)))
				r.LiftAfter = LiftTime(r.Cutoff, r.LongestSession.Duration())
				return "the deny in place is as late already; kept", nil
			}
			if err := d.put(ctx, PolicyName, SessionDeny(Deny{Cutoff: r.Cutoff, LongestSession: longest})); err != nil {
				return "", denied(err, action, r.Principal, r.Caller)
			}
			r.LiftAfter = LiftTime(r.Cutoff, longest)
			return "sessions issued before " + r.Cutoff.Format(time.RFC3339) + " are refused", nil
		})
	}
	get := "iam:Get" + d.kind + "Policy"
	r.add(get, r.name+" "+PolicyName+": read back; the engine proves it refuses every call of a session issued before the cutoff", func(ctx context.Context) (string, error) {
		doc, err := d.get(ctx, PolicyName)
		if err != nil && !iamclient.IsNotFound(err) {
			return "", denied(err, get, r.Principal, r.Caller)
		}
		held, rerr := ReadDeny(doc)
		switch {
		case err != nil:
			rerr = errors.New("is gone")
		case rerr == nil && !held.Cutoff.Equal(r.Cutoff):
			rerr = fmt.Errorf("has the cutoff %s, not %s", held.Cutoff.Format(time.RFC3339), r.Cutoff.Format(time.RFC3339))
		}
		if rerr == nil {
			rerr = ProveDeny(doc, r.Principal, held, r.LongestSession.Duration())
		}
		if rerr != nil {
			return "", &Refusal{Msg: fmt.Sprintf("%s: the %s IAM holds is not the deny just written (it %v): someone changed it during the revocation. Run the same command again", r.Principal, PolicyName, rerr)}
		}
		return fmt.Sprintf("proven: a session issued before %s is refused %d calls, from its own policies to any service; a new key or session is not", r.Cutoff.Format(time.RFC3339), len(probes)), nil
	})
}

// recordedOr is the longest session a deny recorded, or fallback when it
// recorded none.
func recordedOr(d Deny, fallback time.Duration) time.Duration {
	if d.LongestSession > 0 {
		return d.LongestSession
	}
	return fallback
}

// planLift adds the call that removes the deny, or refuses before its lift
// time. The lift time is the cutoff plus the longest session recorded in
// the deny, or, for a deny without a record (the AWS console's), the
// longest AWS allows; never less than what the principal allows now.
func (r *Revocation) planLift(d *denyCalls, current time.Duration) error {
	if d.foreign != nil {
		return &Refusal{Msg: fmt.Sprintf("%s has an inline policy %s that is not a session deny (it %v); leash lifts only its own deny: review and remove it by hand", r.Principal, PolicyName, d.foreign)}
	}
	if !d.hasPrevious {
		r.Notes = append(r.Notes, fmt.Sprintf("%s has no session deny (%s); nothing to lift", r.Principal, PolicyName))
		return nil
	}
	ceiling := RoleSessionMax
	if r.opts.Kind == User {
		ceiling = UserSessionMax
	}
	longest := max(current, recordedOr(d.previous, ceiling))
	if d.previous.LongestSession == 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("the deny records no longest session (the AWS console writes none), so the longest AWS allows, %s, is assumed", ceiling))
	}
	r.Cutoff = time.Time{}
	r.LongestSession = Seconds(longest)
	r.LiftAfter = LiftTime(d.previous.Cutoff, longest)
	if r.EndpointTime.Before(r.LiftAfter) {
		wait := r.LiftAfter.Sub(r.EndpointTime).Round(time.Second)
		if !r.opts.Force {
			return &Refusal{Msg: fmt.Sprintf("%s: the session deny (cutoff %s) may be lifted at %s, in %s by the endpoint's clock: a session issued before the cutoff can last until then (longest session %s). Run again then, or give --force to lift it now",
				r.Principal, d.previous.Cutoff.Format(time.RFC3339), r.LiftAfter.Format(time.RFC3339), wait, longest)}
		}
		r.Notes = append(r.Notes, fmt.Sprintf("lifting %s before the lift time (--force): sessions issued before %s that have not expired work again", wait, d.previous.Cutoff.Format(time.RFC3339)))
	}
	action := "iam:Delete" + d.kind + "Policy"
	r.add(action, r.name+" "+PolicyName, func(ctx context.Context) (string, error) {
		return "", denied(d.del(ctx, PolicyName), action, r.Principal, r.Caller)
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

// gone is denied for a call whose target may have gone meanwhile: IAM's
// NoSuchEntity is success, noted.
func gone(err error, action, resource, caller string) (string, error) {
	if iamclient.IsNotFound(err) {
		return "already gone", nil
	}
	return "", denied(err, action, resource, caller)
}
