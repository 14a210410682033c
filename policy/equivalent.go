package policy

import (
	"slices"
	"strings"
)

// Equivalent reports whether two documents say the same thing however they
// are written: statement order, Sids, the order and repetition of actions,
// resources, principals and condition values, the case of action names and
// condition keys, and a single value versus a one-element list do not
// matter. It is how leash decides that a policy in IAM needs no update.
func Equivalent(a, b *Document) bool {
	if a == nil || b == nil {
		return a == b
	}
	if effectiveVersion(a.Version) != effectiveVersion(b.Version) {
		return false
	}
	return slices.Equal(canonicalStatements(a), canonicalStatements(b))
}

func effectiveVersion(v string) string {
	if v == "" {
		return "2008-10-17"
	}
	return v
}

// canonicalStatements renders each statement in a normal form, sorted, with
// duplicates removed (a repeated statement grants nothing more).
func canonicalStatements(d *Document) []string {
	out := make([]string, 0, len(d.Statements))
	for _, s := range d.Statements {
		var b strings.Builder
		b.WriteString(string(s.Effect))
		writeSet(&b, "A", s.Action, strings.ToLower)
		writeSet(&b, "NA", s.NotAction, strings.ToLower)
		writeSet(&b, "R", s.Resource, nil)
		writeSet(&b, "NR", s.NotResource, nil)
		writePrincipal(&b, "P", s.Principal)
		writePrincipal(&b, "NP", s.NotPrincipal)
		conds := make([]string, 0, len(s.Conditions))
		for _, c := range s.Conditions {
			var cb strings.Builder
			cb.WriteString(c.Operator + "\x00" + strings.ToLower(c.Key))
			writeSet(&cb, "V", c.Values, nil)
			conds = append(conds, cb.String())
		}
		writeSet(&b, "C", conds, nil)
		out = append(out, b.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func writePrincipal(b *strings.Builder, tag string, p *Principal) {
	if p == nil {
		return
	}
	b.WriteString("\x01" + tag)
	if p.Wildcard {
		b.WriteString("*")
	}
	writeSet(b, "AWS", p.AWS, nil)
	writeSet(b, "S", p.Service, nil)
	writeSet(b, "F", p.Federated, nil)
	writeSet(b, "CU", p.CanonicalUser, nil)
}

// writeSet writes a sorted, de-duplicated list; absent and empty differ
// from each other only by the tag being present.
func writeSet(b *strings.Builder, tag string, values []string, fold func(string) string) {
	if values == nil {
		return
	}
	vs := slices.Clone(values)
	if fold != nil {
		for i := range vs {
			vs[i] = fold(vs[i])
		}
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	b.WriteString("\x01" + tag + "\x02" + strings.Join(vs, "\x02"))
}
