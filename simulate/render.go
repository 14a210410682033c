package simulate

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	for i, o := range outcomes {
		resource := o.Resource
		if resource == "" {
			resource = "*" // the engine reads an empty resource as "*"
		}
		rows[i] = []string{o.Decision, o.Action, resource}
		if withPrincipal {
			rows[i] = append(rows[i], o.Principal)
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
	out := make([]Outcome, len(outcomes))
	for i, o := range outcomes {
		if o.Statements == nil {
			o.Statements = []policy.StatementRef{}
		}
		if o.Reasons == nil {
			o.Reasons = []policy.Reason{}
		}
		out[i] = o
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// ARNs and messages read better without \u003c-style escapes.
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
