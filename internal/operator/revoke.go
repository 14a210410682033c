package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/revoke"
)

// revokeField names the annotation in messages.
const revokeField = "metadata.annotations[" + AnnotationRevoke + "]"

// Revocation is a leash.dev/revoke time a sync honoured and what it did.
type Revocation struct {
	// At is the annotation's time: what was issued before it was retired.
	At time.Time
	// Message names the keys retired and published, or the deny put on a
	// role; never a secret.
	Message string
}

// revokeCutoff reads the request's leash.dev/revoke annotation: the zero
// time when there is none. A time still to come is refused: a revocation
// retires what exists, and a key made now, before that time, would be
// retired again at every sync until it passed.
func (p *Provisioner) revokeCutoff(cr *leashv1.CredentialsRequest) (time.Time, error) {
	v, ok := cr.Annotations[AnnotationRevoke]
	if !ok {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, &inputerr.Error{Field: revokeField,
			Msg: fmt.Sprintf("%q is not an RFC 3339 time; give the moment before which every credential of the request must stop working, such as %s (date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)", v, formatTime(p.now()))}
	}
	if now := p.now(); t.After(now) {
		return time.Time{}, &inputerr.Error{Field: revokeField,
			Msg: fmt.Sprintf("%s is in the future (the operator's clock reads %s); a revocation retires what was issued before a time that has passed, so give the time of the leak or now, such as %s", v, formatTime(now), formatTime(now))}
	}
	return t, nil
}

// honourRevoke honours the leash.dev/revoke annotation in the modes where the
// operator holds nothing ensureKey retires: a role's sessions get the
// session deny, and Passthrough and Manual requests are refused with what
// to run instead. A time the status records as honoured (in Mint mode,
// before a switch) stays honoured: what it retired is gone, and the key the
// Secret holds now was made after it. A bad annotation is a failure that
// leaves the request's credentials as they are: they keep working while it
// is fixed.
func (p *Provisioner) honourRevoke(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, mode leashv1.CredentialsMode, out *Outcome) error {
	cutoff, err := p.revokeCutoff(cr)
	if err != nil {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonInvalidRevokeTime,
			Message: err.Error() + "; nothing was revoked and the request's credentials are unchanged"}
	}
	if cutoff.IsZero() {
		return nil
	}
	ref := cr.Spec.SecretRef
	if mode != leashv1.ModeSTS && mode != leashv1.ModeBroker && honoured(cr, cutoff) {
		return nil
	}
	switch mode {
	case leashv1.ModeSTS, leashv1.ModeBroker:
		role := spec.STSIAMRoleARN
		if role == "" {
			role = out.Principal // the role leash made, once it exists
		}
		if role == "" {
			return nil
		}
		return p.revokeRole(ctx, cr, role, cutoff, out)
	case leashv1.ModePassthrough:
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRevokeNotOwned,
			Message: fmt.Sprintf("%s: Passthrough mode: Secret %s/%s holds the root credentials of %s, which leash hands out but does not own, so the operator retires nothing; revoke them with `leash revoke --user %s`, put new root credentials in place (the Secret follows them), then remove the annotation",
				revokeField, ref.Namespace, ref.Name, out.Principal, out.Principal)}
	case leashv1.ModeManual:
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRevokeNotOwned,
			Message: manualRevokeMessage(ref, out)}
	}
	return nil // Mint: ensureKey retired the keys
}

// manualRevokeMessage is what a Manual request's revocation asks of the
// administrator, naming whose key the Secret holds: the administrator's, or
// that of the user leash minted before the switch to Manual mode, which
// stays only while the Secret names its key (retireMinted).
func manualRevokeMessage(ref corev1.ObjectReference, out *Outcome) string {
	who := "its principal"
	if out.Principal != "" {
		who = out.Principal
	}
	if out.User != "" && strings.HasSuffix(out.Principal, "/"+out.User) { // the Secret's key acts as the minted user
		return fmt.Sprintf("%s: Manual mode: the operator no longer rotates keys; the key in Secret %s/%s is one leash minted for IAM user %s before the request switched to Manual mode: write the administrator's own key into the Secret (the operator then deletes user %s with its keys), or revoke it with `leash revoke --user %s`, then remove the annotation",
			revokeField, ref.Namespace, ref.Name, who, out.User, who)
	}
	return fmt.Sprintf("%s: Manual mode: the operator holds no key of its own to retire; the key in Secret %s/%s is the administrator's: revoke it with `leash revoke --user %s`, write a new key into the Secret, then remove the annotation",
		revokeField, ref.Namespace, ref.Name, who)
}

// revokeRole puts the session deny on the request's role, so that every
// session issued before cutoff is refused whoever holds it. A deny with a
// later cutoff already there is kept: it refuses every session this one
// would.
func (p *Provisioner) revokeRole(ctx context.Context, cr *leashv1.CredentialsRequest, role string, cutoff time.Time, out *Outcome) error {
	_, name, _ := iamclient.PrincipalName(role) // sts checked it is a role ARN
	rc, _, err := p.rootClient(ctx)
	var f *Failure
	if errors.As(err, &f) {
		return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRevokeNeedsRootCredentials,
			Message: fmt.Sprintf("%s: the operator has no working root credentials (%s) to deny the sessions of role %s issued before %s with; configure them, or run `leash revoke --role %s`",
				revokeField, f.Reason, role, revokeTime(cutoff), role)}
	}
	if err != nil {
		return err
	}
	if !inRootAccount(rc, role) {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRevokeOtherAccount,
			Message: fmt.Sprintf("%s: role %s is not of the root credentials' account %s, and leash writes in no other account (a check role only reads), so sessions issued before %s still work; run `leash revoke --role %s` with credentials of the role's account",
				revokeField, role, rc.identity.Account, revokeTime(cutoff), role)}
	}
	cur, err := rc.iam.RolePolicy(ctx, name, revoke.PolicyName)
	replaced := ""
	switch {
	case err == nil:
		have, cerr := revoke.ReadDeny(cur)
		if cerr == nil && have.Cutoff.After(later(cutoff, p.now()).Add(revokeClockSlack)) {
			cerr = fmt.Errorf("has a cutoff %s in the future, which no revocation writes", revokeTime(have.Cutoff))
		}
		if cerr != nil {
			// Whoever holds the role's sessions may have put it there to
			// pass for a deny: it is replaced, not trusted and not kept.
			replaced = fmt.Sprintf(" It replaced an inline policy of that name that was not a session deny (it %v).", cerr)
			break
		}
		if !have.Cutoff.Before(cutoff) {
			if !honoured(cr, cutoff) {
				out.Revocation = &Revocation{At: cutoff, Message: fmt.Sprintf("role %s already denies sessions issued before %s (inline policy %s), which covers %s; kept",
					role, revokeTime(have.Cutoff), revoke.PolicyName, revokeTime(cutoff))}
			}
			return nil
		}
	case iamclient.IsAccessDenied(err):
		return lacksRevokePermission(rc, "iam:GetRolePolicy", role)
	case !iamclient.IsNotFound(err):
		return err
	}
	longest := revoke.RoleSessionMax
	if r, err := rc.iam.GetRole(ctx, name); err == nil {
		longest = revoke.RoleLongestSession(r.MaxSessionDuration)
	}
	deny := revoke.Deny{Cutoff: cutoff, LongestSession: longest}
	if err := rc.iam.PutRolePolicy(ctx, name, revoke.PolicyName, revoke.SessionDeny(deny)); err != nil {
		if iamclient.IsAccessDenied(err) {
			return lacksRevokePermission(rc, "iam:PutRolePolicy", role)
		}
		return err
	}
	if err := proveRoleDeny(ctx, rc, role, name, deny); err != nil {
		return err
	}
	msg := fmt.Sprintf("denied every session of role %s issued before %s (%s), with inline policy %s, read back and proven by the engine; removing the annotation lifts nothing: `leash revoke --role %s --lift` may lift it from %s, when the last such session has expired.%s",
		role, revokeTime(cutoff), AnnotationRevoke, revoke.PolicyName, role, formatTime(revoke.LiftTime(cutoff, longest)), replaced)
	p.event(cr, "CredentialsRevoked", "%s", msg)
	out.Revocation = &Revocation{At: cutoff, Message: msg}
	return nil
}

// revokeClockSlack is how far after this machine's clock a deny's cutoff
// may lie and still be taken for one a revocation wrote.
const revokeClockSlack = 5 * time.Minute

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// proveRoleDeny reads the deny back from IAM and has the engine prove it
// refuses every session issued before the cutoff: the revocation relies on
// what IAM holds, which the role's own sessions may have raced to change.
func proveRoleDeny(ctx context.Context, rc *rootClient, role, name string, deny revoke.Deny) error {
	doc, err := rc.iam.RolePolicy(ctx, name, revoke.PolicyName)
	if iamclient.IsAccessDenied(err) {
		return lacksRevokePermission(rc, "iam:GetRolePolicy", role)
	}
	if err != nil && !iamclient.IsNotFound(err) {
		return err
	}
	held, perr := revoke.ReadDeny(doc)
	switch {
	case err != nil:
		perr = fmt.Errorf("is gone")
	case perr == nil && !held.Cutoff.Equal(deny.Cutoff):
		perr = fmt.Errorf("has the cutoff %s", revokeTime(held.Cutoff))
	}
	if perr == nil {
		perr = revoke.ProveDeny(doc, role, held, deny.LongestSession)
	}
	if perr != nil {
		return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonRevokeNotProven,
			Message: fmt.Sprintf("%s: the inline policy %s on role %s, read back after it was put, is not the deny written (it %v): something changed it meanwhile, so sessions issued before %s may still work; the operator puts it again",
				revokeField, revoke.PolicyName, role, perr, revokeTime(deny.Cutoff))}
	}
	return nil
}

// lacksRevokePermission is the failure for root credentials IAM refused a
// call the role revocation needs.
func lacksRevokePermission(rc *rootClient, action, role string) *Failure {
	return &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: ReasonRevokePermissionMissing,
		Message: fmt.Sprintf("%s: the root credentials (%s) may not call %s on role %s (AccessDenied), so sessions issued before the annotation's time still work; allow them %s on the role, or run `leash revoke --role %s` as a principal that may",
			revokeField, rc.identity.ARN, action, role, action, role)}
}

// recordRevocation reports what ensureKey did for the annotation's cutoff:
// the keys it retired and the one the Secret holds now. A sync that found
// nothing to retire reports once per cutoff, so that the status says the
// time was honoured without an Event each sync.
func (p *Provisioner) recordRevocation(cr *leashv1.CredentialsRequest, cutoff time.Time, user string, retired []string, published string, out *Outcome) {
	if cutoff.IsZero() || (len(retired) == 0 && honoured(cr, cutoff)) {
		return
	}
	ref := cr.Spec.SecretRef
	var msg string
	if len(retired) == 0 {
		msg = fmt.Sprintf("no access key of IAM user %s issued before %s (%s) was left to retire", user, revokeTime(cutoff), AnnotationRevoke)
	} else {
		msg = fmt.Sprintf("retired access keys %s of IAM user %s, issued before %s (%s), with no grace period", strings.Join(retired, ", "), user, revokeTime(cutoff), AnnotationRevoke)
	}
	if published != "" {
		msg += fmt.Sprintf("; Secret %s/%s holds new key %s, proven to work before it was published", ref.Namespace, ref.Name, published)
	}
	if len(retired) > 0 {
		p.event(cr, "CredentialsRevoked", "%s", msg)
	}
	out.Revocation = &Revocation{At: cutoff, Message: msg}
}

// honoured is true when the status records cutoff as already honoured; at
// the second, as the status keeps times.
func honoured(cr *leashv1.CredentialsRequest, cutoff time.Time) bool {
	at := cr.Status.RevokedAt
	return at != nil && at.Unix() == cutoff.Unix()
}

// revokeTime is a cutoff as messages show it: UTC, with the fraction of a
// second the annotation gave.
func revokeTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
