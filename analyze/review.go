package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// AtLeast reports whether the finding is of severity s or higher, as
// --fail-on s fails a run.
func (f Finding) AtLeast(s Severity) bool { return f.Severity >= s }

// KindOf says how Review reads a document: policy.Trust for a role's trust
// policy (statements name a Principal, and an action is sts:AssumeRole,
// sts:AssumeRoleWithWebIdentity, sts:AssumeRoleWithSAML or an sts pattern
// covering one), policy.Resource for another document that names principals
// (a bucket or key policy), and policy.Identity otherwise.
func KindOf(doc *policy.Document) policy.Kind {
	if doc == nil {
		return policy.Identity
	}
	principals, assume := false, false
	for _, st := range doc.Statements {
		if st.Principal != nil || st.NotPrincipal != nil {
			principals = true
		}
		for _, a := range st.Action {
			svc, _, _ := strings.Cut(a, ":")
			if strings.HasPrefix(strings.ToLower(a), "sts:assumerole") ||
				(strings.EqualFold(svc, "sts") && policy.MatchAction(a, "sts:AssumeRole")) {
				assume = true
			}
		}
	}
	switch {
	case principals && assume:
		return policy.Trust
	case principals:
		return policy.Resource
	}
	return policy.Identity
}

// Review is what leash check runs over the policies of one principal: every
// document is validated against the catalog (Validate); identity-based
// policies get the least-privilege checks (LeastPrivilege and Scope) and,
// all of them together, the privilege-escalation analysis (Escalation, with
// principal, the holder's ARN or ""); trust policies get Trust instead of
// the identity checks; other resource-based policies are only validated.
// KindOf tells the kinds apart. nil cat means catalog.Default().
//
// The findings are sorted by severity, highest first, then by policy name
// and by path (Statement[2] before Statement[10]).
func Review(policies []policy.Named, principal string, cat *catalog.Catalog) []Finding {
	return review(policies, PolicySet{}, principal, cat)
}

// review is Review with the caps over the principal (caps.Boundary and
// caps.SCPs), which the escalation analysis applies.
func review(policies []policy.Named, caps PolicySet, principal string, cat *catalog.Catalog) []Finding {
	if cat == nil {
		cat = catalog.Default()
	}
	var out []Finding
	var identity []policy.Named
	// The least-privilege findings apply the Deny statements of every
	// identity policy of the set, not only the statement's own document.
	denies := newDenyView(identityPolicies(policies), cat)
	for _, p := range policies {
		if p.Document == nil {
			continue
		}
		out = append(out, Validate(p.Document, p.Name, cat)...)
		switch KindOf(p.Document) {
		case policy.Trust:
			out = append(out, Trust(p.Document, p.Name)...)
		case policy.Identity:
			out = append(out, leastPrivilege(p.Document, p.Name, denies)...)
			out = append(out, Scope(p.Document, p.Name, cat)...)
			identity = append(identity, p)
		}
	}
	if len(identity) > 0 {
		out = append(out, Escalation(PolicySet{Policies: identity, Boundary: caps.Boundary, SCPs: caps.SCPs, Now: caps.Now}, principal)...)
	}
	SortFindings(out)
	return out
}

// identityPolicies are the identity-based policies among policies, as
// KindOf tells them apart.
func identityPolicies(policies []policy.Named) []policy.Named {
	var out []policy.Named
	for _, p := range policies {
		if p.Document != nil && KindOf(p.Document) == policy.Identity {
			out = append(out, p)
		}
	}
	return out
}

// ReviewBoundary reviews a permissions boundary. A boundary grants
// nothing, so only the document itself is checked (names AWS does not know,
// elements that never match); grants wider than a workload needs and
// escalation paths are about what the principal's own policies allow, which
// the boundary only caps.
func ReviewBoundary(b policy.Named, cat *catalog.Catalog) []Finding {
	return Validate(b.Document, b.Name, cat)
}

// ReviewTrust reviews a role's trust policy: the names in it against the
// catalog, and who it lets assume the role (Trust). It is kept out of the
// identity policies, as it grants the role nothing.
func ReviewTrust(t policy.Named, cat *catalog.Catalog) []Finding {
	return append(Validate(t.Document, t.Name, cat), Trust(t.Document, t.Name)...)
}

// SortFindings orders findings by severity, highest first, then by policy,
// path (numbers in brackets compared as numbers), ID and message.
func SortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(b.Severity, a.Severity),
			strings.Compare(a.Policy, b.Policy),
			comparePaths(a.Path, b.Path),
			strings.Compare(a.ID, b.ID),
			strings.Compare(a.Message, b.Message),
		)
	})
}

// comparePaths compares JSON paths, runs of digits by their value.
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// Only asserts that the policies grant nothing outside the allowed action
// patterns (leash check --only 'ec2:Describe*'). Each Allow statement of an
// identity-based policy (statements that name a Principal grant to others
// and are skipped) is expanded with the catalog (nil means
// catalog.Default()): Action patterns to the actions they match, NotAction
// to every catalog action it does not name. A statement that allows an
// action no allowed pattern matches is reported as LEASH-ONLY-001 (high),
// whose message lists the extra actions (the first ten, and how many in
// all). An Action element the catalog does not know is compared as written,
// with policy.MatchAction, against the allowed patterns.
//
// Actions an unconditional Deny on Resource "*" in the set takes away are
// not extra: no request for them can be allowed.
func Only(policies []policy.Named, allowed []string, cat *catalog.Catalog) []Finding {
	if cat == nil {
		cat = catalog.Default()
	}
	permitted := func(action string) bool {
		for _, p := range allowed {
			if policy.MatchAction(p, action) {
				return true
			}
		}
		return false
	}
	denied := unconditionalDenies(policies)
	var every []catalog.Action // the whole catalog, read once when needed
	var out []Finding
	for _, p := range policies {
		if p.Document == nil {
			continue
		}
		for i := range p.Document.Statements {
			st := &p.Document.Statements[i]
			if st.Effect != policy.Allow || st.Principal != nil || st.NotPrincipal != nil {
				continue
			}
			ex := extraActions{permitted: permitted, denied: denied, seen: map[string]bool{}}
			path := fmt.Sprintf("Statement[%d]", i)
			if len(st.NotAction) > 0 || slices.ContainsFunc(st.Action, isEveryAction) {
				if every == nil {
					every = cat.Expand("*")
				}
				j := slices.IndexFunc(st.Action, isEveryAction) // -1 for NotAction
				for _, x := range every {
					if s := x.String(); !slices.ContainsFunc(st.NotAction, func(n string) bool { return policy.MatchAction(n, s) }) {
						ex.add(x, s, j)
					}
				}
			} else {
				for j, a := range st.Action {
					xs := expandAction(cat, a)
					if len(xs) == 0 {
						ex.addUnknown(a, j)
					}
					for _, x := range xs {
						ex.add(x, x.String(), j)
					}
				}
			}
			if len(ex.known)+len(ex.unknown) == 0 {
				continue
			}
			out = append(out, ex.finding(st, p.Name, path, allowed))
		}
	}
	return out
}

// unconditionalDenies returns whether an action is denied on every
// resource, whatever the request, by a Deny statement of the policies.
func unconditionalDenies(policies []policy.Named) func(string) bool {
	var denies []policy.Statement
	for _, p := range policies {
		if p.Document == nil {
			continue
		}
		for _, st := range p.Document.Statements {
			if st.Effect == policy.Deny && len(st.Conditions) == 0 && st.Principal == nil && st.NotPrincipal == nil &&
				slices.Contains(st.Resource, "*") {
				denies = append(denies, policy.Statement{Effect: policy.Deny, Action: st.Action, NotAction: st.NotAction, Resource: []string{"*"}})
			}
		}
	}
	none := func(string) bool { return false }
	if len(denies) == 0 {
		return none
	}
	doc := &policy.Document{Version: policy.Version2012, Statements: append(denies,
		policy.Statement{Effect: policy.Allow, Action: []string{"*"}, Resource: []string{"*"}})}
	compiled, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "denies", Document: doc}}})
	if err != nil {
		return none
	}
	return func(action string) bool {
		return compiled.Decide(&policy.Request{Action: action, Resource: "*"}) == policy.ExplicitDeny
	}
}

// extraActions gathers what one statement allows beyond the allowed
// patterns.
type extraActions struct {
	permitted, denied func(string) bool
	seen              map[string]bool
	known             []catalog.Action
	unknown           []string
	// elements are the Action elements the extras come from; -1 for
	// NotAction or "*".
	elements []int
}

func (e *extraActions) take(s string, j int) bool {
	k := strings.ToLower(s)
	if e.seen[k] || e.permitted(s) || e.denied(s) {
		return false
	}
	e.seen[k] = true
	if !slices.Contains(e.elements, j) {
		e.elements = append(e.elements, j)
	}
	return true
}

func (e *extraActions) add(x catalog.Action, s string, j int) {
	if e.take(s, j) {
		e.known = append(e.known, x)
	}
}

func (e *extraActions) addUnknown(a string, j int) {
	if e.take(a, j) {
		e.unknown = append(e.unknown, a)
	}
}

func (e *extraActions) finding(st *policy.Statement, name, path string, allowed []string) Finding {
	slices.SortFunc(e.known, catalog.Compare)
	names := make([]string, 0, len(e.known)+len(e.unknown))
	for _, x := range e.known {
		names = append(names, x.String())
	}
	names = append(names, e.unknown...)
	shown := names[:min(10, len(names))]
	list := strings.Join(shown, ", ")
	if len(names) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	allowedText := "nothing"
	if len(allowed) > 0 {
		allowedText = strings.Join(allowed, ", ")
	}
	msg := fmt.Sprintf("the statement allows %d actions outside %s: %s", len(names), allowedText, list)
	p := path
	switch {
	case len(st.NotAction) > 0:
		p = path + ".NotAction"
		msg += "; with NotAction it also allows every action AWS adds later"
	case len(e.elements) == 1 && e.elements[0] >= 0:
		p = elementPath(path+".Action", st.Action, e.elements[0])
	}
	return Finding{
		ID: "LEASH-ONLY-001", Severity: High, Policy: name, Path: p, Message: msg,
		Fix: "remove those actions (or narrow the patterns that match them) so that the policy allows only " + allowedText +
			"; if the workload needs them, widen --only",
	}
}
