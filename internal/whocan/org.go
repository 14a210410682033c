package whocan

import (
	"fmt"
	"sync"

	"leash.dev/leash/policy"
)

// Across an organization, which policies decide a request depends on both
// ends of it: the SCPs are those of the caller's account (root, each OU
// down to the account, the account), the RCPs those of the resource's
// account. Neither applies to the management account: "SCPs don't affect
// users or roles in the management account", and RCPs do not apply to its
// resources (AWS Organizations User Guide, "Service control policies" and
// "Resource control policies"). A request whose resource lies outside the
// organization has no RCPs; one whose caller lies outside, no SCPs.
//
// Each document is compiled once; each (caller account, resource account)
// pair gets its organization levels assembled (policy.Assemble, which
// compiles nothing) the first time a request needs them.

// orgPolicies is an organization's SCPs and RCPs, by account.
type orgPolicies struct {
	id string
	// scps and rcps are each account's levels, root first; the management
	// account has none.
	scps, rcps map[string][][]*policy.Compiled
	// paths is each account's aws:PrincipalOrgPaths value.
	paths map[string]string
	// docs is every SCP and RCP, once each.
	docs  []*policy.Compiled
	bases sync.Map // pairKey → *policy.Policies
}

type pairKey struct{ caller, resource string }

// base is the organization levels of a request from the caller's account
// to the resource's.
func (o *orgPolicies) base(caller, resource string) *policy.Policies {
	k := pairKey{caller, resource}
	if b, ok := o.bases.Load(k); ok {
		return b.(*policy.Policies)
	}
	b, _ := o.bases.LoadOrStore(k, policy.Assemble(o.scps[caller], o.rcps[resource], policy.Parts{}))
	return b.(*policy.Policies)
}

// decider is a principal's documents with the organization policies of
// each request: in one account a compiled set, in an organization the
// documents, placed under the levels of the request's two accounts. In an
// organization it keeps the sets of its caller's requests by resource
// account, which its next requests (most often of the same caller) reuse:
// it is not for concurrent use.
type decider struct {
	ps    *policy.Policies
	org   *orgPolicies
	parts policy.Parts
	sets  *callerSets
}

// callerSets are a decider's sets for one caller, by resource account:
// the first in place, any other in a map made when needed (most deciders
// answer one request).
type callerSets struct {
	principal, resource string
	ps                  *policy.Policies
	others              map[string]*policy.Policies
}

// with is the documents under the organization's policies.
func (m *Model) with(parts policy.Parts) decider {
	if m.org == nil {
		return decider{ps: m.base.With(parts)}
	}
	return decider{org: m.org, parts: parts, sets: &callerSets{}}
}

func (d decider) set(r *policy.Request) *policy.Policies {
	if d.org == nil {
		return d.ps
	}
	resource := r.ResourceAccount
	if resource == "" {
		resource = accountOf(r.Resource)
	}
	s := d.sets
	if s.ps != nil && s.principal == r.Principal {
		if s.resource == resource {
			return s.ps
		}
		if ps, ok := s.others[resource]; ok {
			return ps
		}
	}
	caller := accountOf(r.Principal)
	key := resource
	if key == "" || key == "aws" {
		key = caller // as the engine takes it
	}
	ps := d.org.base(caller, key).With(d.parts)
	switch {
	case s.ps == nil || s.principal != r.Principal:
		*s = callerSets{principal: r.Principal, resource: resource, ps: ps}
	case s.others == nil:
		s.others = map[string]*policy.Policies{resource: ps}
	default:
		s.others[resource] = ps
	}
	return ps
}

// Decide is policy.Policies.Decide with the request's organization
// policies.
func (d decider) Decide(r *policy.Request) policy.Decision { return d.set(r).Decide(r) }

// Explain is policy.Policies.Explain with the request's organization
// policies.
func (d decider) Explain(r *policy.Request) policy.Result { return d.set(r).Explain(r) }

// addOrgKeys sets the organization keys of a caller in it, unless the
// question gives them: aws:PrincipalOrgID and aws:PrincipalOrgPaths.
func (m *Model) addOrgKeys(c *policy.Context, caller string) {
	if m.org == nil {
		return
	}
	path, ok := m.org.paths[accountOf(caller)]
	if !ok {
		return
	}
	if _, given := c.Get("aws:PrincipalOrgID"); !given {
		c.Set("aws:PrincipalOrgID", m.org.id)
	}
	if _, given := c.Get("aws:PrincipalOrgPaths"); !given {
		c.SetList("aws:PrincipalOrgPaths", []string{path})
	}
}

// NewOrgModel compiles the principals of every account of the
// organization, each under its own account's SCPs and, for each resource,
// the RCPs of the resource's account.
func NewOrgModel(org *Organization) (*Model, error) {
	return NewOrgModelFor(org, "")
}

// NewOrgModelFor is NewOrgModel for questions about one action alone, as
// NewModelFor.
func NewOrgModelFor(org *Organization, action string) (*Model, error) {
	op := &orgPolicies{id: org.ID, scps: map[string][][]*policy.Compiled{}, rcps: map[string][][]*policy.Compiled{}, paths: map[string]string{}}
	compiled := map[string]*policy.Compiled{}
	compile := func(n policy.Named, kind policy.Kind) (*policy.Compiled, error) {
		key := kind.String() + "\x00" + n.Name
		if c, ok := compiled[key]; ok {
			return c, nil
		}
		c, err := policy.CompileOne(n, kind)
		if err != nil {
			return nil, fmt.Errorf("%s: %s %s: %w", org.Dir, kind, n.Name, err)
		}
		compiled[key] = c
		return c, nil
	}
	for _, id := range sortedKeys(org.Accounts) {
		acct := org.Accounts[id]
		path := org.ID + "/"
		for _, n := range acct.path()[:len(acct.path())-1] {
			path += n.ID + "/"
		}
		op.paths[id] = path
		if id == org.Management {
			continue
		}
		for _, n := range acct.path() {
			var scps, rcps []*policy.Compiled
			for _, p := range n.SCPs {
				c, err := compile(p, policy.SCP)
				if err != nil {
					return nil, err
				}
				scps = append(scps, c)
			}
			for _, p := range n.RCPs {
				c, err := compile(p, policy.RCP)
				if err != nil {
					return nil, err
				}
				rcps = append(rcps, c)
			}
			// Without the kind's folder the organization has none of it,
			// and no level is added.
			if org.HasSCPs {
				op.scps[id] = append(op.scps[id], scps)
			}
			if org.HasRCPs {
				op.rcps[id] = append(op.rcps[id], rcps)
			}
		}
	}
	for _, key := range sortedKeys(compiled) {
		op.docs = append(op.docs, compiled[key])
	}
	m, err := NewModelFor(mergeSnapshots(org), Org{}, action)
	if err != nil {
		return nil, err
	}
	m.org, m.Account = op, ""
	return m, nil
}

// mergeSnapshots is one snapshot of every account's principals. Group
// names are only unique within an account, so each group is known as
// ACCOUNT/NAME; managed policy ARNs are unique (an AWS managed policy is
// the same document in every account).
func mergeSnapshots(org *Organization) *Snapshot {
	out := &Snapshot{Source: org.Dir, Groups: map[string]*Group{}, Policies: map[string]*ManagedPolicy{}}
	for _, id := range sortedKeys(org.Snapshots) {
		s := org.Snapshots[id]
		for _, u := range s.Users {
			groups := make([]string, len(u.Groups))
			for i, g := range u.Groups {
				groups[i] = id + "/" + g
			}
			u.Groups = groups
			out.Users = append(out.Users, u)
		}
		out.Roles = append(out.Roles, s.Roles...)
		for name, g := range s.Groups {
			out.Groups[id+"/"+name] = g
		}
		for arn, p := range s.Policies {
			if prev, ok := out.Policies[arn]; !ok || prev.Document == nil {
				out.Policies[arn] = p
			}
		}
	}
	return out
}

// orgResourcePatterns is ResourcePatterns over the organization's policies:
// of one account, or every SCP and RCP of an organization (the classes of
// the escalation graph may only grow finer for the patterns of accounts a
// request does not involve).
func (m *Model) orgResourcePatterns(action string, yield func(policy.ResourcePattern)) {
	if m.org == nil {
		m.base.OrgResourcePatterns(action, yield)
		return
	}
	for _, c := range m.org.docs {
		c.ResourcePatterns(action, yield)
	}
}
