package analyze

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"leash.dev/leash/internal/termsafe"
)

// Summary counts the findings of a run, as check and check workload print
// it.
type Summary struct {
	Policies   int            `json:"policies"`
	Findings   int            `json:"findings"`
	BySeverity map[string]int `json:"bySeverity"`
	FailOn     string         `json:"failOn"`
	// Failing counts the findings at or above FailOn; any makes the exit
	// status 1.
	Failing int `json:"failing"`
}

// Summarize counts findings over what was reviewed (policies, or pods).
func Summarize(findings []Finding, failOn Severity, policies int) Summary {
	s := Summary{Policies: policies, Findings: len(findings), BySeverity: map[string]int{}, FailOn: failOn.String()}
	for _, f := range findings {
		s.BySeverity[f.Severity.String()]++
		if f.Severity >= failOn {
			s.Failing++
		}
	}
	return s
}

// WriteJSON writes {"findings": [...], "summary": {...}}, an empty list
// rather than null when there are none.
func WriteJSON(w io.Writer, findings []Finding, sum Summary) error {
	if findings == nil {
		findings = []Finding{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Findings []Finding `json:"findings"`
		Summary  Summary   `json:"summary"`
	}{findings, sum})
}

// WriteText writes one line per finding and a summary counting what
// was reviewed in the unit given (policy/policies, pod/pods). A finding's
// policy name, path, message and fix are escaped (termsafe.Escape): they
// quote the document's own names, actions, resources and condition values,
// which must not start a forged line or hide the rest of one.
func WriteText(w io.Writer, findings []Finding, sum Summary, one, many string) error {
	var b strings.Builder
	for _, f := range findings {
		b.WriteString(f.Severity.String() + " " + f.ID)
		if f.Policy != "" {
			b.WriteString(" " + termsafe.Escape(f.Policy))
		}
		if f.Path != "" {
			b.WriteString(" " + termsafe.Escape(f.Path))
		}
		b.WriteString(": " + termsafe.Escape(f.Message))
		if f.Fix != "" {
			b.WriteString(" (fix: " + termsafe.Escape(f.Fix) + ")")
		}
		b.WriteByte('\n')
	}
	noun := many
	if sum.Policies == 1 {
		noun = one
	}
	if len(findings) == 0 {
		fmt.Fprintf(&b, "no findings in %d %s\n", sum.Policies, noun)
	} else {
		var counts []string
		for s := Critical; s >= Info; s-- {
			if n := sum.BySeverity[s.String()]; n > 0 {
				counts = append(counts, fmt.Sprintf("%d %s", n, s))
			}
		}
		findingNoun := "findings"
		if len(findings) == 1 {
			findingNoun = "finding"
		}
		fmt.Fprintf(&b, "%d %s in %d %s (%s); %d at or above --fail-on %s\n",
			len(findings), findingNoun, sum.Policies, noun, strings.Join(counts, ", "), sum.Failing, sum.FailOn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
