package whocan

import (
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
	c, err := policy.CompileOne(policy.Named{Name: "any permission", Document: anyPermission}, policy.Identity)
	if err != nil {
		return false
	}
	admin := &Principal{ARN: "arn:" + a.m.partition + ":iam::" + account + ":user/" + SessionName, Kind: KindUser, identity: []*policy.Compiled{c}}
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
	ad := g.adminNodes() // one Admin node per account (orgadmin.go)
	// decision is each node's (Admin's is not asked): a member node that is
	// allowed is a target, though never a row of its own.
	decision := make([]policy.Decision, g.nodes())
	// next is the edge toward the target (from<<32 | index in Out[from]),
	// -1 at a target, and -2-q at Admin acting as principal q.
	next := make([]int, g.nodes()+ad.extra())
	reached := make([]bool, g.nodes()+ad.extra())
	// Of paths of one length, the one to a target that holds no more than
	// it needs explains best: "joins readers" rather than "joins admins".
	// The search takes targets without an edge to Admin first.
	var queue, withAdmin []int32
	for i := range decision {
		if int32(i) == g.Admin {
			continue
		}
		decision[i] = a.decide(g.principal(int32(i)))
		if decision[i] != policy.Allowed {
			continue
		}
		reached[i], next[i] = true, -1
		if g.reachesAdmin(int32(i)) {
			withAdmin = append(withAdmin, int32(i))
		} else {
			queue = append(queue, int32(i))
		}
	}
	queue = append(queue, withAdmin...)
	for _, node := range ad.nodes() {
		if a.adminAllowed(ad.account(node)) {
			reached[node], next[node] = true, -1
			queue = append(queue, int32(node))
		}
	}
	for len(queue) > 0 {
		to := queue[0]
		queue = queue[1:]
		// Any permission includes acting as any principal (a new access
		// key, a rewritten trust policy): Admin reaches the first principal
		// found, when the answer itself does not allow Admin.
		if int(to) < n {
			if admin := ad.of(m.Principals[to]); !reached[admin] {
				reached[admin], next[admin] = true, -2-int(to)
				queue = append(queue, int32(admin))
			}
		}
		for _, code := range ad.inEdges(int(to)) {
			from := code >> 32
			if !reached[from] {
				reached[from], next[from] = true, code
				queue = append(queue, int32(from))
			}
		}
	}
	// Paths share their tails: describe each edge and explain each target
	// once.
	steps := map[int]Step{}
	describe := func(code int) Step {
		st, ok := steps[code]
		if !ok {
			st = g.describe(g.Out[code>>32][code&(1<<32-1)])
			steps[code] = st
		}
		return st
	}
	targets := map[int][]Statement{}
	for i, p := range m.Principals {
		switch {
		case decision[i] == policy.Allowed:
			ans.Rows = append(ans.Rows, a.row(p, decision[i]))
		case reached[i]:
			r := Row{ARN: p.ARN, Kind: p.Kind, Decision: decision[i].String(), Incomplete: p.Incomplete, principal: p}
			at := i
			for next[at] != -1 {
				if next[at] <= -2 { // Admin acting as a principal
					to := m.Principals[-2-next[at]]
					r.Path = append(r.Path, Step{From: AnyPermission, To: to.ARN, Action: "iam:CreateAccessKey",
						Text: "with any permission, may act as " + to.Short() + " (iam:CreateAccessKey, iam:UpdateAssumeRolePolicy)"})
					at = -2 - next[at]
					continue
				}
				e := g.Out[next[at]>>32][next[at]&(1<<32-1)]
				r.Path = append(r.Path, describe(next[at]))
				at = ad.to(e)
			}
			if !ad.isAdmin(at) {
				st, ok := targets[at]
				if !ok {
					st = a.row(g.principal(int32(at)), policy.Allowed).Statements
					targets[at] = st
				}
				r.Statements = st
			}
			ans.Rows = append(ans.Rows, r)
		case q.All || unknown(p, decision[i]):
			ans.Rows = append(ans.Rows, a.row(p, decision[i]))
		}
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
	prev := make([]int, g.nodes())
	seen := make([]bool, g.nodes())
	seen[from] = true
	queue := []int32{from}
	var order []int32
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		for i, e := range g.Out[at] {
			if !seen[e.To] {
				seen[e.To], prev[e.To] = true, int(at)<<32|i
				queue = append(queue, e.To)
				order = append(order, e.To)
			}
		}
	}
	var out []Path
	for _, to := range order {
		var steps []Step
		for at := int(to); at != int(from); {
			code := prev[at]
			e := g.Out[code>>32][code&(1<<32-1)]
			steps = append([]Step{g.describe(e)}, steps...)
			at = int(e.From)
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
