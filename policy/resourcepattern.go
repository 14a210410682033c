package policy

import "strings"

// ResourcePattern is one entry of a statement's Resource or NotResource
// element. Account-wide questions use the patterns that may apply to an
// action to tell which resources a principal's documents single out: two
// resources that every pattern matches alike, of one account and under the
// same resource policy, get the same decision for any request that differs
// only in its resource, since a request's context does not depend on its
// resource and no condition can tell them apart.
type ResourcePattern struct {
	a *arnPattern
}

// Resolution says what Resolve made of a pattern.
type Resolution uint8

const (
	// Resolved: the pattern is its text with every variable's value in
	// place, a plain ARN glob.
	Resolved Resolution = iota
	// MatchesNothing: a variable has no value and no default, so the
	// pattern names no resource for this context.
	MatchesNothing
	// Unresolvable: a value (or the pattern's own literal * or ?) holds a
	// wildcard character, which a glob would read as a wildcard.
	Unresolvable
)

// ResourcePatterns calls yield with each Resource or NotResource pattern of
// the statements (of either effect) whose Action or NotAction covers
// action. Statements without either element (trust policies) name no
// pattern.
func (c *Compiled) ResourcePatterns(action string, yield func(ResourcePattern)) {
	docPatterns(c.doc, action, yield)
}

// OrgResourcePatterns is ResourcePatterns over the SCPs and RCPs of p.
func (p *Policies) OrgResourcePatterns(action string, yield func(ResourcePattern)) {
	for _, levels := range [][][]*compiledDoc{p.scps, p.rcps} {
		for _, level := range levels {
			for _, d := range level {
				docPatterns(d, action, yield)
			}
		}
	}
}

func docPatterns(d *compiledDoc, action string, yield func(ResourcePattern)) {
	for i := range d.stmts {
		s := &d.stmts[i]
		if !s.matchesAction(action) {
			continue
		}
		for j := range s.resources {
			yield(ResourcePattern{a: &s.resources[j]})
		}
	}
}

// Resolve returns the pattern as a plain glob for a request context: text
// and the wildcards * and ?, each policy variable replaced by its value as
// the engine would take it.
func (r ResourcePattern) Resolve(ctx *Context) (string, Resolution) {
	if r.a.all {
		return "*", Resolved
	}
	if r.a.invalid {
		return "", MatchesNothing
	}
	var b strings.Builder
	for i := range r.a.parts {
		if i > 0 {
			b.WriteByte(':')
		}
		p := &r.a.parts[i]
		if p.shape == shapeExact || p.shape == shapePrefix {
			// ${*} and ${?} leave a literal wildcard character in the text.
			if strings.ContainsAny(p.lit, "*?") {
				return "", Unresolvable
			}
			b.WriteString(p.lit)
			if p.shape == shapePrefix {
				b.WriteByte('*')
			}
			continue
		}
		if p.shape == shapeStar {
			b.WriteByte('*')
			continue
		}
		var vals resolved
		if p.hasVars && !p.resolve(ctx, &vals) {
			return "", MatchesNothing
		}
		for _, u := range p.units {
			var text string
			switch u.kind {
			case unitStar:
				b.WriteByte('*')
				continue
			case unitQuestion:
				b.WriteByte('?')
				continue
			case unitVar:
				text = vals[u.vi]
			default:
				text = u.text
			}
			if strings.ContainsAny(text, "*?") {
				return "", Unresolvable
			}
			b.WriteString(text)
		}
	}
	return b.String(), Resolved
}

// ARNGlob is a resolved pattern compiled for matching ARNs as the Resource
// element does: part by part, a wildcard never spanning a colon.
type ARNGlob struct {
	a arnPattern
}

// CompileARNGlob compiles a glob that Resolve returned.
func CompileARNGlob(s string) ARNGlob {
	a, err := compileARNPattern(s, false)
	if err != nil {
		// Without variables compiling cannot fail; a glob that did would
		// match nothing.
		return ARNGlob{a: arnPattern{invalid: true}}
	}
	return ARNGlob{a: a}
}

// Match reports whether the glob names arn.
func (g *ARNGlob) Match(arn string) bool { return g.a.match(arn, nil) }
