package simulate

import (
	"fmt"
	"io"
	"strings"

	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/policy"
)

// WriteTable writes one row per outcome under the headers DECISION, ACTION,
// RESOURCE and, when some outcome has one, PRINCIPAL. With explain, the
// deciding statements and the reasons follow each row, indented.
func WriteTable(w io.Writer, outcomes []Outcome, explain bool) error {
	header := []string{"DECISION", "ACTION", "RESOURCE"}
	withPrincipal := false
	for _, o := range outcomes {
		withPrincipal = withPrincipal || o.Principal != ""
	}
	if withPrincipal {
		header = append(header, "PRINCIPAL")
	}
	rows := make([][]string, len(outcomes))
	for i := range outcomes {
		action, resource, principal := cells(&outcomes[i])
		rows[i] = []string{outcomes[i].Decision, action, resource}
		if withPrincipal {
			rows[i] = append(rows[i], principal)
		}
	}
	// Widths are computed by hand rather than with text/tabwriter, whose
	// columns restart at every explanation line.
	widths := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for c, cell := range row {
			widths[c] = max(widths[c], len(cell))
		}
	}
	var b strings.Builder
	writeRow := func(row []string) {
		for c, cell := range row {
			if c == len(row)-1 {
				b.WriteString(cell)
				break
			}
			fmt.Fprintf(&b, "%-*s  ", widths[c], cell)
		}
		b.WriteString("\n")
	}
	writeRow(header)
	for i, row := range rows {
		writeRow(row)
		if explain {
			for _, line := range explanation(outcomes[i]) {
				b.WriteString("    ")
				b.WriteString(line)
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cells are an outcome's request as the table shows it: escaped, since a
// request file's author wrote them and a newline in one must not start a
// forged row, and the resource "*" when empty, as the engine reads it.
func cells(o *Outcome) (action, resource, principal string) {
	resource = o.Resource
	if resource == "" {
		resource = "*"
	}
	return termsafe.Escape(o.Action), termsafe.Escape(resource), termsafe.Escape(o.Principal)
}

// explanation is the deciding statements not already quoted by a reason,
// then the reasons. Identical lines are printed once: the same policy
// attached at two organization levels reads the same at both.
func explanation(o Outcome) []string {
	quoted := map[policy.StatementRef]bool{}
	for _, r := range o.Reasons {
		if r.Statement != nil {
			quoted[*r.Statement] = true
		}
	}
	// Outside an allow, a listed Allow statement was not enough: the reasons
	// below it say what else was needed.
	suffix := ""
	if o.Decision != policy.Allowed.String() {
		suffix = ", but that is not enough:"
	}
	var lines []string
	seen := map[string]bool{}
	add := func(line string) {
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	for _, s := range o.Statements {
		if !quoted[s] {
			add("allowed by " + s.String() + suffix)
		}
	}
	for _, r := range o.Reasons {
		add(r.Message)
	}
	return lines
}

// WriteJSON writes the outcomes as a JSON array, in input order, indented by
// two spaces. Statements and reasons are always arrays, empty when there
// are none, so that scripts need no null check.
func WriteJSON(w io.Writer, outcomes []Outcome) error {
	if len(outcomes) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	jw := &jsonWriter{w: w}
	for i := range outcomes {
		if err := jw.write(&outcomes[i]); err != nil {
			return err
		}
	}
	return jw.close()
}

// outcomeWriter writes outcomes one at a time, as they are decided. It
// writes nothing before the first, so that input found bad before any
// answer leaves stdout empty.
type outcomeWriter interface {
	write(o *Outcome) error
	// close ends the output; after no outcome, it writes nothing.
	close() error
}

// jsonWriter writes the array of WriteJSON element by element: the same
// bytes as encoding the whole array at once.
type jsonWriter struct {
	w io.Writer
	n int
}

func (j *jsonWriter) write(o *Outcome) error {
	return j.element(renderJSON(o))
}

// element writes an outcome rendered by renderJSON, which a stream's
// workers do so that the writer only copies bytes.
func (j *jsonWriter) element(b []byte) error {
	sep := ",\n  "
	if j.n == 0 {
		sep = "[\n  "
	}
	j.n++
	if _, err := io.WriteString(j.w, sep); err != nil {
		return err
	}
	_, err := j.w.Write(b)
	return err
}

// renderJSON returns o as an element of WriteJSON's array, indented as there,
// without the separator before it.
func renderJSON(o *Outcome) []byte {
	return appendOutcome(make([]byte, 0, 1024), o)
}

func (j *jsonWriter) close() error {
	if j.n == 0 {
		return nil
	}
	_, err := io.WriteString(j.w, "\n]\n")
	return err
}

// Widths of the streamed table's padded columns. A stream cannot look ahead
// to size its columns, so they are fixed: DECISION fits every decision, and
// ACTION fits all but the longest action names, which push their row along.
const (
	decisionWidth = len("ImplicitDeny")
	actionWidth   = 32
)

// tableWriter writes the table of a stream row by row, in a fixed layout:
// DECISION and ACTION padded to fixed widths, then RESOURCE and, for a
// request with one, the PRINCIPAL. Explanations follow each row as in
// WriteTable; an Error row is followed by its message.
type tableWriter struct {
	w       io.Writer
	explain bool
	started bool
	b       strings.Builder
}

func (t *tableWriter) write(o *Outcome) error {
	t.b.Reset()
	if !t.started {
		t.started = true
		fmt.Fprintf(&t.b, "%-*s  %-*s  RESOURCE  PRINCIPAL\n", decisionWidth, "DECISION", actionWidth, "ACTION")
	}
	action, resource, principal := cells(o)
	fmt.Fprintf(&t.b, "%-*s  %-*s  %s", decisionWidth, o.Decision, actionWidth, action, resource)
	if principal != "" {
		t.b.WriteString("  ")
		t.b.WriteString(principal)
	}
	t.b.WriteString("\n")
	var lines []string
	if o.Error != "" {
		lines = []string{o.Error}
	} else if t.explain {
		lines = explanation(*o)
	}
	for _, line := range lines {
		t.b.WriteString("    ")
		t.b.WriteString(line)
		t.b.WriteString("\n")
	}
	_, err := io.WriteString(t.w, t.b.String())
	return err
}

func (t *tableWriter) close() error { return nil }
