package operator

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/iamclient"
	"leash.dev/leash/policy"
)

// Denial is one requested permission a principal lacks, and why.
type Denial struct {
	Action   string
	Resource string
	Context  string
	Why      string
}

func (d Denial) String() string {
	s := d.Action + " on " + d.Resource
	if d.Context != "" {
		s += " when " + d.Context
	}
	return s + ": " + d.Why
}

// question is one action on one resource under one context that the
// request's statements need the principal to be allowed.
type question struct {
	action, resource string
	context          map[string][]string
}

// questions turns the request's Allow statements into the questions a
// principal must answer "allowed" to. A statement's resource pattern is
// asked as written, so a principal covers it only if its own patterns match
// the whole pattern (arn:aws:s3:::* covers arn:aws:s3:::krops-*, and
// arn:aws:s3:::krops-a does not). Its conditions become a context that
// satisfies them: each value of each key under a positive operator is asked
// once, so a principal limited to one region is not taken to cover a
// request for two.
func questions(spec *leashv1.AWSProviderSpec) []question {
	var qs []question
	for _, e := range spec.StatementEntries {
		if e.Effect != "Allow" {
			continue
		}
		for _, ctx := range satisfyingContexts(e.PolicyCondition) {
			for _, a := range e.Action {
				qs = append(qs, question{action: a, resource: e.Resource, context: ctx})
			}
		}
	}
	return qs
}

// satisfyingContexts are contexts under which a condition block holds: the
// first value of every key, then each other value of one key at a time.
// Keys under negated, Null and numeric or date operators are left out: an
// absent key makes the principal's own conditions on it fail, so the check
// errs towards "lacks".
func satisfyingContexts(cond leashv1.IAMPolicyCondition) []map[string][]string {
	type keyValues struct {
		key    string
		values []string
	}
	var kvs []keyValues
	for op, keys := range cond {
		base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(op, "ForAnyValue:"), "ForAllValues:"), "IfExists")
		switch base {
		case "StringEquals", "StringEqualsIgnoreCase", "StringLike", "ArnEquals", "ArnLike", "Bool", "IpAddress":
		default:
			continue
		}
		for k, v := range keys {
			kvs = append(kvs, keyValues{key: k, values: conditionValues(v)})
		}
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].key < kvs[j].key })
	first := map[string][]string{}
	for _, kv := range kvs {
		if len(kv.values) > 0 {
			first[kv.key] = kv.values[:1]
		}
	}
	out := []map[string][]string{first}
	for _, kv := range kvs {
		for _, v := range kv.values[min(1, len(kv.values)):] {
			ctx := map[string][]string{}
			for k, vs := range first {
				ctx[k] = vs
			}
			ctx[kv.key] = []string{v}
			out = append(out, ctx)
		}
	}
	return out
}

// conditionValues reads a condition value as JSON decoded it: a scalar or a
// list of scalars.
func conditionValues(v any) []string {
	switch v := v.(type) {
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, fmt.Sprint(e))
		}
		return out
	case nil:
		return nil
	default:
		return []string{fmt.Sprint(v)}
	}
}

func contextText(ctx map[string][]string) string {
	keys := make([]string, 0, len(ctx))
	for k := range ctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+strings.Join(ctx[k], ","))
	}
	return strings.Join(parts, " ")
}

// lacks lists the request's permissions that principal is not allowed,
// judged by leash's engine over the principal's policies as IAM holds them
// (read with c), or, when c may not read them, by IAM's simulator.
func lacks(ctx context.Context, c *iamclient.Client, cache *permissionCache, principal string, spec *leashv1.AWSProviderSpec) ([]Denial, error) {
	qs := questions(spec)
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
	denials := judge(compiled, principal, qs)
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
	return judge(compiled, principal, qs), nil
}

// judge asks the engine each question about principal.
func judge(compiled *policy.Policies, principal string, qs []question) []Denial {
	var denials []Denial
	for _, q := range qs {
		r := &policy.Request{Principal: principal, Action: q.action, Resource: q.resource}
		r.Context.AddPrincipalKeys(principal)
		for k, vs := range q.context {
			r.Context.SetList(k, vs)
		}
		res := compiled.Explain(r)
		if res.Decision == policy.Allowed {
			continue
		}
		why := res.Decision.String()
		if len(res.Reasons) > 0 {
			why = res.Reasons[0].Message
		}
		denials = append(denials, Denial{Action: q.action, Resource: q.resource, Context: contextText(q.context), Why: why})
	}
	return denials
}

// principalPolicies reads and compiles a user's or role's policies.
func principalPolicies(ctx context.Context, c *iamclient.Client, principal string) (*policy.Policies, error) {
	kind, name, ok := iamclient.PrincipalName(principal)
	if !ok {
		return nil, fmt.Errorf("%s is neither an IAM user nor a role; leash cannot read its policies", principal)
	}
	var pp iamclient.PrincipalPolicies
	var err error
	if kind == "user" {
		pp, err = c.UserPolicies(ctx, name)
	} else {
		pp, err = c.RolePolicies(ctx, name)
	}
	if err != nil {
		return nil, err
	}
	var set policy.Set
	for _, d := range pp.Identity {
		doc, err := policy.Parse([]byte(d.Document), policy.Identity)
		if err != nil {
			return nil, fmt.Errorf("policy %s of %s: %w", d.Name, principal, err)
		}
		set.Add(policy.Identity, policy.Named{Name: d.Name, Document: doc})
	}
	if pp.Boundary != nil {
		doc, err := policy.Parse([]byte(pp.Boundary.Document), policy.Boundary)
		if err != nil {
			return nil, fmt.Errorf("permissions boundary %s of %s: %w", pp.Boundary.Name, principal, err)
		}
		set.Add(policy.Boundary, policy.Named{Name: pp.Boundary.Name, Document: doc})
	}
	return policy.Compile(set)
}

// simulated asks IAM's simulator, for principals whose policies c may not
// read but may simulate.
func simulated(ctx context.Context, c *iamclient.Client, principal string, qs []question) ([]Denial, error) {
	source := principal
	if kind, name, ok := iamclient.PrincipalName(principal); ok && kind == "role" && strings.Contains(principal, ":assumed-role/") {
		source = fmt.Sprintf("arn:%s:iam::%s:role/%s", partition(principal), accountOf(principal), name)
	}
	var denials []Denial
	for _, q := range qs {
		a, err := c.Simulate(ctx, source, iamclient.SimulationQuestion{Action: q.action, Resource: q.resource, Context: q.context})
		if err != nil {
			return nil, fmt.Errorf("cannot read the policies of %s, nor simulate them: %w", principal, err)
		}
		if a.Decision != "allowed" {
			denials = append(denials, Denial{Action: q.action, Resource: q.resource, Context: contextText(q.context),
				Why: "IAM's policy simulator answered " + a.Decision})
		}
	}
	return denials, nil
}

func accountOf(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 5 {
		return ""
	}
	return parts[4]
}

// denialsMessage lists the denials for a condition's message, the first
// ones in full.
func denialsMessage(who string, ds []Denial) string {
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
