package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/policy"
)

// lacks lists the request's permissions that principal is not allowed,
// judged by leash's engine over the principal's policies as IAM holds them
// (read with c), or, when c may not read them, by IAM's simulator.
func lacks(ctx context.Context, c *iamclient.Client, cache *permissionCache, principal string, requested *policy.Document) ([]analyze.Gap, error) {
	qs := analyze.Questions(requested, nil)
	if strings.HasSuffix(principal, ":root") {
		return nil, nil // the account root may do anything its SCPs allow
	}
	load := func(ctx context.Context) (*policy.Policies, error) { return principalPolicies(ctx, c, principal) }
	compiled, fresh, err := cache.get(ctx, principal, load)
	if iamclient.IsAccessDenied(err) {
		return simulated(ctx, c, principal, qs)
	}
	if err != nil {
		return nil, err
	}
	denials := analyze.Ask(compiled, principal, qs)
	if len(denials) == 0 || fresh {
		return denials, nil
	}
	// A cached answer is trusted only when it allows. A denial is checked
	// again against the policies IAM holds now, so that a permission the
	// administrator has just granted shows at the next recheck rather than
	// once the cache expires.
	compiled, err = cache.load(ctx, principal, load)
	if iamclient.IsAccessDenied(err) {
		return simulated(ctx, c, principal, qs)
	}
	if err != nil {
		return nil, err
	}
	return analyze.Ask(compiled, principal, qs), nil
}

// principalPolicies reads and compiles a user's or role's policies.
func principalPolicies(ctx context.Context, c *iamclient.Client, principal string) (*policy.Policies, error) {
	kind, name, ok := iamclient.PrincipalName(principal)
	if !ok {
		return nil, fmt.Errorf("%s is neither an IAM user nor a role; leash cannot read its policies", principal)
	}
	pp, err := c.LoadPolicies(ctx, kind, name)
	var unparsable *iamclient.PolicyParseError
	if errors.As(err, &unparsable) {
		return nil, fmt.Errorf("%s %s of %s: %w", unparsable.Kind, unparsable.Name, principal, unparsable.Err)
	}
	if err != nil {
		return nil, err
	}
	return policy.Compile(pp.Set())
}

// simulated asks IAM's simulator, for principals whose policies c may not
// read but may simulate.
func simulated(ctx context.Context, c *iamclient.Client, principal string, qs []analyze.Question) ([]analyze.Gap, error) {
	source := principal
	if kind, name, ok := iamclient.PrincipalName(principal); ok && kind == "role" && strings.Contains(principal, ":assumed-role/") {
		a, _ := policy.ParseARN(principal)
		source = policy.ARN{Partition: a.Partition, Service: "iam", Account: a.Account, Resource: "role/" + name}.String()
	}
	var denials []analyze.Gap
	for _, q := range qs {
		a, err := c.Simulate(ctx, source, iamclient.SimulationQuestion{Action: q.Action, Resource: q.Resource, Context: q.Context})
		if err != nil {
			return nil, fmt.Errorf("cannot read the policies of %s, nor simulate them: %w", principal, err)
		}
		if a.Decision != "allowed" {
			denials = append(denials, analyze.Gap{Action: q.Action, Resource: q.Resource, Context: analyze.ContextText(q.Context),
				Why: "IAM's policy simulator answered " + a.Decision})
		}
	}
	return denials, nil
}

// denialsMessage lists the denials for a condition's message, the first
// ones in full.
func denialsMessage(who string, ds []analyze.Gap) string {
	const shown = 10
	var b strings.Builder
	fmt.Fprintf(&b, "%s lacks %d requested permission(s): ", who, len(ds))
	for i, d := range ds {
		if i == shown {
			fmt.Fprintf(&b, "; and %d more", len(ds)-shown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// permissionCache keeps a principal's compiled policies for a short while,
// so that many requests checked against one root principal read its
// policies from IAM once.
type permissionCache struct {
	ttl time.Duration
	now func() time.Time
	mu  sync.Mutex
	m   map[string]cachedPolicies
}

type cachedPolicies struct {
	p  *policy.Policies
	at time.Time
}

func newPermissionCache(ttl time.Duration, now func() time.Time) *permissionCache {
	return &permissionCache{ttl: ttl, now: now, m: map[string]cachedPolicies{}}
}

// get returns the principal's compiled policies, from the cache while they
// are younger than the TTL; fresh says they were just read from IAM.
func (pc *permissionCache) get(ctx context.Context, principal string, load func(context.Context) (*policy.Policies, error)) (p *policy.Policies, fresh bool, err error) {
	pc.mu.Lock()
	c, ok := pc.m[principal]
	pc.mu.Unlock()
	if ok && pc.now().Sub(c.at) < pc.ttl {
		return c.p, false, nil
	}
	p, err = pc.load(ctx, principal, load)
	return p, true, err
}

// load reads the principal's policies from IAM and caches them.
func (pc *permissionCache) load(ctx context.Context, principal string, load func(context.Context) (*policy.Policies, error)) (*policy.Policies, error) {
	p, err := load(ctx)
	if err != nil {
		return nil, err
	}
	pc.mu.Lock()
	pc.m[principal] = cachedPolicies{p: p, at: pc.now()}
	pc.mu.Unlock()
	return p, nil
}
