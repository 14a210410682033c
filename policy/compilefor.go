package policy

import (
	"fmt"
	"strings"
)

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
		stub := compiledStmt{index: i, sid: s.Sid, effect: s.Effect}
		actions := s.Action
		if s.NotAction != nil {
			actions, stub.notAction = s.NotAction, true
		}
		stub.actions = make([]pattern, 0, len(actions))
		for _, a := range actions {
			p, err := compilePattern(strings.ToLower(a), true, false)
			if err != nil {
				return CompileOne(n, kind) // which words the error
			}
			stub.actions = append(stub.actions, p)
		}
		if !stub.matchesAction(action) {
			d.stmts = append(d.stmts, stub)
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
