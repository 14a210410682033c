package operator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestReasonsDocumented keeps docs/operator.md's table of condition reasons
// in step with reasons.go: every constant there is a row of the table, and
// every row is a constant, so that a reason added or renamed in code is
// documented in the same change.
func TestReasonsDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "reasons.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	inCode := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Reason") {
					t.Errorf("%s: reasons.go holds only reasons, named Reason...", n.Name)
				}
				if vs.Doc == nil {
					t.Errorf("%s has no doc comment: say when it is set", n.Name)
				}
				v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				if inCode[v] {
					t.Errorf("%s: reason %q is defined twice", n.Name, v)
				}
				inCode[v] = true
			}
		}
	}
	doc, err := os.ReadFile("../../docs/operator.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "### Condition reasons\n")
	if !ok {
		t.Fatal("docs/operator.md has no section ### Condition reasons")
	}
	section, _, _ = strings.Cut(section, "\n#")
	inDoc := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\|").FindAllStringSubmatch(section, -1) {
		inDoc[m[1]] = true
	}
	var missing, extra []string
	for v := range inCode {
		if !inDoc[v] {
			missing = append(missing, v)
		}
	}
	for v := range inDoc {
		if !inCode[v] {
			extra = append(extra, v)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("reasons.go has reasons docs/operator.md's table lacks: %v; add a row for each", missing)
	}
	if len(extra) > 0 {
		t.Errorf("docs/operator.md's table lists reasons reasons.go does not have: %v; remove or rename the rows", extra)
	}
	if len(inCode) < 40 {
		t.Errorf("only %d reasons read from reasons.go; the parse missed some", len(inCode))
	}
}
