package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"sigs.k8s.io/controller-runtime/pkg/log"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
)

// boundState is the guardrails in force and what IAM holds of them. The
// guardrails are replaced whole when they are reloaded, never changed in
// place, so that a worker checks a request against one version of them.
type boundState struct {
	guard atomic.Pointer[Guardrails]
	// mu is held for writing while every minted user is brought to the
	// boundary of the guardrails in force, and for reading by a mint from
	// the moment it reads its boundary until its user has it: no user is
	// created or adopted with a boundary the walk has already replaced.
	mu sync.RWMutex
	// applied is the guardrails whose boundary every minted user of
	// account has, and boundary is that boundary's ARN (written under mu).
	applied  *Guardrails
	account  string
	boundary string
	// namespace limits the walk to the users of one namespace's requests,
	// as --namespace limits the sweep.
	namespace string
}

// guardrails is the guardrails in force.
func (p *Provisioner) guardrails() *Guardrails { return p.bound.guard.Load() }

// SetGuardrails puts g in force in place of the guardrails in force, once
// it is valid with the rest of the configuration (a ceiling and
// --permissions-boundary at once are not); an invalid g leaves the
// guardrails in force as they are. The next mint, and BoundMinted, bring
// every minted user to g's boundary first.
func (p *Provisioner) SetGuardrails(g Guardrails) error {
	cfg := p.cfg
	cfg.Guardrails = g
	if err := cfg.Validate(); err != nil {
		return err
	}
	p.bound.guard.Store(&cfg.Guardrails)
	return nil
}

// holds reports, with mu held, whether every minted user has the boundary
// of g for the account.
func (b *boundState) holds(g *Guardrails, account string) bool {
	return b.applied == g && (!g.HasCeiling() || b.account == account)
}

// boundaryFor is the permissions boundary a user minted now must have: the
// ceiling policy, or the configured --permissions-boundary. Every minted
// user has it before it is returned (BoundMinted), and release must be
// called once the mint's user has it too.
func (p *Provisioner) boundaryFor(ctx context.Context, rc *rootClient) (boundary string, release func(), err error) {
	for {
		p.bound.mu.RLock()
		if p.bound.holds(p.guardrails(), rc.identity.Account) {
			return p.bound.boundary, p.bound.mu.RUnlock, nil
		}
		p.bound.mu.RUnlock()
		if err := p.BoundMinted(ctx); err != nil {
			return "", nil, err
		}
	}
}

// BoundMinted brings every user this cluster's leash minted (tagged with
// the cluster and a request, under userPath; those of one namespace's
// requests when the operator watches one) to the boundary of the
// guardrails in force, before anything else is minted: the ceiling policy,
// made or brought to the ceiling first, so that a key above a new ceiling
// is bounded at once, whatever its request. It runs at start and at every
// change of the guardrails; each step is idempotent, so a crash between
// any two calls leaves a walk the next start does again. Without a
// ceiling, now and at the last walk, there is nothing to walk for: the
// configured --permissions-boundary is set by each request's sync.
func (p *Provisioner) BoundMinted(ctx context.Context) error {
	p.bound.mu.Lock()
	defer p.bound.mu.Unlock()
	g := p.guardrails()
	last := p.bound.applied
	if !g.HasCeiling() && (last == nil || !last.HasCeiling()) {
		p.bound.applied, p.bound.boundary = g, p.cfg.Boundary
		return nil
	}
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	if p.bound.holds(g, rc.identity.Account) {
		return nil
	}
	if last != nil && last.Ceiling == g.Ceiling && p.bound.account == rc.identity.Account {
		p.bound.applied = g // the same ceiling: only other guardrails changed
		return nil
	}
	want := p.cfg.Boundary
	if g.HasCeiling() {
		if want, err = p.ensureCeiling(ctx, rc.iam, rc.identity, g); err != nil {
			return err
		}
	}
	if err := p.boundUsers(ctx, rc.iam, want); err != nil {
		return err
	}
	p.bound.applied, p.bound.account, p.bound.boundary = g, rc.identity.Account, want
	return nil
}

// boundUsers sets want as the boundary of every minted user that has
// another. IAM's ListUsers returns neither tags nor boundaries, so each
// user is read (https://docs.aws.amazon.com/IAM/latest/APIReference/API_ListUsers.html).
func (p *Provisioner) boundUsers(ctx context.Context, c *iamclient.Client, want string) error {
	logger := log.FromContext(ctx).WithName("ceiling")
	users, err := c.ListUsers(ctx, userPath(p.cfg.ClusterName))
	if err != nil {
		return err
	}
	changed := 0
	for _, listed := range users {
		u, err := c.GetUser(ctx, listed.Name)
		if iamclient.IsNotFound(err) {
			continue // deleted since the listing
		}
		if err != nil {
			return err
		}
		if !p.mintedHere(u) || u.Boundary == want {
			continue
		}
		if err := setUserBoundary(ctx, c, u.Name, want); err != nil && !iamclient.IsNotFound(err) {
			return err
		}
		logger.Info("set the permissions boundary of a minted user", "user", u.Name, "request", u.Tags[TagRequest], "boundary", orNone(want))
		changed++
	}
	logger.Info("every minted user has the permissions boundary", "boundary", orNone(want), "users", len(users), "changed", changed)
	return nil
}

// mintedHere reports whether this operator minted u: tagged with its
// cluster and a request, of its namespace when it watches one.
func (p *Provisioner) mintedHere(u iamclient.User) bool {
	ns := p.bound.namespace
	return u.Tags[TagCluster] == p.cfg.ClusterName && u.Tags[TagRequestUID] != "" &&
		(ns == "" || strings.HasPrefix(u.Tags[TagRequest], ns+"/"))
}

// setUserBoundary sets a user's permissions boundary, or removes it when
// arn is empty.
func setUserBoundary(ctx context.Context, c *iamclient.Client, user, arn string) error {
	if arn == "" {
		return c.DeleteUserBoundary(ctx, user)
	}
	return c.PutUserBoundary(ctx, user, arn)
}

// boundAboveCeiling bounds the user an earlier sync minted for a request
// now above the ceiling before the refusal is reported: the request gets
// no new IAM change, but the keys it holds act within the ceiling from now
// on. A failure to bound is reported instead of AboveCeiling, and retried.
func (p *Provisioner) boundAboveCeiling(ctx context.Context, cr *leashv1.CredentialsRequest, out *Outcome) error {
	if out.Failure == nil || out.Failure.Reason != ReasonAboveCeiling || out.User == "" {
		return nil
	}
	err := p.boundUser(ctx, cr, out.User)
	var f *Failure
	if errors.As(err, &f) {
		out.Failure = f
		return nil
	}
	if err != nil {
		out.Failure = &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonCloudError,
			Message: fmt.Sprintf("the request is above the ceiling, and bounding its IAM user %s by the ceiling failed: %v; retrying with backoff", out.User, err)}
	}
	return err
}

// boundUser gives the request's minted user the boundary in force.
func (p *Provisioner) boundUser(ctx context.Context, cr *leashv1.CredentialsRequest, name string) error {
	rc, _, err := p.rootClient(ctx)
	if err != nil {
		return err
	}
	boundary, release, err := p.boundaryFor(ctx, rc)
	if err != nil {
		return err
	}
	defer release()
	u, err := rc.iam.GetUser(ctx, name)
	if iamclient.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if u.Tags[TagRequestUID] != string(cr.UID) || u.Boundary == boundary {
		return nil
	}
	if err := setUserBoundary(ctx, rc.iam, name, boundary); err != nil {
		return err
	}
	p.event(cr, "BoundaryUpdated", "set the permissions boundary of IAM user %s to %q", name, boundary)
	return nil
}
