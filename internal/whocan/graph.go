package whocan

import (
	"fmt"
	"sort"
	"strings"

	"leash.dev/leash/analyze"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// edgeKind is how one principal comes to act as another.
type edgeKind uint8

const (
	edgeAssume       edgeKind = iota // sts:AssumeRole, identity and trust
	edgeUpdateTrust                  // iam:UpdateAssumeRolePolicy, then assume
	edgeCreateKey                    // iam:CreateAccessKey on a user
	edgeCreateLogin                  // iam:CreateLoginProfile on a user
	edgeUpdateLogin                  // iam:UpdateLoginProfile on a user
	edgePassRole                     // iam:PassRole to a service path's service
	edgeSelf                         // changes its own permissions: to Admin
	edgeWriteThrough                 // writes the policies of a principal it acts as: to Admin
	edgeJoin                         // iam:AddUserToGroup itself: to its member node
)

var edgeActions = [...]string{
	edgeAssume:      "sts:AssumeRole",
	edgeUpdateTrust: "iam:UpdateAssumeRolePolicy",
	edgeCreateKey:   "iam:CreateAccessKey",
	edgeCreateLogin: "iam:CreateLoginProfile",
	edgeUpdateLogin: "iam:UpdateLoginProfile",
	edgePassRole:    "iam:PassRole",
}

// Edge is "From can act as To"; To is Admin for "any permission".
type Edge struct {
	From, To int32
	kind     edgeKind
	// aux is the service path's index (edgePassRole), the self-changing
	// action's index (edgeSelf), or the principal written (edgeWriteThrough).
	aux int32
	// resource is what the edge's action acts on, for edgeSelf.
	resource string
}

// Graph is who can act as whom in the account. Node len(Principals) is
// Admin: any permission the organization's policies leave; the nodes after
// it are member nodes (groupjoin.go).
type Graph struct {
	m     *Model
	Admin int32
	Out   [][]Edge
	in    [][]int // edge indexes into Out[from], as (from<<32 | i)
	paths []analyze.ServicePath
	cat   *catalog.Catalog
	// trusting caches the roles whose trust lets a service assume them.
	trusting map[string][]int32
	// namedBy lists, by ARN, the roles whose trust policies name it.
	namedBy map[string][]int32
	// members are the member nodes, from node Admin+1 on; joins lists each
	// user's.
	members    []member
	joins      map[int32][]int32
	groupNames []string
}

// selfActions change the principal's own permissions; the resource each is
// asked on is worked out per principal.
var selfActions = []string{
	"iam:PutUserPolicy", "iam:AttachUserPolicy", // own user
	"iam:PutRolePolicy", "iam:AttachRolePolicy", // own role
	"iam:PutGroupPolicy", "iam:AttachGroupPolicy", // a group it is in
	"iam:CreatePolicyVersion", "iam:SetDefaultPolicyVersion", // a customer managed policy attached to it
}

// boundaryActions lift a principal's own boundary.
var boundaryActions = map[Kind][]string{
	KindUser: {"iam:DeleteUserPermissionsBoundary", "iam:PutUserPermissionsBoundary"},
	KindRole: {"iam:DeleteRolePermissionsBoundary", "iam:PutRolePermissionsBoundary"},
}

// Graph builds the escalation graph: for each principal, each edge action
// is first tested against its policies' Allow statements alone, and only
// principals that may allow it are asked, per target, by the engine.
func (m *Model) Graph() *Graph {
	n := len(m.Principals)
	g := &Graph{m: m, Admin: int32(n), paths: analyze.ServicePaths(), cat: catalog.Default(),
		trusting: map[string][]int32{}, namedBy: map[string][]int32{}, groupNames: sortedGroupNames(m.Snapshot)}
	for i, p := range m.Principals {
		if p.Kind != KindRole || p.role.Trust == nil {
			continue
		}
		for _, st := range p.role.Trust.Statements {
			if st.Principal == nil || st.Effect != policy.Allow {
				continue
			}
			for _, arn := range st.Principal.AWS {
				g.namedBy[arn] = append(g.namedBy[arn], int32(i))
			}
		}
	}
	for _, sp := range g.paths {
		g.rolesTrusting(sp.Service) // fills the cache before the workers read it
	}
	g.addMembers()
	g.Out = make([][]Edge, n+1+len(g.members))
	_ = parallel(len(g.Out), func(i int) error {
		if int32(i) == g.Admin {
			return nil
		}
		if g.isMember(int32(i)) && !g.members[int32(i)-g.Admin-1].edges {
			// Its user's own grants may still write the group it joins.
			if e, ok := g.selfEdge(int32(i), g.asking(g.principal(int32(i)))); ok {
				g.Out[i] = []Edge{e}
			}
			return nil
		}
		g.Out[i] = g.edgesFrom(int32(i))
		// Writing the policies of a principal one can act as is any
		// permission. A member node is the user itself: writing its
		// policies is the user's self edge.
		for _, e := range g.Out[i] {
			if e.To != g.Admin && !g.isMember(e.To) && g.mayWrite(int32(i), e.To) {
				g.Out[i] = append(g.Out[i], Edge{From: int32(i), To: g.Admin, kind: edgeWriteThrough, aux: e.To})
				break
			}
		}
		return nil
	})
	g.dropUserEdges()
	g.in = make([][]int, len(g.Out))
	for from, es := range g.Out {
		for i, e := range es {
			g.in[e.To] = append(g.in[e.To], from<<32|i)
		}
	}
	return g
}

// Edges is how many edges the graph has.
func (g *Graph) Edges() int {
	total := 0
	for _, es := range g.Out {
		total += len(es)
	}
	return total
}

func (g *Graph) ask(p *Principal, action, resource string, res *policy.Compiled, ctx map[string][]string) bool {
	return g.m.policies(p, res).Decide(g.m.request(p, action, resource, ctx)) == policy.Allowed
}

// asking is one principal's requests while its edges are built: one
// request and one compiled set, reused for every target.
type asking struct {
	own decider // without a resource policy
	r   policy.Request
	p   *Principal
	m   *Model
}

func (g *Graph) asking(p *Principal) *asking {
	a := &asking{own: g.m.policies(p, nil), p: p, m: g.m}
	a.r = *g.m.request(p, "", "", nil)
	return a
}

// may asks whether the principal may perform action on resource, under
// the resource's policy res (nil for none).
func (a *asking) may(action, resource string, res *policy.Compiled) bool {
	a.r.Action, a.r.Resource = action, resource
	ps := a.own
	if res != nil {
		ps = a.m.policies(a.p, res)
	}
	return ps.Decide(&a.r) == policy.Allowed
}

func (g *Graph) edgesFrom(i int32) []Edge {
	m := g.m
	p := g.principal(i)
	a := g.asking(p)
	// self is the node's own principal, which it needs no edge to.
	self := g.self(i)
	// A principal that can give itself any permission can act as anyone:
	// its one edge is to Admin, which reaches every principal.
	if e, ok := g.selfEdge(i, a); ok {
		return []Edge{e}
	}
	var out []Edge
	// sts:AssumeRole: principals whose policies may allow it, and those a
	// trust policy names (which needs no identity allow in the account).
	candidates := map[int32]bool{}
	if p.mayAllow("sts:AssumeRole") {
		for j, q := range m.Principals {
			if q.Kind == KindRole {
				candidates[int32(j)] = true
			}
		}
	}
	account := accountOf(p.ARN)
	for _, name := range []string{p.ARN, "arn:" + m.partition + ":iam::" + account + ":root", account} {
		for _, j := range g.namedBy[name] {
			candidates[j] = true
		}
	}
	for j := range candidates {
		q := m.Principals[j]
		if j != self && q.trust != nil && a.may("sts:AssumeRole", q.ARN, q.trust) {
			out = append(out, Edge{From: i, To: j, kind: edgeAssume})
		}
	}
	if p.mayAllow("iam:UpdateAssumeRolePolicy") {
		for j, q := range m.Principals {
			if int32(j) != self && q.Kind == KindRole && a.may("iam:UpdateAssumeRolePolicy", q.ARN, nil) {
				out = append(out, Edge{From: i, To: int32(j), kind: edgeUpdateTrust})
			}
		}
	}
	for _, k := range []edgeKind{edgeCreateKey, edgeCreateLogin, edgeUpdateLogin} {
		if !p.mayAllow(edgeActions[k]) {
			continue
		}
		for j, q := range m.Principals {
			if int32(j) != self && q.Kind == KindUser && a.may(edgeActions[k], q.ARN, nil) {
				out = append(out, Edge{From: i, To: int32(j), kind: k})
			}
		}
	}
	if p.mayAllow("iam:PassRole") {
		out = g.passEdges(i, a, out)
	}
	out = append(out, g.joinEdges(i)...)
	sort.Slice(out, func(x, y int) bool {
		return out[x].To < out[y].To || out[x].To == out[y].To && out[x].kind < out[y].kind
	})
	return dedupe(out)
}

// dedupe keeps the first edge to each target.
func dedupe(es []Edge) []Edge {
	seen := make(map[int32]bool, len(es))
	out := es[:0]
	for _, e := range es {
		if !seen[e.To] {
			seen[e.To] = true
			out = append(out, e)
		}
	}
	return out
}

// passEdges adds an edge to each role p may pass to a service that trusts
// it, where p may also take every other step of the service's path.
func (g *Graph) passEdges(i int32, a *asking, out []Edge) []Edge {
	p := g.principal(i)
	self := g.self(i)
	for pi, sp := range g.paths {
		if !g.stepsAllowed(p, sp) {
			continue
		}
		a.r.Context.Set("iam:PassedToService", sp.Service)
		for _, j := range g.rolesTrusting(sp.Service) {
			q := g.m.Principals[j]
			if j != self && a.may("iam:PassRole", q.ARN, nil) {
				out = append(out, Edge{From: i, To: j, kind: edgePassRole, aux: int32(pi)})
			}
		}
		a.r.Context.Delete("iam:PassedToService")
	}
	return out
}

// stepsAllowed reports whether p may take one action of each of the path's
// steps on any resource of the action's type.
func (g *Graph) stepsAllowed(p *Principal, sp analyze.ServicePath) bool {
	for _, step := range sp.Steps {
		ok := false
		for _, action := range step {
			if p.mayAllow(action) && g.ask(p, action, g.representative(action, accountOf(p.ARN)), nil, nil) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// representative is an ARN of the action's first resource type with every
// name placeholder filled in: a resource no policy names on its own, so
// that only a grant on any resource of the type allows it. Actions without
// resource types are asked on "*". The account is the caller's own.
func (g *Graph) representative(action, account string) string {
	a, ok := g.cat.Action(action)
	if !ok || len(a.Resources) == 0 {
		return "*"
	}
	rt, ok := g.cat.ResourceType(a.Service, a.Resources[0].Type)
	if !ok {
		return "*"
	}
	format, _, _ := strings.Cut(rt.ARN, ", ")
	var b strings.Builder
	for {
		start := strings.Index(format, "${")
		if start < 0 {
			b.WriteString(format)
			break
		}
		end := strings.Index(format[start:], "}")
		if end < 0 {
			b.WriteString(format)
			break
		}
		b.WriteString(format[:start])
		switch format[start+2 : start+end] {
		case "Partition":
			b.WriteString(g.m.partition)
		case "Region":
			b.WriteString("us-east-1")
		case "Account":
			b.WriteString(account)
		default:
			b.WriteString(SessionName)
		}
		format = format[start+end+1:]
	}
	return b.String()
}

// rolesTrusting is the roles whose trust policy lets the service assume
// them, as the engine decides for the service principal.
func (g *Graph) rolesTrusting(service string) []int32 {
	if roles, ok := g.trusting[service]; ok {
		return roles
	}
	var roles []int32
	for j, q := range g.m.Principals {
		if q.Kind != KindRole || q.trust == nil {
			continue
		}
		r := &policy.Request{Principal: service, Action: "sts:AssumeRole", Resource: q.ARN}
		if g.m.with(policy.Parts{Resource: q.trust}).Decide(r) == policy.Allowed {
			roles = append(roles, int32(j))
		}
	}
	g.trusting[service] = roles
	return roles
}

// selfTargets is each resource a self-changing action is asked on for p.
func (g *Graph) selfTargets(p *Principal) map[string][]string {
	t := map[string][]string{}
	var managed []string
	for _, o := range p.origins {
		if o.Type == "managed" && !isAWSManaged(o.Policy) {
			managed = append(managed, o.Policy)
		}
	}
	t["iam:CreatePolicyVersion"] = managed
	t["iam:SetDefaultPolicyVersion"] = managed
	switch p.Kind {
	case KindUser:
		t["iam:PutUserPolicy"] = []string{p.ARN}
		t["iam:AttachUserPolicy"] = []string{p.ARN}
		var own []string
		for _, name := range p.user.Groups {
			if gr, ok := g.m.Snapshot.Groups[name]; ok {
				own = append(own, gr.ARN)
			}
		}
		t["iam:PutGroupPolicy"] = own
		t["iam:AttachGroupPolicy"] = own
	case KindRole:
		t["iam:PutRolePolicy"] = []string{p.ARN}
		t["iam:AttachRolePolicy"] = []string{p.ARN}
	}
	return t
}

// selfEdge is an edge to Admin when p may change its own permissions and
// no boundary keeps the change from counting (or p may lift its boundary).
func (g *Graph) selfEdge(i int32, ask *asking) (Edge, bool) {
	p := g.principal(i)
	if p.Kind == KindSession {
		return Edge{}, false
	}
	if p.boundary != nil {
		lift := false
		for _, a := range boundaryActions[p.Kind] {
			if p.mayAllow(a) && ask.may(a, p.ARN, nil) {
				lift = true
				break
			}
		}
		if !lift {
			return Edge{}, false
		}
	}
	targets := g.selfTargets(p)
	for ai, a := range selfActions {
		if !p.mayAllow(a) {
			continue
		}
		for _, res := range targets[a] {
			if ask.may(a, res, nil) {
				return Edge{From: i, To: g.Admin, kind: edgeSelf, aux: int32(ai), resource: res}, true
			}
		}
	}
	return Edge{}, false
}

// mayWrite reports whether p may put or attach a policy on q, or write a
// customer managed policy attached to q.
func (g *Graph) mayWrite(i, j int32) bool {
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
			return true
		}
	}
	return false
}

// describe is the text of one step and its deciding statements.
func (g *Graph) describe(e Edge) Step {
	m := g.m
	from := g.principal(e.From)
	s := Step{From: from.ARN, FromGroup: g.groupOf(e.From)}
	explain := func(action, resource string, res *policy.Compiled, ctx map[string][]string) []Statement {
		r := m.policies(from, res).Explain(m.request(from, action, resource, ctx))
		return statements(from, r.Statements)
	}
	if e.To == g.Admin {
		s.To = AnyPermission
	} else {
		s.To = g.principal(e.To).ARN
	}
	switch e.kind {
	case edgeJoin:
		return g.describeJoin(e, s, func(action, resource string) []Statement { return explain(action, resource, nil, nil) })
	case edgeAssume:
		q := m.Principals[e.To]
		s.Action, s.Resource = "sts:AssumeRole", q.ARN
		s.Statements = explain(s.Action, q.ARN, q.trust, nil)
		s.Text = fmt.Sprintf("may sts:AssumeRole %s%s", q.Short(), trustNote(s.Statements))
	case edgeUpdateTrust:
		q := m.Principals[e.To]
		s.Action, s.Resource = "iam:UpdateAssumeRolePolicy", q.ARN
		s.Statements = explain(s.Action, q.ARN, nil, nil)
		s.Text = fmt.Sprintf("may iam:UpdateAssumeRolePolicy on %s (%s), then assume it", q.Short(), refs(s.Statements))
	case edgeCreateKey, edgeCreateLogin, edgeUpdateLogin:
		q := m.Principals[e.To]
		s.Action, s.Resource = edgeActions[e.kind], q.ARN
		s.Statements = explain(s.Action, q.ARN, nil, nil)
		s.Text = fmt.Sprintf("may %s for %s (%s) and sign in as it", s.Action, q.Short(), refs(s.Statements))
	case edgePassRole:
		q := m.Principals[e.To]
		sp := g.paths[e.aux]
		s.Action, s.Resource = "iam:PassRole", q.ARN
		s.Statements = explain(s.Action, q.ARN, nil, map[string][]string{"iam:PassedToService": {sp.Service}})
		var steps []string
		for _, step := range sp.Steps {
			for _, a := range step {
				if from.mayAllow(a) && g.ask(from, a, g.representative(a, accountOf(from.ARN)), nil, nil) {
					steps = append(steps, a)
					break
				}
			}
		}
		s.Text = fmt.Sprintf("may iam:PassRole %s to %s (%s) with %s (%s; the role trusts %s)", q.Short(), sp.Service, refs(s.Statements), strings.Join(steps, ", "), sp.ID, sp.Service)
	case edgeSelf:
		a := selfActions[e.aux]
		s.Action, s.Resource = a, e.resource
		s.Statements = explain(a, e.resource, nil, nil)
		s.Text = fmt.Sprintf("may %s on %s (%s): any permission", a, short(e.resource), refs(s.Statements))
	case edgeWriteThrough:
		q := m.Principals[e.aux]
		action := "iam:PutRolePolicy"
		if q.Kind == KindUser {
			action = "iam:PutUserPolicy"
		}
		for _, a := range []string{action, strings.Replace(action, "Put", "Attach", 1)} {
			if g.ask(from, a, q.ARN, nil, nil) {
				action = a
				break
			}
		}
		s.Action, s.Resource = action, q.ARN
		s.Statements = explain(action, q.ARN, nil, nil)
		s.Text = fmt.Sprintf("may %s on %s (%s), which it can act as: any permission", action, q.Short(), refs(s.Statements))
	}
	return s
}

// AnyPermission is the To of a step that gains any permission.
const AnyPermission = "*"

func trustNote(st []Statement) string {
	for _, s := range st {
		if s.PolicyType == policy.Resource.String() {
			return fmt.Sprintf(" (trust: Statement[%d]%s)", s.Index, sidNote(s.Sid))
		}
	}
	return ""
}

func sidNote(sid string) string {
	if sid == "" {
		return ""
	}
	return fmt.Sprintf(" %q", sid)
}

// refs names statements briefly: "managed policy ARN Statement[0]".
func refs(st []Statement) string {
	var parts []string
	for _, s := range st {
		if s.PolicyType == policy.Resource.String() {
			parts = append(parts, fmt.Sprintf("trust Statement[%d]%s", s.Index, sidNote(s.Sid)))
			continue
		}
		parts = append(parts, s.Name())
	}
	return strings.Join(parts, "; ")
}

// Name is the statement as answers print it.
func (s Statement) Name() string {
	var what string
	switch s.Type {
	case "inline":
		what = fmt.Sprintf("inline policy %s of %s", s.Policy, s.Via)
	case "managed":
		what = "managed policy " + s.Policy
		if strings.HasPrefix(s.Via, "group ") {
			what = s.Via + "'s " + what
		}
	case "boundary":
		what = "boundary " + s.Policy
	default:
		what = s.PolicyType + " policy " + s.Policy
		if strings.HasPrefix(s.Policy, "trust policy ") {
			what = s.Policy
		}
	}
	return fmt.Sprintf("%s Statement[%d]%s", what, s.Index, sidNote(s.Sid))
}
