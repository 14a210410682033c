package policy

import (
	"fmt"
	"strings"
)

// Named is a policy document with the name it is known by (an inline policy's
// name, a managed policy's ARN, an SCP's name).
type Named struct {
	Name     string
	Document *Document
}

// Set is every policy that bears on a request. Absent parts are nil: no
// resource policy, no boundary, no session policy, no organization.
type Set struct {
	Identity       []Named
	ResourcePolicy *Named
	Boundary       *Named
	Session        *Named
	// SCPs and RCPs hold one list per level of the organization path, from
	// the root down to the account.
	SCPs [][]Named
	RCPs [][]Named
}

// Add places a policy where a policy of its kind goes: an SCP or RCP as a
// new organization level below the others, a resource, trust, boundary or
// session policy in its single place (replacing any there).
func (s *Set) Add(kind Kind, n Named) {
	switch kind {
	case Identity:
		s.Identity = append(s.Identity, n)
	case Resource, Trust:
		s.ResourcePolicy = &n
	case Boundary:
		s.Boundary = &n
	case Session:
		s.Session = &n
	case SCP:
		s.SCPs = append(s.SCPs, []Named{n})
	case RCP:
		s.RCPs = append(s.RCPs, []Named{n})
	}
}

// Policies is a compiled Set, ready to answer many requests. It is safe for
// concurrent use.
type Policies struct {
	identity []*compiledDoc
	resource *compiledDoc
	boundary *compiledDoc
	session  *compiledDoc
	scps     [][]*compiledDoc
	rcps     [][]*compiledDoc
}

type compiledDoc struct {
	name  string
	kind  Kind
	level int // organization level, for SCPs and RCPs
	stmts []compiledStmt
}

type compiledStmt struct {
	index  int
	sid    string
	effect Effect
	// Action or NotAction.
	actions   []pattern
	notAction bool
	// Resource or NotResource; anyResource when the statement has neither
	// (trust policies).
	resources   []arnPattern
	notResource bool
	anyResource bool
	// Principal or NotPrincipal; nil in policies that name no principals.
	principal    *principalSet
	notPrincipal bool
	conds        []compiledCond
}

// Compile checks and compiles a set of policies.
func Compile(s Set) (*Policies, error) {
	p := &Policies{}
	var err error
	for _, n := range s.Identity {
		d, err := compileDoc(n, Identity)
		if err != nil {
			return nil, err
		}
		p.identity = append(p.identity, d)
	}
	if s.ResourcePolicy != nil {
		if p.resource, err = compileDoc(*s.ResourcePolicy, Resource); err != nil {
			return nil, err
		}
	}
	if s.Boundary != nil {
		if p.boundary, err = compileDoc(*s.Boundary, Boundary); err != nil {
			return nil, err
		}
	}
	if s.Session != nil {
		if p.session, err = compileDoc(*s.Session, Session); err != nil {
			return nil, err
		}
	}
	if p.scps, err = compileLevels(s.SCPs, SCP); err != nil {
		return nil, err
	}
	if p.rcps, err = compileLevels(s.RCPs, RCP); err != nil {
		return nil, err
	}
	return p, nil
}

func compileLevels(levels [][]Named, kind Kind) ([][]*compiledDoc, error) {
	var out [][]*compiledDoc
	for li, level := range levels {
		var docs []*compiledDoc
		for _, n := range level {
			d, err := compileDoc(n, kind)
			if err != nil {
				return nil, err
			}
			d.level = li
			docs = append(docs, d)
		}
		out = append(out, docs)
	}
	return out, nil
}

func compileDoc(n Named, kind Kind) (*compiledDoc, error) {
	if n.Document == nil {
		return nil, fmt.Errorf("%s policy %q has no document", kind, n.Name)
	}
	vars := n.Document.Version == Version2012
	d := &compiledDoc{name: n.Name, kind: kind, stmts: make([]compiledStmt, 0, len(n.Document.Statements))}
	for i, s := range n.Document.Statements {
		cs, err := compileStatement(i, s, vars)
		if err != nil {
			return nil, fmt.Errorf("%s policy %q: Statement[%d]: %w", kind, n.Name, i, err)
		}
		d.stmts = append(d.stmts, cs)
	}
	return d, nil
}

func compileStatement(i int, s Statement, vars bool) (compiledStmt, error) {
	cs := compiledStmt{index: i, sid: s.Sid, effect: s.Effect}
	actions := s.Action
	if s.NotAction != nil {
		actions, cs.notAction = s.NotAction, true
	}
	cs.actions = make([]pattern, 0, len(actions))
	for _, a := range actions {
		// Action names are case-insensitive and take no variables.
		p, err := compilePattern(strings.ToLower(a), true, false)
		if err != nil {
			return cs, err
		}
		cs.actions = append(cs.actions, p)
	}
	resources := s.Resource
	switch {
	case s.NotResource != nil:
		resources, cs.notResource = s.NotResource, true
	case s.Resource == nil:
		cs.anyResource = true
	}
	cs.resources = make([]arnPattern, 0, len(resources))
	for _, r := range resources {
		p, err := compileARNPattern(r, vars)
		if err != nil {
			return cs, err
		}
		cs.resources = append(cs.resources, p)
	}
	if s.NotPrincipal != nil {
		cs.principal, cs.notPrincipal = compilePrincipal(s.NotPrincipal), true
	} else {
		cs.principal = compilePrincipal(s.Principal)
	}
	if len(s.Conditions) > 0 {
		cs.conds = make([]compiledCond, 0, len(s.Conditions))
	}
	for _, c := range s.Conditions {
		cc, err := compileCondition(c, vars)
		if err != nil {
			return cs, fmt.Errorf("condition %s %s: %w", c.Operator, c.Key, err)
		}
		cs.conds = append(cs.conds, cc)
	}
	return cs, nil
}
