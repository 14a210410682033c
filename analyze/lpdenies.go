package analyze

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// denyView answers, for the least-privilege findings, which actions the
// set's own Deny statements take away from every resource: an Allow of
// "iam:*" beside a Deny of "iam:*" grants nothing, and an Allow of "*"
// beside it grants everything but IAM. Only unconditional denies count, as
// a conditional one may not apply; the engine decides, so wildcards and
// NotAction in the denies mean what they mean in AWS.
type denyView struct {
	p     *policy.Policies // an Allow of everything, with the denies
	names []string         // policy names, by index
	index [][]int          // per policy, compiled statement index to original
	cat   *catalog.Catalog
}

// futureAction is an action name no service has, standing for the actions
// AWS adds later: a pattern that covers it covers them.
const futureAction = "LeashFutureAction"

// newDenyView compiles the unconditional Deny statements of docs; nil when
// there are none, so that the usual set costs nothing.
func newDenyView(docs []policy.Named, cat *catalog.Catalog) *denyView {
	everything := &policy.Document{Version: policy.Version2012, Statements: []policy.Statement{
		{Effect: policy.Allow, Action: []string{"*"}, Resource: []string{"*"}}}}
	set := policy.Set{Identity: []policy.Named{{Name: "everything", Document: everything}}}
	d := &denyView{cat: cat}
	found := false
	for i, n := range docs {
		d.names = append(d.names, n.Name)
		var idx []int
		dd := &policy.Document{Version: policy.Version2012}
		if n.Document != nil {
			dd.Version = n.Document.Version
			for si, st := range n.Document.Statements {
				if st.Effect == policy.Deny && len(st.Conditions) == 0 {
					dd.Statements = append(dd.Statements, st)
					idx = append(idx, si)
				}
			}
		}
		d.index = append(d.index, idx)
		found = found || len(idx) > 0
		set.Identity = append(set.Identity, policy.Named{Name: strconv.Itoa(i), Document: dd})
	}
	if !found {
		return nil
	}
	p, err := policy.Compile(set)
	if err != nil {
		return nil // the set's own compile error is reported elsewhere
	}
	d.p = p
	return d
}

// denied reports whether the denies take action away on every resource.
func (d *denyView) denied(action string) bool {
	return d != nil && d.p.Decide(&policy.Request{Action: action, Resource: "*"}) == policy.ExplicitDeny
}

// narrowing is what the denies take from one Allow action pattern.
type narrowing struct {
	total, left int
	// all: every action the pattern covers is denied, those AWS adds later
	// too.
	all bool
	// whole lists the services all of whose known actions are denied;
	// some counts the denied actions of the others.
	whole []string
	some  map[string]int
	// by names the Deny statements that deny them.
	by []string
}

// narrow asks the engine, for each known action pattern covers and for an
// action AWS may add later, whether the denies take it away.
func (d *denyView) narrow(pattern string) narrowing {
	var n narrowing
	if d == nil {
		return n
	}
	actions := d.cat.Expand(pattern)
	perService := map[string][2]int{} // denied, total
	for _, a := range actions {
		name := a.String()
		c := perService[a.Service]
		c[1]++
		n.total++
		if d.denied(name) {
			c[0]++
			n.by = d.deciders(name, n.by)
		} else {
			n.left++
		}
		perService[a.Service] = c
	}
	svc, _, _ := strings.Cut(pattern, ":")
	future := "leash-future-service:" + futureAction
	if !strings.ContainsAny(svc, "*?") {
		future = svc + ":" + futureAction
	}
	n.all = n.left == 0 && d.denied(future)
	n.some = map[string]int{}
	for s, c := range perService {
		switch c[0] {
		case 0:
		case c[1]:
			n.whole = append(n.whole, s)
		default:
			n.some[s] = c[0]
		}
	}
	sort.Strings(n.whole)
	return n
}

// deciders adds to list the Deny statements that deny action.
func (d *denyView) deciders(action string, list []string) []string {
	for _, s := range d.p.Explain(&policy.Request{Action: action, Resource: "*"}).Statements {
		pi, err := strconv.Atoi(s.Policy)
		if err != nil || pi >= len(d.index) || s.Index >= len(d.index[pi]) {
			continue
		}
		list = appendNew(list, fmt.Sprintf("policy %q Statement[%d]", d.names[pi], d.index[pi][s.Index]))
	}
	return list
}

// denied says what the denies take away, for messages: "every iam action
// and 3 s3 actions".
func (n narrowing) deniedText() string {
	var parts []string
	for _, s := range n.whole {
		parts = append(parts, "every "+s+" action")
	}
	var some []string
	for s := range n.some {
		some = append(some, s)
	}
	sort.Strings(some)
	for _, s := range some {
		parts = append(parts, fmt.Sprintf("%d %s actions", n.some[s], s))
	}
	return strings.Join(parts, ", ")
}
