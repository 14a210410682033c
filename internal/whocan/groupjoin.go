package whocan

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"leash.dev/leash/policy"
)

// A user that may iam:AddUserToGroup itself into a group gains that group's
// permissions, and no more: AWS adds the group's inline and attached
// policies to the user's, still under the user's permissions boundary and
// the organization's policies. The graph models this with a member node per
// (user, group) pair the user may join: the user as it would be as a member
// of the group. A member node has the edges of any principal (assume a role,
// pass a role, create keys, change its own permissions), and a question's
// direct answer counts it, but it is never listed as a principal of its own:
// the user is, with the join as the first step of its path.
//
// Adding another user to a group is no edge: the adder gains nothing unless
// it can act as that user, and then its edge to the user already counts.

// member is one member node: a user as a member of one more group.
type member struct {
	user  int32  // the user's node
	group string // the group's name
	p     *Principal
	// edges is false when the group's policies allow no action an edge
	// is asked for: the member node's edges are then a subset of the
	// user's (the group may only add denies) and it needs none of its own
	// but the self edge, which the user's grants on the group it joins
	// (iam:PutGroupPolicy) may give.
	edges bool
}

// nodes is how many nodes the graph has: principals, Admin, member nodes.
func (g *Graph) nodes() int { return len(g.Out) }

// isMember reports whether node i is a member node.
func (g *Graph) isMember(i int32) bool { return i > g.Admin }

// principal is node i's principal: a member node's is the user with the
// group's policies.
func (g *Graph) principal(i int32) *Principal {
	if g.isMember(i) {
		return g.members[i-g.Admin-1].p
	}
	return g.m.Principals[i]
}

// self is the principal node i acts as: a member node's user.
func (g *Graph) self(i int32) int32 {
	if g.isMember(i) {
		return g.members[i-g.Admin-1].user
	}
	return i
}

// groupOf is the ARN of the group a member node adds, "" for other nodes.
func (g *Graph) groupOf(i int32) string {
	if !g.isMember(i) {
		return ""
	}
	return g.m.Snapshot.Groups[g.members[i-g.Admin-1].group].ARN
}

// joinable is the groups, by name, user i may add itself to and is not in
// yet. A user that may change its own permissions needs no member node: its
// self edge reaches any permission already.
func (g *Graph) joinable(i int32) []string {
	p := g.m.Principals[i]
	if p.Kind != KindUser || !p.mayAllow("iam:AddUserToGroup") {
		return nil
	}
	a := g.asking(p)
	if _, ok := g.selfEdge(i, a); ok {
		return nil
	}
	in := make(map[string]bool, len(p.user.Groups))
	for _, name := range p.user.Groups {
		in[name] = true
	}
	var out []string
	for _, name := range g.groupNames {
		if !in[name] && a.may("iam:AddUserToGroup", g.m.Snapshot.Groups[name].ARN, nil) {
			out = append(out, name)
		}
	}
	return out
}

// addMembers makes a member node for each group a user may join that
// matters to the graph, in user then group order, and records the user's
// edges to them. A group whose policies allow no edge action adds no edge
// but one: joining it and then writing its policies (a self edge of the
// member node), which one member node per user shows. A user able to join
// many groups would otherwise make one node per group; the others are
// kept as names (joinOnly), which a question asks about as targets.
func (g *Graph) addMembers(ctx context.Context) error {
	n := len(g.m.Principals)
	joins := make([][]string, n)
	err := parallel(n, func(i int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		joins[i] = g.joinable(int32(i))
		return nil
	})
	if err != nil {
		return err
	}
	g.joins = make(map[int32][]int32)
	g.joinOnly = make(map[int32][]string)
	edges := map[string]bool{}
	for _, name := range g.groupNames {
		edges[name] = g.groupAllowsEdges(name)
	}
	selfs := make([]string, n) // the first group whose join gives a self edge
	_ = parallel(n, func(i int) error {
		u := g.m.Principals[i]
		if len(joins[i]) == 0 || !slices.ContainsFunc(selfActions, u.mayAllow) {
			return nil
		}
		a := g.asking(u)
		for _, name := range joins[i] {
			if edges[name] || !g.mayWriteGroup(a, name) {
				continue
			}
			mp := g.m.withGroup(u, name)
			if _, ok := g.selfEdge(int32(i), g.asking(mp)); ok {
				selfs[i] = name
				return nil
			}
		}
		return nil
	})
	for i, names := range joins {
		for _, name := range names {
			if !edges[name] && name != selfs[i] {
				g.joinOnly[int32(i)] = append(g.joinOnly[int32(i)], name)
				continue
			}
			node := g.Admin + 1 + int32(len(g.members))
			g.members = append(g.members, member{user: int32(i), group: name, p: g.m.withGroup(g.m.Principals[i], name), edges: edges[name]})
			g.joins[int32(i)] = append(g.joins[int32(i)], node)
		}
	}
	return nil
}

// withGroup is user p as a member of one more group: its policies (shared,
// compiled once), the group's, and its boundary.
func (m *Model) withGroup(p *Principal, name string) *Principal {
	q := *p
	q.identity = append([]*policy.Compiled(nil), p.identity...)
	q.origins, q.inherited = map[string]Origin{}, p.origins
	q.Incomplete = append([]string(nil), p.Incomplete...)
	u := *p.user
	u.Groups = append(append([]string(nil), p.user.Groups...), name)
	q.user = &u
	m.addGroup(&q, name)
	return &q
}

// joinEdges is node i's edges to the member nodes of the groups it may
// join.
func (g *Graph) joinEdges(i int32) []Edge {
	var out []Edge
	for _, node := range g.joins[i] {
		out = append(out, Edge{From: i, To: node, kind: edgeJoin})
	}
	return out
}

// describeJoin is the step of a join edge.
func (g *Graph) describeJoin(e Edge, s Step, explain func(action, resource string) []Statement) Step {
	return g.joinStep(e.From, g.members[e.To-g.Admin-1].group, s, explain)
}

// joinStep is the step of user i joining a group.
func (g *Graph) joinStep(i int32, name string, s Step, explain func(action, resource string) []Statement) Step {
	group := g.m.Snapshot.Groups[name]
	s.To, s.ToGroup = g.m.Principals[i].ARN, group.ARN
	s.Action, s.Resource = "iam:AddUserToGroup", group.ARN
	s.Statements = explain(s.Action, group.ARN)
	s.Text = fmt.Sprintf("may iam:AddUserToGroup itself into %s (%s)", short(group.ARN), refs(s.Statements))
	return s
}

// sortedGroupNames is the snapshot's group names in order.
func sortedGroupNames(s *Snapshot) []string {
	names := make([]string, 0, len(s.Groups))
	for name := range s.Groups {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// reachesAdmin reports whether node i has an edge to Admin.
func (g *Graph) reachesAdmin(i int32) bool {
	for _, e := range g.Out[i] {
		if e.To == g.Admin {
			return true
		}
	}
	return false
}

// groupAllowsEdges reports whether any policy of the group may allow an
// action the graph asks for an edge: the edges' own actions, the steps of
// the service paths, changing one's own permissions or lifting a boundary.
func (g *Graph) groupAllowsEdges(name string) bool {
	actions := append(append(append([]string(nil), edgeActions[:]...), selfActions...), boundaryActions[KindUser]...)
	for _, sp := range g.paths {
		for _, step := range sp.Steps {
			actions = append(actions, step...)
		}
	}
	return slices.ContainsFunc(actions, func(a string) bool { return a != "" && g.groupMayAllow(name, a) })
}

// dropUserEdges removes from each member node the edges its user has too:
// only the user reaches a member node, and its own edge is the shorter
// path, so they add nothing but size. A class edge adds nothing when the
// user's edge to the class excepts no member the member node's reaches.
func (g *Graph) dropUserEdges() {
	var own map[int32]bool
	user := int32(-1)
	for n, mb := range g.members {
		node := g.Admin + 1 + int32(n)
		if len(g.Out[node]) > 0 {
			if mb.user != user { // member nodes come user by user
				user, own = mb.user, make(map[int32]bool, len(g.Out[mb.user]))
				for _, e := range g.Out[mb.user] {
					own[e.To] = true
				}
			}
			kept := g.Out[node][:0]
			for _, e := range g.Out[node] {
				if !own[e.To] {
					kept = append(kept, e)
				}
			}
			g.Out[node] = kept
		}
		kept := g.ClassOut[node][:0]
		for _, ce := range g.ClassOut[node] {
			if !slices.ContainsFunc(g.ClassOut[mb.user], func(ue classEdge) bool {
				return ue.class == ce.class && subset(ue.except, ce.except)
			}) {
				kept = append(kept, ce)
			}
		}
		g.ClassOut[node] = kept
	}
}

// subset reports whether every element of sorted a is in sorted b.
func subset(a, b []int32) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// joinTargets adds to the search each user that the question allows once
// it joins a group with no member node, at the first such group.
func (g *Graph) joinTargets(a *asker, s *search) {
	users := make([]int32, 0, len(g.joinOnly))
	for i := range g.joinOnly {
		users = append(users, i)
	}
	slices.Sort(users)
	mayAllow := map[string]bool{}
	for _, i := range users {
		if s.reached[i] {
			continue
		}
		for _, name := range g.joinOnly[i] {
			may, ok := mayAllow[name]
			if !ok {
				may = g.groupMayAllow(name, a.q.Action)
				mayAllow[name] = may
			}
			if may && a.decide(g.m.withGroup(g.m.Principals[i], name)) == policy.Allowed {
				s.joinTarget(i, name)
				break
			}
		}
	}
}

// groupMayAllow reports whether a policy of the group may allow action.
func (g *Graph) groupMayAllow(name, action string) bool {
	if slices.ContainsFunc(g.m.groups[name].identity, func(c *policy.Compiled) bool { return c.MayAllow(action) }) {
		return true
	}
	for _, arn := range g.m.Snapshot.Groups[name].Attached {
		if c, ok := g.m.managed[arn]; ok && c.MayAllow(action) {
			return true
		}
	}
	return false
}

// mayWriteGroup reports whether the asking user may write the group's
// policies: put or attach one, or change a customer managed policy
// attached to it. It is the cheap test before the self edge of joining
// the group is asked in full (selfEdge, which also weighs a boundary).
func (g *Graph) mayWriteGroup(a *asking, name string) bool {
	grp := g.m.Snapshot.Groups[name]
	for _, act := range []string{"iam:PutGroupPolicy", "iam:AttachGroupPolicy"} {
		if a.p.mayAllow(act) && a.may(act, grp.ARN, nil) {
			return true
		}
	}
	for _, act := range policyVersionActions {
		if !a.p.mayAllow(act) {
			continue
		}
		for _, arn := range grp.Attached {
			if !isAWSManaged(arn) && a.may(act, arn, nil) {
				return true
			}
		}
	}
	return false
}
