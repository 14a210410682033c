package policy

// Compiled is one compiled policy document. Account-wide questions compile
// each managed policy once and share it among every principal it is attached
// to, rather than compiling it again in each principal's Set.
type Compiled struct {
	doc *compiledDoc
}

// CompileOne checks and compiles one document as the given kind (Identity,
// Resource, Trust, Boundary or Session; SCPs and RCPs belong to organization
// levels, which Compile builds).
func CompileOne(n Named, kind Kind) (*Compiled, error) {
	if kind == Trust {
		kind = Resource // as Compile places a trust policy
	}
	d, err := compileDoc(n, kind)
	if err != nil {
		return nil, err
	}
	return &Compiled{doc: d}, nil
}

// Parts are the per-principal documents of a request: what With puts beside
// the organization policies of a compiled Set.
type Parts struct {
	Identity []*Compiled
	Resource *Compiled
	Boundary *Compiled
	Session  *Compiled
}

// With returns Policies holding p's SCPs and RCPs (shared, not copied) and
// the given identity, resource, boundary and session documents in place of
// p's own. It compiles nothing, so deciding for many principals under one
// organization costs one compile per distinct document.
func (p *Policies) With(parts Parts) *Policies {
	q := &Policies{scps: p.scps, rcps: p.rcps}
	if len(parts.Identity) > 0 {
		q.identity = make([]*compiledDoc, len(parts.Identity))
		for i, c := range parts.Identity {
			q.identity[i] = c.doc
		}
	}
	if parts.Resource != nil {
		q.resource = parts.Resource.doc
	}
	if parts.Boundary != nil {
		q.boundary = parts.Boundary.doc
	}
	if parts.Session != nil {
		q.session = parts.Session.doc
	}
	return q
}

// MayAllow reports whether an Allow statement of the document covers the
// action, whatever its resources, principals and conditions. It is a cheap
// test that rules a document out before the engine is asked: when no
// document of a principal may allow an action, no request for it is allowed
// by the principal's identity side.
func (c *Compiled) MayAllow(action string) bool {
	for i := range c.doc.stmts {
		s := &c.doc.stmts[i]
		if s.effect == Allow && s.matchesAction(action) {
			return true
		}
	}
	return false
}

// WithResource returns p with res as the resource's own policy in place of
// p's (nil for none): the same principal asked about another resource,
// such as a KMS key under its key policy. It compiles nothing.
func (p *Policies) WithResource(res *Compiled) *Policies {
	q := *p
	q.resource = nil
	if res != nil {
		q.resource = res.doc
	}
	return &q
}
