package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// A pattern is a policy string compiled for matching: literal text, the
// wildcards * and ?, and policy variables resolved against the request
// context at match time. Matching never allocates.
type pattern struct {
	raw   string
	units []unit
	// hasVars is true when some unit is a variable; such patterns cannot match
	// when a variable has no value and no default.
	hasVars bool
	// shape and lit give a fast path for the common patterns without
	// variables: an exact string, a prefix followed by one *, or a glob whose
	// * and ? are all wildcards.
	shape patternShape
	lit   string
}

type patternShape uint8

const (
	shapeUnits  patternShape = iota // general: walk the units
	shapeExact                      // lit is the whole pattern
	shapePrefix                     // lit followed by *
	shapeStar                       // "*" alone
)

type unitKind uint8

const (
	unitText unitKind = iota
	unitStar
	unitQuestion
	unitVar
)

type unit struct {
	kind unitKind
	// text is the literal text of a unitText, or the default of a unitVar.
	text string
	// key is a unitVar's context key, lower-cased.
	key    string
	hasDef bool
	// vi is a unitVar's index among the pattern's variables.
	vi int
}

// maxVars bounds the variables of one pattern, so that resolving them needs no
// heap. AWS limits policies to a few thousand characters; 16 is generous.
const maxVars = 16

// compilePattern compiles s. With wildcards false, * and ? are literal (as in
// StringEquals). With vars false (Version 2008 documents), ${...} is literal.
func compilePattern(s string, wildcards, vars bool) (pattern, error) {
	p := pattern{raw: s}
	// Text is kept as slices of s: a pattern allocates only its units, and
	// a pattern that is all text (most ARN parts) not even those.
	if !(wildcards && strings.ContainsAny(s, "*?")) && !(vars && strings.Contains(s, "${")) {
		p.shape, p.lit = shapeExact, s
		return p, nil
	}
	text := func(t string) {
		if t == "" {
			return
		}
		if n := len(p.units); n > 0 && p.units[n-1].kind == unitText {
			// Only after ${*}, ${?} or ${$}: join, as one text unit.
			p.units[n-1].text += t
			return
		}
		p.units = append(p.units, unit{kind: unitText, text: t})
	}
	nvars, start := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case wildcards && (c == '*' || c == '?'):
			text(s[start:i])
			kind := unitStar
			if c == '?' {
				kind = unitQuestion
			}
			p.units = append(p.units, unit{kind: kind})
			start = i + 1
		case vars && c == '$' && i+1 < len(s) && s[i+1] == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return p, fmt.Errorf("policy variable in %q has no closing }", s)
			}
			text(s[start:i])
			body := s[i+2 : i+end]
			i += end
			start = i + 1
			switch body {
			case "*", "?", "$":
				// ${*}, ${?} and ${$} stand for the literal character.
				text(body)
				continue
			}
			key, def, hasDef := strings.Cut(body, ",")
			key = strings.TrimSpace(key)
			if key == "" {
				return p, fmt.Errorf("policy variable in %q has no key name", s)
			}
			if hasDef {
				def = strings.TrimSpace(def)
				if len(def) < 2 || def[0] != '\'' || def[len(def)-1] != '\'' {
					return p, fmt.Errorf("default of policy variable ${%s} in %q must be in single quotes, such as ${%s, 'none'}", key, s, key)
				}
				def = def[1 : len(def)-1]
			}
			nvars++
			if nvars > maxVars {
				return p, fmt.Errorf("%q has more than %d policy variables", s, maxVars)
			}
			p.units = append(p.units, unit{kind: unitVar, key: strings.ToLower(key), text: def, hasDef: hasDef, vi: nvars - 1})
			p.hasVars = true
		}
	}
	text(s[start:])
	p.shape = shapeOf(p.units)
	if (p.shape == shapeExact || p.shape == shapePrefix) && len(p.units) > 0 {
		p.lit = p.units[0].text
	}
	return p, nil
}

func shapeOf(units []unit) patternShape {
	switch {
	case len(units) == 0:
		return shapeExact
	case len(units) == 1 && units[0].kind == unitText:
		return shapeExact
	case len(units) == 1 && units[0].kind == unitStar:
		return shapeStar
	case len(units) == 2 && units[0].kind == unitText && units[1].kind == unitStar:
		return shapePrefix
	}
	return shapeUnits
}

// resolved holds the values of a pattern's variables for one match.
type resolved [maxVars]string

// resolve looks up each variable; ok is false when one has no value.
func (p *pattern) resolve(ctx *Context, out *resolved) bool {
	n := 0
	for i := range p.units {
		u := &p.units[i]
		if u.kind != unitVar {
			continue
		}
		v, found := ctx.single(u.key)
		switch {
		case found:
			out[n] = v
		case u.hasDef:
			out[n] = u.text
		default:
			return false
		}
		n++
	}
	return true
}

// match reports whether s matches the pattern. fold compares ASCII letters
// case-insensitively.
func (p *pattern) match(s string, ctx *Context, fold bool) bool {
	switch p.shape {
	case shapeStar:
		return true
	case shapeExact:
		return equalText(p.lit, s, fold)
	case shapePrefix:
		return len(s) >= len(p.lit) && equalText(p.lit, s[:len(p.lit)], fold)
	}
	if !p.hasVars {
		return globUnits(p.units, nil, s, fold)
	}
	var vals resolved
	if p.hasVars && !p.resolve(ctx, &vals) {
		return false
	}
	return globUnits(p.units, &vals, s, fold)
}

// globUnits is wildcard matching with one-star backtracking over a pattern of
// units. A pattern position is (unit index, offset within the unit's text).
func globUnits(units []unit, vals *resolved, s string, fold bool) bool {
	textOf := func(ui int) string {
		if u := &units[ui]; u.kind == unitVar {
			return vals[u.vi]
		}
		return units[ui].text
	}
	ui, uo, si := 0, 0, 0
	starUI, starSI := -1, 0
	for {
		// Skip exhausted literal units.
		for ui < len(units) && (units[ui].kind == unitText || units[ui].kind == unitVar) && uo >= len(textOf(ui)) {
			ui, uo = ui+1, 0
		}
		if si == len(s) {
			// The rest of the pattern must be stars or empty texts.
			for ; ui < len(units); ui, uo = ui+1, 0 {
				switch units[ui].kind {
				case unitStar:
				case unitQuestion:
					goto backtrack
				default:
					if uo < len(textOf(ui)) {
						goto backtrack
					}
				}
			}
			return true
		}
		if ui < len(units) {
			switch units[ui].kind {
			case unitStar:
				starUI, starSI = ui, si
				ui++
				continue
			case unitQuestion:
				// ? stands for one character, which may take
				// several bytes.
				ui, si = ui+1, si+runeLen(s, si)
				continue
			default:
				if equalByte(textOf(ui)[uo], s[si], fold) {
					uo, si = uo+1, si+1
					continue
				}
			}
		}
	backtrack:
		if starUI < 0 || starSI >= len(s) {
			return false
		}
		starSI += runeLen(s, starSI)
		ui, uo, si = starUI+1, 0, starSI
	}
}

// runeLen is the length in bytes of the character at s[i], so that ? and
// a star's backtracking step over whole characters: a star that stopped
// inside one would let ? count its remaining bytes as characters.
func runeLen(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRuneInString(s[i:])
	return n
}

// equalText compares pattern text a with s. With fold, a is lower-case (as
// compiled action patterns are) and s is compared ASCII-case-insensitively.
func equalText(a, s string, fold bool) bool {
	if !fold {
		return a == s
	}
	if len(a) != len(s) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != s[i] && a[i] != lower(s[i]) {
			return false
		}
	}
	return true
}

func equalByte(a, b byte, fold bool) bool {
	if a == b {
		return true
	}
	if !fold {
		return false
	}
	return lower(a) == lower(b)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// arnPattern matches an ARN part by part: partition, service, region,
// account and resource are compared separately, so that a wildcard never
// spans the colons between them (AWS's rule for Resource and Arn operators).
type arnPattern struct {
	all bool // the pattern is "*"
	// invalid is set when the pattern is not "*" and has fewer than six
	// parts: it matches nothing.
	invalid bool
	parts   [6]pattern
}

func compileARNPattern(s string, vars bool) (arnPattern, error) {
	var a arnPattern
	if s == "*" {
		a.all = true
		return a, nil
	}
	parts, ok := splitARNPattern(s, vars)
	if !ok {
		a.invalid = true
		return a, nil
	}
	for i, part := range parts {
		p, err := compilePattern(part, true, vars)
		if err != nil {
			return a, err
		}
		a.parts[i] = p
	}
	return a, nil
}

func (a *arnPattern) match(arn string, ctx *Context) bool {
	if a.all {
		return true
	}
	parts, ok := splitARN(arn)
	return a.matchParts(arn, &parts, ok, ctx)
}

// matchParts is match with the ARN already split by splitARN.
func (a *arnPattern) matchParts(arn string, parts *[6]string, isARN bool, ctx *Context) bool {
	if a.all {
		return true
	}
	if a.invalid || !isARN {
		return false
	}
	for i := range parts {
		if !a.parts[i].match(parts[i], ctx, false) {
			return false
		}
	}
	return true
}

// splitARN splits "arn:partition:service:region:account:resource" into its
// six parts without allocating; the resource part may hold more colons.
func splitARN(s string) (parts [6]string, ok bool) {
	ok = splitARNInto(s, &parts)
	return parts, ok
}

// splitARNPattern is splitARN for a policy's ARN pattern: with vars, a
// colon inside a policy variable (arn:aws:iam::${aws:PrincipalAccount}:role/x)
// does not separate parts.
func splitARNPattern(s string, vars bool) (parts [6]string, ok bool) {
	if !vars || !strings.Contains(s, "${") {
		return splitARN(s)
	}
	parts, n := SplitARN(s)
	return parts, n == 6 && parts[0] == "arn"
}

// SplitARN splits an ARN, a policy's ARN pattern or an ARN format
// (arn:${Partition}:ec2:${Region}:...) into its parts, arn, partition,
// service, region, account and resource, at its first five colons outside
// ${...}; the resource part may hold more colons. n is how many parts there
// are: 6 for anything shaped like an ARN.
func SplitARN(s string) (parts [6]string, n int) {
	start := 0
	for i := 0; i < len(s) && n < 5; i++ {
		switch s[i] {
		case '$':
			if i+1 < len(s) && s[i+1] == '{' {
				if end := strings.IndexByte(s[i:], '}'); end > 0 {
					i += end
				}
			}
		case ':':
			parts[n] = s[start:i]
			n++
			start = i + 1
		}
	}
	parts[n] = s[start:]
	return parts, n + 1
}

// splitARNInto is splitARN writing into parts, which the decision path keeps
// in place. One pass over the bytes is faster than five searches for these
// short parts.
func splitARNInto(s string, parts *[6]string) bool {
	n, start := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			parts[n] = s[start:i]
			n++
			start = i + 1
			if n == 5 {
				parts[5] = s[start:]
				return parts[0] == "arn"
			}
		}
	}
	return false
}
