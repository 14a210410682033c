package policy

import "fmt"

// CompileOneFor is CompileOne for a document that answers requests for one
// action alone, such as a document that a single request of a batch
// carries. A statement whose Action (or NotAction) does not cover action
// keeps only its actions: the engine looks at a statement's resources,
// principals and conditions only once its action matches, so those of the
// other statements need not be compiled. Decide and Explain give what
// CompileOne's document gives, for requests for action; for any other
// action the result is wrong, and must not be used.
//
// The document is one Parse made: Parse refuses everything compiling a
// statement could refuse, so that leaving statements uncompiled hides no
// error.
func CompileOneFor(n Named, kind Kind, action string) (*Compiled, error) {
	if kind == Trust {
		kind = Resource // as Compile places a trust policy
	}
	if n.Document == nil {
		return CompileOne(n, kind)
	}
	vars := n.Document.Version == Version2012
	d := &compiledDoc{name: n.Name, kind: kind, stmts: make([]compiledStmt, 0, len(n.Document.Statements))}
	for i, s := range n.Document.Statements {
		if !coversAny(s, action) {
			// It never applies to a request for action: it keeps no
			// action, which no action matches.
			d.stmts = append(d.stmts, compiledStmt{index: i, sid: s.Sid, effect: s.Effect})
			continue
		}
		cs, err := compileStatement(i, s, vars)
		if err != nil {
			return nil, fmt.Errorf("%s policy %q: Statement[%d]: %w", kind, n.Name, i, err)
		}
		d.stmts = append(d.stmts, cs)
	}
	return &Compiled{doc: d}, nil
}

// coversAny reports whether statement s covers action: one of its Action
// patterns matches it, or none of its NotAction patterns does.
func coversAny(s Statement, action string) bool {
	if s.NotAction != nil {
		for _, p := range s.NotAction {
			if coversAction(p, action) {
				return false
			}
		}
		return true
	}
	for _, p := range s.Action {
		if coversAction(p, action) {
			return true
		}
	}
	return false
}

// coversAction reports what the compiled action pattern p reports for
// action (compilePattern(strings.ToLower(p), true, false).match(action,
// nil, true)), without compiling it: * and ? are wildcards, ? one
// character, and letters compare ASCII-case-insensitively. p is an action
// of a parsed document, which checkAction holds to ASCII, so that
// lower-casing it is ASCII's. A star backtracks as globUnits does.
func coversAction(p, action string) bool {
	pi, si := 0, 0
	starP, starS := -1, 0
	for {
		if si == len(action) {
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			if pi == len(p) {
				return true
			}
		} else if pi < len(p) {
			switch c := p[pi]; {
			case c == '*':
				starP, starS = pi, si
				pi++
				continue
			case c == '?':
				pi, si = pi+1, si+runeLen(action, si)
				continue
			case lower(c) == lower(action[si]):
				pi, si = pi+1, si+1
				continue
			}
		}
		if starP < 0 || starS >= len(action) {
			return false
		}
		starS += runeLen(action, starS)
		pi, si = starP+1, starS
	}
}
