package analyze

import (
	"fmt"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// Assertion is one --must-allow or --must-deny: ACTION[@RESOURCE] that a
// principal's policies must, or must not, allow.
type Assertion struct {
	Flag, Spec string   // as given, for the findings' messages
	Allow      bool     // --must-allow; false for --must-deny
	Actions    []string // the catalog actions the ACTION pattern matches
	Resource   string   // "" when not given
}

// ParseAssertion reads ACTION[@RESOURCE], given with flag. Actions hold no @, so the first
// one ends the action (an IAM user's name may hold one).
func ParseAssertion(cat *catalog.Catalog, flag, spec string, allow bool) (Assertion, error) {
	action, resource, hasResource := strings.Cut(spec, "@")
	if hasResource && resource == "" {
		return Assertion{}, &inputerr.Error{Msg: fmt.Sprintf("%s %q: nothing after @; give ACTION@RESOURCE, such as s3:GetObject@arn:aws:s3:::bucket/key, or leave out the @", flag, spec)}
	}
	found := cat.Expand(action)
	if len(found) == 0 {
		return Assertion{}, &inputerr.Error{Msg: fmt.Sprintf("%s %q: %s", flag, spec, NoMatch(cat, action))}
	}
	a := Assertion{Flag: flag, Spec: spec, Allow: allow, Resource: resource}
	for _, f := range found {
		a.Actions = append(a.Actions, f.String())
	}
	return a, nil
}

// CheckAssertions asks leash's engine each assertion's questions about
// principal, with the identity policies and the boundary (nil for none),
// and returns the findings of the assertions that fail. Questions carry no
// request context, so an Allow whose condition needs some does not count.
func CheckAssertions(identity []policy.Named, boundary *policy.Named, principal string, asserts []Assertion, cat *catalog.Catalog) ([]Finding, error) {
	var set policy.Set
	for _, n := range identity {
		set.Add(policy.Identity, n)
	}
	if boundary != nil {
		set.Add(policy.Boundary, *boundary)
	}
	compiled, err := policy.Compile(set)
	if err != nil {
		return nil, &inputerr.Error{Msg: "the policies do not compile for the assertions: " + err.Error()}
	}
	// Without @RESOURCE, --must-deny also asks about the resources (and
	// conditions) the Allow statements grant the action on.
	var granted map[string][]Question
	for _, a := range asserts {
		if !a.Allow && a.Resource == "" {
			granted = map[string][]Question{}
			for _, n := range identity {
				for _, q := range Questions(n.Document, ActionExpander(cat)) {
					k := strings.ToLower(q.Action)
					granted[k] = append(granted[k], q)
				}
			}
			break
		}
	}
	var out []Finding
	for _, a := range asserts {
		var failed []assertFailure
		for _, action := range a.Actions {
			qs := []Question{{Action: action, Resource: a.Resource}}
			if a.Resource == "" {
				qs[0].Resource = "*"
				if !a.Allow {
					qs = append(qs, granted[strings.ToLower(action)]...)
				}
			}
			for _, q := range qs {
				res := compiled.Explain(q.Request(principal))
				if (res.Decision == policy.Allowed) != a.Allow {
					failed = append(failed, assertFailure{q: q, res: res})
					break // one failure an action is enough to say
				}
			}
		}
		out = append(out, assertFindings(a, failed, identity)...)
	}
	return out, nil
}

type assertFailure struct {
	q   Question
	res policy.Result
}

// assertFindings turns an assertion's failures into findings, one for each
// statement that decided (the Allow that grants what must be denied, the
// Deny that refuses what must be allowed), or one for the set when no
// statement did.
func assertFindings(a Assertion, failed []assertFailure, identity []policy.Named) []Finding {
	type group struct {
		ref      *policy.StatementRef
		failures []assertFailure
	}
	var groups []*group
	byRef := map[string]*group{}
	for _, f := range failed {
		ref := decidingStatement(f.res, a.Allow)
		key := ""
		if ref != nil {
			key = ref.Policy + "\x00" + fmt.Sprint(ref.Index)
		}
		g := byRef[key]
		if g == nil {
			g = &group{ref: ref}
			byRef[key] = g
			groups = append(groups, g)
		}
		g.failures = append(g.failures, f)
	}
	var out []Finding
	for _, g := range groups {
		f := Finding{ID: "LEASH-ASSERT-DENY", Severity: High}
		if a.Allow {
			f.ID = "LEASH-ASSERT-ALLOW"
		}
		if g.ref != nil {
			f.Policy, f.Path = g.ref.Policy, fmt.Sprintf("Statement[%d]", g.ref.Index)
		} else if len(identity) > 0 {
			f.Policy = identity[0].Name
		}
		var asked, actions []string
		for _, fl := range g.failures {
			s := fl.q.Action + " on " + fl.q.Resource
			if c := ContextText(fl.q.Context); c != "" {
				s += " when " + c
			}
			asked = append(asked, s)
			actions = append(actions, fl.q.Action)
		}
		list := ListAtMost(asked, 5)
		first := g.failures[0].res
		if a.Allow {
			why := first.Decision.String()
			if len(first.Reasons) > 0 {
				why = first.Reasons[0].Message
			}
			f.Message = fmt.Sprintf("%s %s fails: not allowed: %s (%s)", a.Flag, a.Spec, list, why)
			f.Fix = allowFix(first, g.failures[0].q)
		} else {
			by := "allowed"
			if g.ref != nil {
				by = "allowed by " + g.ref.String()
			}
			f.Message = fmt.Sprintf("%s %s fails: %s: %s", a.Flag, a.Spec, by, list)
			f.Fix = fmt.Sprintf("remove %s from the Allow statement or narrow its Resource, or add a Deny statement for it", ListAtMost(actions, 5))
		}
		out = append(out, f)
	}
	return out
}

// decidingStatement is the statement that made an assertion fail: for a
// must-deny, the first Allow that matched; for a must-allow, the Deny that
// refused or the Allow whose condition failed.
func decidingStatement(res policy.Result, mustAllow bool) *policy.StatementRef {
	if !mustAllow {
		for i := range res.Statements {
			if res.Statements[i].Effect == policy.Allow {
				return &res.Statements[i]
			}
		}
		return nil
	}
	for _, r := range res.Reasons {
		if r.Statement != nil {
			return r.Statement
		}
	}
	return nil
}

// allowFix says how to make a must-allow hold, from the engine's reason.
func allowFix(res policy.Result, q Question) string {
	code := ""
	if len(res.Reasons) > 0 {
		code = res.Reasons[0].Code
	}
	switch code {
	case policy.ReasonExplicitDeny:
		return fmt.Sprintf("remove %s from the Deny statement or narrow its Resource, or correct the assertion", q.Action)
	case policy.ReasonConditionFailed:
		return "the Allow statement's condition needs request context the assertion does not give; assert a resource the statement grants without it, or drop the condition"
	case policy.ReasonBoundaryNoAllow:
		return fmt.Sprintf("allow %s on %s in the permissions boundary too", q.Action, q.Resource)
	}
	return fmt.Sprintf("add an Allow statement for %s on %s, or give the resource the policies grant it on with %s@RESOURCE", q.Action, q.Resource, q.Action)
}

// ListAtMost joins up to n items and says how many more there are, for
// messages that name what a long list holds.
func ListAtMost(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
