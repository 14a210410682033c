package operator

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// Tags on every minted user. The request's UID is the record of intent:
// it is set in the same call that creates the user, so a user leash made
// can always be traced to its request, adopted after a crash, or swept.
const (
	TagCluster    = "leash.dev/cluster"
	TagRequestUID = "leash.dev/request-uid"
	TagRequest    = "leash.dev/request"
)

// mintedUser is the principal a request owns, a minted user or (STS mode)
// the role leash makes: its name, path and ARN, all derived from the
// cluster and the request, so a restart finds them again. The policy code
// works on either kind (principalkind.go).
type mintedUser struct {
	// role is true for a role, false for a user.
	role                    bool
	name, path, arn, policy string
	// policyARNs is how the ARNs of the user's managed policies start: they
	// sit under the user's path.
	policyARNs string
}

// partARN is the ARN of the user's ith managed policy.
func (u mintedUser) partARN(i int) string { return u.policyARNs + partName(u.name, i) }

func (p *Provisioner) userFor(cr *leashv1.CredentialsRequest, root iamclient.Identity) mintedUser {
	name := userName(p.cfg.ClusterName, cr.Namespace, cr.Name, string(cr.UID))
	path := userPath(p.cfg.ClusterName)
	prefix := fmt.Sprintf("arn:%s:iam::%s:", partition(root.ARN), root.Account)
	return mintedUser{name: name, path: path, policy: policyName(name),
		arn: prefix + "user" + path + name, policyARNs: prefix + "policy" + path}
}

// partition is the ARN partition (aws, aws-cn, aws-us-gov) of an ARN.
func partition(arn string) string {
	if a, ok := policy.ParseARN(arn); ok && a.Partition != "" {
		return a.Partition
	}
	return "aws"
}

// mint keeps an IAM user, its policy and one working key in step with the
// request. Every step is idempotent and the order is chosen so that a crash
// between any two IAM calls leaves nothing a later sync cannot adopt or
// delete: the user is created with its ownership tags, a key is published
// only after it is proven to work, and a key is deleted only after the
// Secret no longer names it.
func (p *Provisioner) mint(ctx context.Context, cr *leashv1.CredentialsRequest, spec *leashv1.AWSProviderSpec, out *Outcome) error {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	u := p.userFor(cr, rc.identity)
	out.Granted = grantedActions(spec)
	plan, err := planPolicy(spec, u, policyStatement{Effect: "Allow", Action: []string{"iam:GetUser"}, Resource: u.arn})
	if err != nil {
		return err // nothing created yet
	}
	boundary, release, err := p.boundaryFor(ctx, rc)
	if err != nil {
		return err // nothing created yet
	}
	user, fresh, err := p.ensureUser(ctx, rc.iam, cr, u, boundary)
	release() // the user has the boundary: a change of the ceiling may walk now
	if err != nil {
		return err
	}
	// The status names the user only once it exists.
	out.User, out.Policy, out.Principal = u.name, u.policy, user.ARN
	if plan.inline {
		err = p.ensureInlinePolicy(ctx, rc.iam, cr, u, fresh, plan.parts[0])
	} else {
		out.Policy, out.PolicyNote = plan.parts[0].arn, plan.note()
		err = p.ensureManagedPolicies(ctx, rc.iam, cr, u, fresh, plan.parts)
	}
	if err != nil {
		return err
	}
	return p.ensureKey(ctx, rc.iam, cr, u, fresh, out)
}

// ensureUser creates the user or adopts the one a previous sync made.
// fresh is true when this call created it, so that nothing can be attached
// to it yet and the reads that follow can be skipped.
func (p *Provisioner) ensureUser(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, u mintedUser, boundary string) (iamclient.User, bool, error) {
	var user iamclient.User
	var err error
	fresh := false
	if known := knownUser(cr); known == u.name {
		user, err = c.GetUser(ctx, u.name)
	} else {
		err = errNotFoundYet
	}
	if iamclient.IsNotFound(err) || err == errNotFoundYet {
		user, err = c.CreateUser(ctx, iamclient.NewUser{Name: u.name, Path: u.path, Boundary: boundary, Tags: map[string]string{
			TagCluster: p.cfg.ClusterName, TagRequestUID: string(cr.UID), TagRequest: cr.Namespace + "/" + cr.Name,
			"kubernetes.io/cluster/" + p.cfg.ClusterName: "owned",
		}})
		if err == nil {
			fresh = true
			p.event(cr, "UserCreated", "created IAM user %s", u.name)
		} else if iamclient.IsAlreadyExists(err) {
			user, err = c.GetUser(ctx, u.name)
		}
	}
	if err != nil {
		return user, false, err
	}
	if owner := user.Tags[TagRequestUID]; owner != string(cr.UID) {
		return user, false, &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonUserNameTaken,
			Message: fmt.Sprintf("IAM user %s exists but is not this request's (its %s tag is %q); delete or rename it, or change --cluster-name", u.name, TagRequestUID, owner)}
	}
	if !fresh && user.Boundary != boundary {
		if err := setUserBoundary(ctx, c, u.name, boundary); err != nil {
			return user, false, err
		}
		p.event(cr, "BoundaryUpdated", "set the permissions boundary of IAM user %s to %q", u.name, boundary)
	}
	return user, fresh, nil
}

// errNotFoundYet stands for "no earlier sync recorded a user".
var errNotFoundYet = fmt.Errorf("user not recorded")

// knownUser is the user name an earlier sync recorded in the status.
func knownUser(cr *leashv1.CredentialsRequest) string {
	st, _ := providerStatus(cr)
	return st.User
}

// ensureInlinePolicy writes the inline policy unless IAM already holds the
// same document: compared parsed, so that IAM's reformatting or reordering
// is not a change. Managed policies left from when the request was larger
// are removed after the inline one is in place.
func (p *Provisioner) ensureInlinePolicy(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, u mintedUser, fresh bool, part policyPart) error {
	same := false
	if !fresh {
		cur, err := u.inlinePolicy(ctx, c)
		switch {
		case err == nil:
			have, perr := policy.Parse([]byte(cur), policy.Identity)
			same = perr == nil && policy.Equivalent(have, part.want)
		case !iamclient.IsNotFound(err):
			return err
		}
	}
	if !same {
		if err := u.putInline(ctx, c, part.doc); err != nil {
			return err
		}
		p.policyEvent(cr, fresh, "inline policy "+u.policy, u)
	}
	if fresh {
		return nil
	}
	attached, err := u.attached(ctx, c)
	if err != nil {
		return err
	}
	return p.dropManagedPolicies(ctx, c, cr, u, attached, nil)
}

// ensureManagedPolicies keeps customer managed policies, attached to the
// user only, for a policy over the inline limit: one when it fits IAM's
// 6,144 characters, else one per part. The last parts are written first
// and the parts no longer used are removed last, so that while a policy is
// split further or merged the user holds every statement it keeps
// throughout; a part is attached right after it is created, so a crash
// leaves at most the one being made unattached, and a retry finds it by
// name.
func (p *Provisioner) ensureManagedPolicies(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, u mintedUser, fresh bool, parts []policyPart) error {
	var attached []string
	if !fresh {
		var err error
		if attached, err = u.attached(ctx, c); err != nil {
			return err
		}
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if err := p.ensureManagedPolicy(ctx, c, cr, u, parts[i], slices.Contains(attached, parts[i].arn)); err != nil {
			return err
		}
	}
	if fresh {
		return nil
	}
	// The inline policy of a smaller request would add to the managed ones.
	if err := u.deleteInline(ctx, c); err != nil && !iamclient.IsNotFound(err) {
		return err
	}
	return p.dropManagedPolicies(ctx, c, cr, u, attached, parts)
}

// ensureManagedPolicy makes one managed policy hold its part and be
// attached to the user.
func (p *Provisioner) ensureManagedPolicy(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, u mintedUser, part policyPart, attached bool) error {
	cur, err := c.ManagedPolicyDocument(ctx, part.arn)
	switch {
	case iamclient.IsNotFound(err):
		if _, err := c.CreatePolicy(ctx, u.path, part.name, part.doc); err != nil && !iamclient.IsAlreadyExists(err) {
			return err
		}
		p.policyEvent(cr, true, "managed policy "+part.arn, u)
	case err != nil:
		return err
	default:
		if have, perr := policy.Parse([]byte(cur), policy.Identity); perr != nil || !policy.Equivalent(have, part.want) {
			if err := p.replacePolicyVersion(ctx, c, part.arn, part.doc); err != nil {
				return err
			}
			p.policyEvent(cr, false, "managed policy "+part.arn, u)
		}
	}
	if attached {
		return nil
	}
	return u.attach(ctx, c, part.arn)
}

// replacePolicyVersion makes doc the default version and deletes the
// others, so the policy never reaches IAM's five versions.
func (p *Provisioner) replacePolicyVersion(ctx context.Context, c *iamclient.Client, arn, doc string) error {
	versions, err := c.PolicyVersions(ctx, arn)
	if err != nil {
		return err
	}
	for _, v := range versions {
		if !v.Default {
			if err := c.DeletePolicyVersion(ctx, arn, v.ID); err != nil {
				return err
			}
		}
	}
	if err := c.CreatePolicyVersion(ctx, arn, doc); err != nil {
		return err
	}
	for _, v := range versions {
		if v.Default {
			return c.DeletePolicyVersion(ctx, arn, v.ID)
		}
	}
	return nil
}

// dropManagedPolicies detaches and deletes the user's attached managed
// policies that are not among keep, last part first, as a larger version
// of the request left them.
func (p *Provisioner) dropManagedPolicies(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, u mintedUser, arns []string, keep []policyPart) error {
	for i := maxManagedPolicies - 1; i >= len(keep); i-- {
		arn := u.partARN(i)
		if !slices.Contains(arns, arn) {
			continue
		}
		if err := u.detach(ctx, c, arn); err != nil && !iamclient.IsNotFound(err) {
			return err
		}
		if err := c.DeletePolicy(ctx, arn); err != nil {
			return err
		}
		p.event(cr, "PolicyDeleted", "deleted managed policy %s of %s: %s", arn, u.describe(), droppedWhy(len(keep)))
	}
	return nil
}

func droppedWhy(kept int) string {
	switch kept {
	case 0:
		return "the policy fits inline now"
	case 1:
		return "the policy fits one managed policy now"
	}
	return fmt.Sprintf("the policy fits %d managed policies now", kept)
}

func (p *Provisioner) policyEvent(cr *leashv1.CredentialsRequest, created bool, what string, u mintedUser) {
	if created {
		p.event(cr, "PolicyCreated", "wrote %s of %s", what, u.describe())
	} else {
		p.event(cr, "PolicyUpdated", "updated %s of %s to match spec.providerSpec.statementEntries", what, u.describe())
	}
}

// rotateAfter is the request's maximum key age.
func (p *Provisioner) rotateAfter(cr *leashv1.CredentialsRequest) (time.Duration, error) {
	v, ok := cr.Annotations[AnnotationRotateAfter]
	if !ok {
		return p.cfg.RotateAfter, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, &inputerr.Error{Field: "metadata.annotations[" + AnnotationRotateAfter + "]",
			Msg: fmt.Sprintf("%q is not a duration; use Go's form such as 720h or 90m, or 0 to never rotate", v)}
	}
	return d, nil
}

// ensureKey keeps exactly one published, working key (two while a rotated
// key's grace runs) and deletes every other key of the user: such a key was
// created by a sync that crashed before publishing it, and its secret is
// lost. A key created before the leash.dev/revoke time is neither current
// nor kept: one no Secret names is deleted at once, and the published one
// right after its successor is proven and published, with no grace.
func (p *Provisioner) ensureKey(ctx context.Context, c *iamclient.Client, cr *leashv1.CredentialsRequest, u mintedUser, fresh bool, out *Outcome) error {
	maxAge, err := p.rotateAfter(cr)
	if err != nil {
		return err
	}
	// A bad annotation is Sync's to report (honourRevoke); the keys stay as they
	// are until it is fixed.
	cutoff, _ := p.revokeCutoff(cr)
	ref := cr.Spec.SecretRef
	secret, err := p.writableSecret(ctx, cr)
	if err != nil {
		return err
	}
	var keys []iamclient.KeyInfo
	if !fresh {
		if keys, err = c.AccessKeys(ctx, u.name); err != nil {
			return err
		}
	}
	published, previous := "", ""
	var retireAt time.Time
	if ownedBy(secret, cr) {
		published = string(secret.Data[SecretKeyID])
		previous = secret.Annotations[annotationPreviousKey]
		retireAt = timeAnnotation(secret, annotationRetireAt)
	}
	now := p.now()
	var current, revokedCurrent *iamclient.KeyInfo
	var kept []iamclient.KeyInfo
	var retired []string
	for i, k := range keys {
		revoked := k.Created.Before(cutoff)
		switch {
		case k.ID == published && revoked:
			revokedCurrent = &keys[i] // deleted once its successor is published
		case k.ID == published:
			current = &keys[i]
			kept = append(kept, k)
		case k.ID == previous && now.Before(retireAt) && !revoked:
			kept = append(kept, k)
		default:
			if err := c.DeleteAccessKey(ctx, u.name, k.ID); err != nil {
				return err
			}
			p.event(cr, "AccessKeyDeleted", "deleted access key %s of IAM user %s (%s)", k.ID, u.name, retiredWhy(k.ID == previous, revoked, cutoff))
			if revoked {
				retired = append(retired, k.ID)
			}
		}
	}
	due := current == nil || (maxAge > 0 && now.Sub(current.Created) >= maxAge)
	if !due {
		out.Provisioned, out.KeyCreated = true, current.Created
		out.RequeueAfter = nextWake(now, current.Created, maxAge, previousRetire(kept, current, retireAt))
		p.recordRevocation(cr, cutoff, u.name, retired, "", out)
		if previous != "" && len(kept) == 1 {
			return p.forgetPrevious(ctx, secret)
		}
		return nil
	}
	if len(kept) >= 2 || (len(kept) == 1 && revokedCurrent != nil) { // IAM allows two keys: retire the older early
		old := kept[0]
		if current != nil && old.ID == current.ID {
			old = kept[1]
		}
		if err := c.DeleteAccessKey(ctx, u.name, old.ID); err != nil {
			return err
		}
		p.event(cr, "AccessKeyDeleted", "deleted access key %s of IAM user %s early to make room for a rotation", old.ID, u.name)
	}
	key, info, err := c.CreateAccessKey(ctx, u.name)
	if err != nil {
		return err
	}
	if err := p.prove(ctx, c, key, u.arn); err != nil {
		if derr := c.DeleteAccessKey(ctx, u.name, key.ID); derr != nil {
			err = fmt.Errorf("%w (and deleting the unproven key failed: %v)", err, derr)
		}
		return err
	}
	s := newSecret(cr, staticKeyData(key))
	s.Annotations[annotationKeyCreated] = formatTime(info.Created)
	rotated := current != nil
	if rotated {
		s.Annotations[annotationPreviousKey] = current.ID
		s.Annotations[annotationRetireAt] = formatTime(now.Add(p.cfg.RotationGrace))
	}
	if err := p.cluster.WriteSecret(ctx, s, secret); err != nil {
		return fmt.Errorf("write Secret %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if rotated {
		p.event(cr, "AccessKeyRotated", "published new access key %s of IAM user %s; the previous key %s is deleted after %v", key.ID, u.name, current.ID, p.cfg.RotationGrace)
		if p.cfg.RotationGrace == 0 {
			if err := c.DeleteAccessKey(ctx, u.name, current.ID); err != nil {
				return err
			}
		}
	} else {
		p.event(cr, "AccessKeyCreated", "published access key %s of IAM user %s in Secret %s/%s", key.ID, u.name, ref.Namespace, ref.Name)
	}
	if revokedCurrent != nil {
		if err := c.DeleteAccessKey(ctx, u.name, revokedCurrent.ID); err != nil {
			return err
		}
		p.event(cr, "AccessKeyDeleted", "deleted access key %s of IAM user %s (%s)", revokedCurrent.ID, u.name, retiredWhy(false, true, cutoff))
		retired = append(retired, revokedCurrent.ID)
	}
	p.recordRevocation(cr, cutoff, u.name, retired, key.ID, out)
	out.Provisioned, out.KeyCreated = true, info.Created
	out.RequeueAfter = nextWake(now, info.Created, maxAge, now.Add(p.cfg.RotationGrace))
	return nil
}

func retiredWhy(previous, revoked bool, cutoff time.Time) string {
	if revoked {
		return "issued before the " + AnnotationRevoke + " time " + revokeTime(cutoff)
	}
	if previous {
		return "its rotation grace period ended"
	}
	return "no Secret publishes it"
}

// previousRetire is when a kept previous key is due for deletion; zero when
// there is none.
func previousRetire(kept []iamclient.KeyInfo, current *iamclient.KeyInfo, retireAt time.Time) time.Time {
	for _, k := range kept {
		if current == nil || k.ID != current.ID {
			return retireAt
		}
	}
	return time.Time{}
}

// nextWake is how long until a key is due for rotation or retirement; 0
// when neither will happen.
func nextWake(now, created time.Time, maxAge time.Duration, retire time.Time) time.Duration {
	var waits []time.Duration
	if maxAge > 0 {
		waits = append(waits, created.Add(maxAge).Sub(now))
	}
	if retire.After(now) {
		waits = append(waits, retire.Sub(now))
	}
	if len(waits) == 0 {
		return 0
	}
	return max(slices.Min(waits), time.Second)
}

// forgetPrevious drops the record of a previous key once it is deleted.
func (p *Provisioner) forgetPrevious(ctx context.Context, s *corev1.Secret) error {
	prev := s
	s = s.DeepCopy()
	delete(s.Annotations, annotationPreviousKey)
	delete(s.Annotations, annotationRetireAt)
	return p.cluster.WriteSecret(ctx, s, prev)
}

// prove waits until the new key works and belongs to the user: IAM takes
// seconds to make a new key usable, and a Secret must never hold a key
// that does not work yet.
func (p *Provisioner) prove(ctx context.Context, c *iamclient.Client, key iamclient.AccessKey, arn string) error {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.ProofTimeout)
	defer cancel()
	kc := c.WithKey(key)
	wait := 250 * time.Millisecond
	for {
		id, err := kc.CallerIdentity(ctx)
		if err == nil {
			if id.ARN != arn {
				return fmt.Errorf("new access key %s acts as %s, not %s", key.ID, id.ARN, arn)
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("new access key %s did not start working within %v: %w", key.ID, p.cfg.ProofTimeout, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// grantedActions lists the actions the request's Allow statements grant.
func grantedActions(spec *leashv1.AWSProviderSpec) []string {
	var actions []string
	for _, e := range spec.StatementEntries {
		if e.Effect == "Allow" {
			actions = append(actions, e.Action...)
		}
	}
	return actions
}
