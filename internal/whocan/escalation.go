package whocan

import (
	"fmt"

	"leash.dev/leash/policy"
)

// Step is one edge of a path: From can act as To ("*": any permission).
type Step struct {
	From string `json:"from"`
	// FromGroup is the ARN of the group From acts as a member of, after a
	// step that joined it; "" for From as it is.
	FromGroup string `json:"fromGroup,omitempty"`
	To        string `json:"to"`
	// ToGroup is the group To is a member of after this step, which joins
	// it (iam:AddUserToGroup).
	ToGroup    string      `json:"toGroup,omitempty"`
	Action     string      `json:"action"`
	Resource   string      `json:"resource"`
	Statements []Statement `json:"statements,omitempty"`
	// Text says the step in words, after the From principal.
	Text string `json:"text"`
}

// anyPermission is the identity policy of the Admin node.
var anyPermission = &policy.Document{Version: policy.Version2012, Statements: []policy.Statement{
	{Effect: policy.Allow, Action: []string{"*"}, Resource: []string{"*"}},
}}

// adminAllowed reports whether a principal of the account with every
// permission would be allowed: the Admin node reaches the answer unless the
// organization's policies or the resource's own policy refuse.
func (a *asker) adminAllowed(account string) bool {
	admin := &Principal{ARN: "arn:" + a.m.partition + ":iam::" + account + ":user/" + SessionName, Kind: KindUser, identity: []*policy.Compiled{anyIdentity}}
	admin.Caller = admin.ARN
	return a.decide(admin) == policy.Allowed
}

// WhoCanReach answers the question like WhoCan, and adds every principal
// that reaches an allowed one (or any permission, when that is allowed)
// through the graph, with its shortest path. Principals are found by a
// breadth-first search from the allowed ones over the reversed edges.
func (m *Model) WhoCanReach(q Question, g *Graph) (*Answer, error) {
	a, err := m.asker(q)
	if err != nil {
		return nil, err
	}
	ans := &Answer{Action: q.Action, Resource: a.resource}
	n := len(m.Principals)
	// decision is each node's (Admin's is not asked): a member node that is
	// allowed is a target, though never a row of its own.
	decision := make([]policy.Decision, g.nodes())
	_ = parallel(g.nodes(), func(i int) error {
		if int32(i) != g.Admin {
			decision[i] = a.decide(g.principal(int32(i)))
		}
		return nil
	})
	s := g.search()
	s.maxSteps = int32(q.MaxSteps)
	ad := s.ad
	// Of paths of one length, the one to a target that holds no more than
	// it needs explains best: "joins readers" rather than "joins admins".
	// The search takes targets without an edge to Admin first.
	var withAdmin []int32
	for i := range decision {
		if int32(i) == g.Admin || decision[i] != policy.Allowed {
			continue
		}
		if g.reachesAdmin(int32(i)) {
			withAdmin = append(withAdmin, int32(i))
		} else {
			s.target(int32(i))
		}
	}
	for _, i := range withAdmin {
		s.target(i)
	}
	for _, node := range ad.nodes() {
		if a.adminAllowed(ad.account(node)) {
			s.target(int32(node))
		}
	}
	g.joinTargets(a, s)
	s.run()
	// Paths share their tails: describe each edge and explain each target
	// once.
	steps := map[Edge]Step{}
	describe := func(e Edge) Step {
		st, ok := steps[e]
		if !ok {
			st = g.describe(e)
			steps[e] = st
		}
		return st
	}
	targets := map[int32][]Statement{}
	for i, p := range m.Principals {
		switch {
		case decision[i] == policy.Allowed:
			ans.Rows = append(ans.Rows, a.row(p, decision[i]))
		case s.reached[i]:
			r := Row{ARN: p.ARN, Kind: p.Kind, Decision: decision[i].String(), Incomplete: p.Incomplete, principal: p}
			at := int32(i)
			for s.via[at].kind != viaTarget && s.via[at].kind != viaJoin {
				v := s.via[at]
				if v.kind == viaAdmin { // Admin acting as a principal
					to := m.Principals[v.edge.To]
					r.Path = append(r.Path, Step{From: AnyPermission, To: to.ARN, Action: "iam:CreateAccessKey",
						Text: "with any permission, may act as " + to.Short() + " (iam:CreateAccessKey, iam:UpdateAssumeRolePolicy)"})
					at = v.edge.To
					continue
				}
				r.Path = append(r.Path, describe(v.edge))
				at = int32(ad.to(v.edge))
			}
			if v := s.via[at]; v.kind == viaJoin {
				r.Path = append(r.Path, g.joinStep(at, v.group, Step{From: g.m.Principals[at].ARN}, func(action, resource string) []Statement {
					u := g.m.Principals[at]
					return statements(u, m.policies(u, nil).Explain(m.request(u, action, resource, nil)).Statements)
				}))
				r.Statements = a.row(m.withGroup(g.m.Principals[at], v.group), policy.Allowed).Statements
			} else if !ad.isAdmin(int(at)) {
				st, ok := targets[at]
				if !ok {
					st = a.row(g.principal(at), policy.Allowed).Statements
					targets[at] = st
				}
				r.Statements = st
			}
			ans.Rows = append(ans.Rows, r)
		case q.All || a.unknown(p, decision[i]) || s.reached[ad.of(p)] && unknownPath(p, decision[i]):
			ans.Rows = append(ans.Rows, a.row(p, decision[i]))
		}
	}
	if s.cut {
		ans.Warnings = append(ans.Warnings, fmt.Sprintf("paths of more than %d steps were not searched (--max-steps): principals they would reach are not listed", q.MaxSteps))
	}
	if g.Unbuilt > 0 {
		ans.Warnings = append(ans.Warnings, fmt.Sprintf("the time limit stopped the graph with %d of %d nodes' edges unbuilt (--time-limit): paths through them are not listed", g.Unbuilt, g.nodes()))
	}
	// Sessions named by the resource policy are answered directly.
	for _, p := range a.principals()[n:] {
		if d := a.decide(p); d == policy.Allowed || q.All {
			ans.Rows = append(ans.Rows, a.row(p, d))
		}
	}
	sortRows(ans.Rows)
	return ans, nil
}

// Reachable is every principal (and Admin) p reaches, with the shortest path
// to each, nearest first. It answers `leash check`'s chain findings.
func (g *Graph) Reachable(from int32) []Path {
	prev := make([]Edge, g.nodes())
	seen := make([]bool, g.nodes())
	seen[from] = true
	queue := []int32{from}
	var order []int32
	visit := func(e Edge) {
		if !seen[e.To] {
			seen[e.To], prev[e.To] = true, e
			queue = append(queue, e.To)
			order = append(order, e.To)
		}
	}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for _, e := range g.Out[at] {
			visit(e)
		}
		for _, ce := range g.ClassOut[at] {
			for _, j := range g.classes[ce.class].members {
				if ce.reaches(j) {
					visit(ce.to(j))
				}
			}
		}
	}
	var out []Path
	for _, to := range order {
		var steps []Step
		for at := to; at != from; {
			e := prev[at]
			steps = append([]Step{g.describe(e)}, steps...)
			at = e.From
		}
		out = append(out, Path{To: to, Steps: steps})
	}
	return out
}

// Path is a shortest path to a principal, to Admin, or to a member node.
type Path struct {
	To    int32
	Steps []Step
}

// Index returns a principal's node in the graph.
func (m *Model) Index(arn string) (int32, bool) {
	i, ok := m.byARN[arn]
	return int32(i), ok
}
