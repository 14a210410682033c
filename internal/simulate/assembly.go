package simulate

import "leash.dev/leash/policy"

// assembly gathers the compiled documents of one request, renamed as the
// request names them, so that its Policies are assembled from the cache's
// compiled documents rather than compiled again (policy.Assemble). A nil
// *assembly gathers nothing.
type assembly struct {
	parts      policy.Parts
	scps, rcps [][]*policy.Compiled
	// incomplete is set when some document did not compile: the request's
	// Set is then compiled whole, which reports the error as Compile words
	// it.
	incomplete bool
}

// use returns e's compiled document under name at level, or nil when it
// has none.
func (a *assembly) use(e *docEntry, name string, level int) *policy.Compiled {
	if e.compiled == nil {
		a.incomplete = true
		return nil
	}
	return e.place(name, level)
}

// reserve makes room for the documents of c.
func (a *assembly) reserve(c *Case) {
	if a != nil {
		a.parts.Identity = make([]*policy.Compiled, 0, len(c.IdentityPolicies))
		a.scps, a.rcps = make([][]*policy.Compiled, 0, len(c.SCPs)), make([][]*policy.Compiled, 0, len(c.RCPs))
	}
}

func (a *assembly) identity(e *docEntry, name string) {
	if a != nil {
		a.parts.Identity = append(a.parts.Identity, a.use(e, name, 0))
	}
}

// single sets the resource (kind Resource), boundary or session document;
// e is nil when the request has none.
func (a *assembly) single(kind policy.Kind, e *docEntry, name string) {
	if a == nil || e == nil {
		return
	}
	c := a.use(e, name, 0)
	switch kind {
	case policy.Resource:
		a.parts.Resource = c
	case policy.Boundary:
		a.parts.Boundary = c
	default:
		a.parts.Session = c
	}
}

// level adds a level of SCPs or RCPs.
func (a *assembly) level(kind policy.Kind, docs []*policy.Compiled) {
	switch {
	case a == nil:
	case kind == policy.SCP:
		a.scps = append(a.scps, docs)
	default:
		a.rcps = append(a.rcps, docs)
	}
}

// policies returns the request's Policies, false when some document did not
// compile.
func (a *assembly) policies() (*policy.Policies, bool) {
	if a.incomplete {
		return nil, false
	}
	return policy.Assemble(a.scps, a.rcps, a.parts), true
}
