package whocan

import (
	"fmt"
	"strings"

	"leash.dev/leash/analyze"
	"leash.dev/leash/policy"
)

// ChainID is the ID of the findings for escalations through other
// principals.
const ChainID = "LEASH-ESC-CHAIN"

// ChainFindings is leash check's view of the graph from one principal: a
// critical finding when it reaches any permission through at least one
// other principal (its own changes to itself are LEASH-ESC-SELF's), and a
// high finding for each other principal it can act as before it reaches any
// permission (past that point every principal is within reach, and the
// critical finding says so), each with the shortest path. The policy and path of a finding are those of the first
// step's deciding statement of the principal's own.
func (g *Graph) ChainFindings(from int32) []analyze.Finding {
	var out []analyze.Finding
	paths := g.Reachable(from)
	adminAt := -1
	for _, p := range paths {
		if p.To == g.Admin {
			adminAt = len(p.Steps)
		}
	}
	for _, p := range paths {
		if p.To != g.Admin && adminAt >= 0 && len(p.Steps) >= adminAt {
			continue
		}
		// A member node is the principal itself in one more group: the
		// paths through it say so, and it is no finding of its own.
		if g.isMember(p.To) {
			continue
		}
		first := p.Steps[0]
		policyName, path := "", ""
		for _, s := range first.Statements {
			if s.PolicyType == policy.Identity.String() {
				policyName, path = s.Policy, fmt.Sprintf("Statement[%d]", s.Index)
				break
			}
		}
		text := chainText(p.Steps)
		if p.To == g.Admin {
			if len(p.Steps) < 2 && !g.writesThrough(from) {
				continue
			}
			n := fmt.Sprintf("%d steps", len(p.Steps))
			if len(p.Steps) == 1 {
				n = "1 step"
			}
			out = append(out, analyze.Finding{ID: ChainID, Severity: analyze.Critical, Policy: policyName, Path: path,
				Message: fmt.Sprintf("reaches any permission in %s through %s: %s", n, through(p.Steps), text),
				Fix:     "break the chain at its first step: remove the permission it uses, or narrow the trust policy or the grant of the principal it reaches"})
			continue
		}
		to := g.m.Principals[p.To]
		out = append(out, analyze.Finding{ID: ChainID, Severity: analyze.High, Policy: policyName, Path: path,
			Message: fmt.Sprintf("can act as %s %s in %d step(s), with its permissions: %s", to.Kind, to.ARN, len(p.Steps), text),
			Fix:     fmt.Sprintf("if %s should not act as %s, remove the permission of the first step or narrow %s's trust policy", short(g.m.Principals[from].ARN), short(to.ARN), short(to.ARN))})
	}
	return out
}

func chainText(steps []Step) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = s.actor() + " " + s.Text
	}
	return strings.Join(parts, " → ")
}

// through says what a path to any permission passes: other principals, and
// the groups it joins.
func through(steps []Step) string {
	var groups []string
	for _, s := range steps {
		if s.ToGroup != "" {
			groups = append(groups, short(s.ToGroup))
		}
	}
	if len(groups) == 0 {
		return "other principals"
	}
	return "other principals or by joining " + strings.Join(groups, ", ")
}

// Policies is a principal's policies as documents: its identity policies
// (inline by name, managed by ARN; a user's groups' too), its boundary and a
// role's trust policy, for reviews of one principal.
func (m *Model) Policies(p *Principal) (identity []policy.Named, boundary, trust *policy.Named) {
	s := m.Snapshot
	managed := func(arns []string) {
		for _, arn := range arns {
			if mp, ok := s.Policies[arn]; ok {
				identity = append(identity, policy.Named{Name: arn, Document: mp.Document})
			}
		}
	}
	inline := func(list []Inline) {
		for _, in := range list {
			identity = append(identity, policy.Named{Name: in.Name, Document: in.Document})
		}
	}
	var boundaryARN string
	switch {
	case p.user != nil:
		inline(p.user.Inline)
		managed(p.user.Attached)
		for _, name := range p.user.Groups {
			if gr, ok := s.Groups[name]; ok {
				inline(gr.Inline)
				managed(gr.Attached)
			}
		}
		boundaryARN = p.user.Boundary
	case p.role != nil:
		inline(p.role.Inline)
		managed(p.role.Attached)
		boundaryARN = p.role.Boundary
		if p.role.Trust != nil {
			trust = &policy.Named{Name: "AssumeRolePolicyDocument", Document: p.role.Trust}
		}
	}
	if mp, ok := s.Policies[boundaryARN]; ok {
		boundary = &policy.Named{Name: boundaryARN, Document: mp.Document}
	}
	return identity, boundary, trust
}

// Find returns the user or role a --user, --role or --principal names: a
// name (of kind "user" or "role") or an ARN.
func (m *Model) Find(kind Kind, nameOrARN string) (*Principal, bool) {
	if strings.HasPrefix(nameOrARN, "arn:") {
		p, ok := m.Lookup(nameOrARN)
		return p, ok && (kind == "" || p.Kind == kind)
	}
	for _, p := range m.Principals {
		if p.Kind == kind && p.Name == nameOrARN {
			return p, true
		}
	}
	return nil, false
}
