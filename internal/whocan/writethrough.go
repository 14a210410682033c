package whocan

import (
	"fmt"
	"slices"
	"sort"
)

// writeThrough is how the principal of node i may write the permissions of
// principal j, which it can act as: put or attach a policy on j, or write a
// new default version of a customer managed policy attached to j (to j
// itself or, for a user, to a group it is in), or make an older version
// the default. AWS managed policies (arn:aws:iam::aws:policy/...) cannot be
// changed. action and resource are what it may do and on what.
func (g *Graph) writeThrough(i, j int32) (action, resource string, ok bool) {
	p, q := g.principal(i), g.m.Principals[j]
	var actions []string
	switch q.Kind {
	case KindUser:
		actions = []string{"iam:PutUserPolicy", "iam:AttachUserPolicy"}
	case KindRole:
		actions = []string{"iam:PutRolePolicy", "iam:AttachRolePolicy"}
	}
	for _, a := range actions {
		if p.mayAllow(a) && g.ask(p, a, q.ARN, nil, nil) {
			return a, q.ARN, true
		}
	}
	var versions []string
	for _, a := range policyVersionActions {
		if p.mayAllow(a) {
			versions = append(versions, a)
		}
	}
	if len(versions) == 0 {
		return "", "", false
	}
	for _, arn := range customerManaged(q) {
		for _, a := range versions {
			if g.ask(p, a, arn, nil, nil) {
				return a, arn, true
			}
		}
	}
	return "", "", false
}

// policyVersionActions change what a managed policy grants everyone it is
// attached to: a new default version, or an older one made the default.
var policyVersionActions = []string{"iam:CreatePolicyVersion", "iam:SetDefaultPolicyVersion"}

// customerManaged is the customer managed policies attached to p or its
// groups, in ARN order.
func customerManaged(p *Principal) []string {
	var out []string
	p.eachOrigin(func(o Origin) {
		if o.Type == "managed" && !isAWSManaged(o.Policy) {
			out = append(out, o.Policy)
		}
	})
	sort.Strings(out)
	return out
}

// describeWriteThrough is the step of a write-through edge: the write, and
// how the principal acts as the one written (the graph's edge to it).
func (g *Graph) describeWriteThrough(e Edge, s Step, explain func(action, resource string) []Statement) Step {
	q := g.m.Principals[e.aux]
	action, resource, _ := g.writeThrough(e.From, e.aux)
	s.Action, s.Resource = action, resource
	s.Statements = explain(action, resource)
	s.Text = fmt.Sprintf("may %s on %s (%s)", action, short(resource), refs(s.Statements))
	if resource != q.ARN {
		s.Text += ", attached to " + q.Short()
	}
	acts := ", which it can act as"
	for _, o := range g.Out[e.From] {
		if o.To == e.aux && o.kind != edgeWriteThrough {
			acts = ", and " + g.describe(o).Text
			break
		}
	}
	if acts == ", which it can act as" {
		for _, ce := range g.ClassOut[e.From] {
			if ce.reaches(e.aux) && slices.Contains(g.classesOf[e.aux], ce.class) {
				acts = ", and " + g.describe(ce.to(e.aux)).Text
				break
			}
		}
	}
	s.Text += acts + ": any permission"
	return s
}

// writesThrough reports whether node from reaches any permission in one
// step through another principal, whose policies it writes: a chain, where
// a change to itself is not.
func (g *Graph) writesThrough(from int32) bool {
	for _, e := range g.Out[from] {
		if e.To == g.Admin && e.kind == edgeWriteThrough {
			return true
		}
	}
	return false
}
