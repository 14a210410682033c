package whocan

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

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
// it are member nodes (groupjoin.go). Edges to one target are in Out; edges
// to every member of a class of targets but some are in ClassOut (space.go).
type Graph struct {
	m     *Model
	Admin int32
	Out   [][]Edge
	in    [][]int // edge indexes into Out[from], as (from<<32 | i)
	// ClassOut are each node's class edges, classIn each class's as
	// (from<<32 | i), classesOf each principal's classes.
	ClassOut  [][]classEdge
	classIn   [][]int
	classes   []*class
	classesOf [][]int32
	// roles, users: every role and user; trustSpaces: the roles whose trust
	// names a principal, account or "*", where many do; passSpaces: the
	// roles that trust a service.
	roles, users *space
	trustSpaces  map[string]*space
	passSpaces   map[string]*space
	paths        []analyze.ServicePath
	cat          *catalog.Catalog
	// trusting caches the roles whose trust lets a service assume them.
	trusting map[string][]int32
	// namedBy lists, by ARN, account or "*", the roles whose trust
	// policies name it.
	namedBy map[string][]int32
	// members are the member nodes, from node Admin+1 on; joins lists each
	// user's.
	members []member
	joins   map[int32][]int32
	// joinOnly are the groups, by name, each user may join that have no
	// member node: they add no edge, and count only as a question's
	// targets.
	joinOnly   map[int32][]string
	groupNames []string
	opts       graphOptions
	// Unbuilt is how many nodes the deadline left without their edges.
	Unbuilt int
}

// report calls the progress function every quarter second until the
// returned stop is called, and once more then.
func (g *Graph) report(done *atomic.Int64, total int) (stop func()) {
	if g.opts.Progress == nil {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				g.opts.Progress(int(done.Load()), total)
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
		g.opts.Progress(int(done.Load()), total)
	}
}

// BuildOptions bound the building of a graph and report its progress.
type BuildOptions struct {
	// Deadline, when set, stops the building: nodes not reached by then
	// keep no edges, and Graph.Unbuilt counts them.
	Deadline time.Time
	// Progress, when set, is called from time to time with the nodes done
	// and the nodes in all, and once at the end.
	Progress func(done, total int)
}

// graphOptions change how edges are found, never which: the differential
// tests compare the class edges against asking every target.
type graphOptions struct {
	BuildOptions
	// spaceMin is the fewest roles a trust policy name needs for its
	// roles to be asked class by class.
	spaceMin int
	// enumerate asks every target alone and every role's trust policy.
	enumerate bool
}

// spaceMin is the fewest roles a trust policy name needs for its roles to
// be asked class by class rather than one by one.
const spaceMin = 32

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
// principals that may allow it are asked by the engine, per class of
// targets and per target its policies single out.
func (m *Model) Graph() *Graph {
	g, err := m.graph(context.Background(), graphOptions{spaceMin: spaceMin})
	if err != nil {
		panic("whocan: " + err.Error()) // a model of one action: a caller's mistake
	}
	return g
}

// BuildGraph is Graph, stopped at once with ctx's error when ctx ends and
// bounded and reported as o says.
func (m *Model) BuildGraph(ctx context.Context, o BuildOptions) (*Graph, error) {
	return m.graph(ctx, graphOptions{spaceMin: spaceMin, BuildOptions: o})
}

func (m *Model) graph(ctx context.Context, opts graphOptions) (*Graph, error) {
	if m.action != "" {
		return nil, fmt.Errorf("the model is compiled for %s alone and builds no escalation graph: make it with NewModel", m.action)
	}
	n := len(m.Principals)
	g := &Graph{m: m, opts: opts, Admin: int32(n), paths: analyze.ServicePaths(), cat: catalog.Default(),
		trusting: map[string][]int32{}, namedBy: map[string][]int32{}, groupNames: sortedGroupNames(m.Snapshot),
		trustSpaces: map[string]*space{}, passSpaces: map[string]*space{}, classesOf: make([][]int32, n)}
	var roles, users []int32
	for i, p := range m.Principals {
		switch p.Kind {
		case KindUser:
			users = append(users, int32(i))
		case KindRole:
			roles = append(roles, int32(i))
		}
		if p.Kind != KindRole || p.role.Trust == nil {
			continue
		}
		named := map[string]bool{}
		for _, st := range p.role.Trust.Statements {
			if st.Effect != policy.Allow {
				continue
			}
			if st.NotPrincipal != nil || st.Principal != nil && st.Principal.Wildcard {
				named["*"] = true
			}
			if st.Principal != nil {
				for _, arn := range st.Principal.AWS {
					named[arn] = true
				}
			}
		}
		for _, name := range sortedKeys(named) {
			g.namedBy[name] = append(g.namedBy[name], int32(i))
		}
	}
	noKey := func(int32) string { return "" }
	noTrust := func(int32) *policy.Compiled { return nil }
	g.roles = g.newSpace(roles, noKey, noTrust)
	g.users = g.newSpace(users, noKey, noTrust)
	trustKey := func(j int32) string {
		b, _ := json.Marshal(m.Principals[j].role.Trust)
		return string(b)
	}
	trustOf := func(j int32) *policy.Compiled { return m.Principals[j].trust }
	for _, name := range sortedKeys(g.namedBy) {
		if len(g.namedBy[name]) >= opts.spaceMin && !opts.enumerate {
			g.trustSpaces[name] = g.newSpace(g.namedBy[name], trustKey, trustOf)
		}
	}
	for _, sp := range g.paths {
		if _, ok := g.passSpaces[sp.Service]; !ok {
			g.passSpaces[sp.Service] = g.newSpace(g.rolesTrusting(sp.Service), noKey, noTrust)
		}
	}
	if err := g.addMembers(ctx); err != nil {
		return nil, err
	}
	g.Out = make([][]Edge, n+1+len(g.members))
	g.ClassOut = make([][]classEdge, len(g.Out))
	var done, unbuilt atomic.Int64
	stop := g.report(&done, len(g.Out))
	err := parallel(len(g.Out), func(i int) error {
		defer done.Add(1)
		if err := ctx.Err(); err != nil {
			return err
		}
		if !opts.Deadline.IsZero() && time.Now().After(opts.Deadline) {
			unbuilt.Add(1)
			return nil
		}
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
		g.Out[i], g.ClassOut[i] = g.edgesFrom(int32(i))
		// Writing the policies of a principal one can act as is any
		// permission. A member node is the user itself: writing its
		// policies is the user's self edge.
		if to, ok := g.writable(int32(i)); ok {
			g.Out[i] = append(g.Out[i], Edge{From: int32(i), To: g.Admin, kind: edgeWriteThrough, aux: to})
		}
		return nil
	})
	stop()
	if err != nil {
		return nil, err
	}
	g.Unbuilt = int(unbuilt.Load())
	g.dropUserEdges()
	g.in = make([][]int, len(g.Out))
	for from, es := range g.Out {
		for i, e := range es {
			g.in[e.To] = append(g.in[e.To], from<<32|i)
		}
	}
	g.classIn = make([][]int, len(g.classes))
	for from, es := range g.ClassOut {
		for i, e := range es {
			g.classIn[e.class] = append(g.classIn[e.class], from<<32|i)
		}
	}
	return g, nil
}

// writable is a principal node i acts as (by one edge) whose policies i
// may write, if there is one. Class edges are met with the class edges of
// i's write actions on every role and every user, so that the search costs
// the exceptions of both rather than the members.
func (g *Graph) writable(i int32) (int32, bool) {
	p := g.principal(i)
	versions := slices.ContainsFunc(policyVersionActions, p.mayAllow)
	if !versions && !slices.ContainsFunc(writeActions, p.mayAllow) {
		return 0, false
	}
	for _, e := range g.Out[i] {
		if e.To != g.Admin && !g.isMember(e.To) && g.mayWrite(i, e.To) {
			return e.To, true
		}
	}
	if len(g.ClassOut[i]) == 0 {
		return 0, false
	}
	if versions {
		// A new version of a customer managed policy attached to a member:
		// asked member by member, stopping at the first (a grant on "*"
		// stops at once; one on a few policies asks every member that has
		// one).
		for _, ce := range g.ClassOut[i] {
			for _, j := range g.classes[ce.class].members {
				if ce.reaches(j) && len(customerManaged(g.m.Principals[j])) > 0 && g.mayWrite(i, j) {
					return j, true
				}
			}
		}
	}
	a := g.asking(p)
	for _, sp := range []*space{g.roles, g.users} {
		var each []int32
		var classes []classEdge
		for _, action := range writeActions {
			if p.mayAllow(action) {
				e, c := g.reach(a, sp, action, -1, nil)
				each, classes = append(each, e...), append(classes, c...)
			}
		}
		for _, ce := range g.ClassOut[i] {
			for _, j := range each {
				if ce.reaches(j) && slices.Contains(g.classesOf[j], ce.class) {
					return j, true
				}
			}
			for _, we := range classes {
				// Members excepted by either edge are passed over; the
				// first member of both that neither excepts is one.
				for _, j := range g.classes[ce.class].members {
					if ce.reaches(j) && we.reaches(j) && slices.Contains(g.classesOf[j], we.class) {
						return j, true
					}
					if ce.reaches(j) && we.reaches(j) {
						break // another account's class: none of it is shared
					}
				}
			}
		}
	}
	return 0, false
}

// writeActions put or attach a policy on a user or role.
var writeActions = []string{"iam:PutRolePolicy", "iam:AttachRolePolicy", "iam:PutUserPolicy", "iam:AttachUserPolicy"}

// Edges is how many edges the graph has: a class edge counts once.
func (g *Graph) Edges() int {
	total := 0
	for i, es := range g.Out {
		total += len(es) + len(g.ClassOut[i])
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

func (g *Graph) edgesFrom(i int32) ([]Edge, []classEdge) {
	m := g.m
	p := g.principal(i)
	a := g.asking(p)
	// self is the node's own principal, which it needs no edge to.
	self := g.self(i)
	// A principal that can give itself any permission can act as anyone:
	// its one edge is to Admin, which reaches every principal.
	if e, ok := g.selfEdge(i, a); ok {
		return []Edge{e}, nil
	}
	var out []Edge
	var classes []classEdge
	// A member node's edges beyond its user's come from its group's
	// grants: an edge action the group's policies do not allow gives the
	// member no target its user lacks, and the user's own edge is the
	// shorter path (dropUserEdges), so it is not asked.
	adds := func(action string) bool {
		return !g.isMember(i) || g.groupMayAllow(g.members[i-g.Admin-1].group, action)
	}
	add := func(kind edgeKind, aux int32, each []int32, cls []classEdge) {
		for _, j := range each {
			out = append(out, Edge{From: i, To: j, kind: kind, aux: aux})
		}
		for _, ce := range cls {
			ce.From, ce.kind, ce.aux = i, kind, aux
			classes = append(classes, ce)
		}
	}
	// sts:AssumeRole: the roles whose trust names the principal, its
	// account or everyone. A trust that names the account lets in only
	// those whose own policies allow, and a trust needs no identity allow
	// only when it names the principal itself.
	acct := m.Account
	if arn, ok := policy.ParseARN(p.ARN); ok {
		acct = arn.Account
	}
	idAllow := p.mayAllow("sts:AssumeRole") && adds("sts:AssumeRole")
	if g.opts.enumerate {
		for j, q := range m.Principals {
			if int32(j) != self && q.trust != nil && a.may("sts:AssumeRole", q.ARN, q.trust) {
				out = append(out, Edge{From: i, To: int32(j), kind: edgeAssume})
			}
		}
	}
	for _, name := range []string{p.ARN, "arn:" + m.partition + ":iam::" + acct + ":root", acct, "*"} {
		if !idAllow && (name != p.ARN && name != "*" || g.isMember(i)) {
			continue
		}
		if sp, ok := g.trustSpaces[name]; ok {
			each, cls := g.reach(a, sp, "sts:AssumeRole", self, nil)
			add(edgeAssume, 0, each, cls)
			continue
		}
		for _, j := range g.namedBy[name] {
			q := m.Principals[j]
			if j != self && q.trust != nil && a.may("sts:AssumeRole", q.ARN, q.trust) {
				out = append(out, Edge{From: i, To: j, kind: edgeAssume})
			}
		}
	}
	if p.mayAllow("iam:UpdateAssumeRolePolicy") && adds("iam:UpdateAssumeRolePolicy") {
		each, cls := g.reach(a, g.roles, "iam:UpdateAssumeRolePolicy", self, nil)
		add(edgeUpdateTrust, 0, each, cls)
	}
	for _, k := range []edgeKind{edgeCreateKey, edgeCreateLogin, edgeUpdateLogin} {
		if p.mayAllow(edgeActions[k]) && adds(edgeActions[k]) {
			each, cls := g.reach(a, g.users, edgeActions[k], self, nil)
			add(k, 0, each, cls)
		}
	}
	if p.mayAllow("iam:PassRole") {
		for pi, sp := range g.paths {
			if !adds("iam:PassRole") && !slices.ContainsFunc(sp.Steps, func(step []string) bool { return slices.ContainsFunc(step, adds) }) {
				continue
			}
			if !g.stepsAllowed(p, sp) {
				continue
			}
			a.r.Context.Set("iam:PassedToService", sp.Service)
			each, cls := g.reach(a, g.passSpaces[sp.Service], "iam:PassRole", self, nil)
			a.r.Context.Delete("iam:PassedToService")
			add(edgePassRole, int32(pi), each, cls)
		}
	}
	out = append(out, g.joinEdges(i)...)
	sort.Slice(out, func(x, y int) bool {
		return out[x].To < out[y].To || out[x].To == out[y].To && out[x].kind < out[y].kind
	})
	return dedupe(out), classes
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
	p.eachOrigin(func(o Origin) {
		if o.Type == "managed" && !isAWSManaged(o.Policy) {
			managed = append(managed, o.Policy)
		}
	})
	sort.Strings(managed) // the first allowed is the one a path shows
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
	p := ask.p // node i's principal, or a user as a member of one more group
	if p.Kind == KindSession {
		return Edge{}, false
	}
	if !slices.ContainsFunc(selfActions, p.mayAllow) {
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
// customer managed policy attached to q (writethrough.go).
func (g *Graph) mayWrite(i, j int32) bool {
	_, _, ok := g.writeThrough(i, j)
	return ok
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
		return g.describeWriteThrough(e, s, func(action, resource string) []Statement { return explain(action, resource, nil, nil) })
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
