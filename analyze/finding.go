// Package analyze reviews IAM policies: validation against AWS's catalog of
// actions, least-privilege and privilege-escalation findings, trust policy
// checks, assertions for CI, diffs and unions. It never calls AWS; the
// policies come in parsed by package policy.
package analyze

import "fmt"

// Severity orders findings; --fail-on picks the lowest that fails a run.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = [...]string{"info", "low", "medium", "high", "critical"}

func (s Severity) String() string {
	if s < Info || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads a severity name as --fail-on takes it.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if n == s {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("severity %q: use info, low, medium, high or critical", s)
}

// MarshalText writes the name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Finding is one problem found in one policy.
type Finding struct {
	// ID is stable across releases, such as "LEASH-ESC-001"; tools and
	// suppressions key on it.
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	// Policy names the document: a file, a file and a request, or an IAM
	// policy's name or ARN.
	Policy string `json:"policy"`
	// Path is the JSON path of the offending element in the document, such
	// as Statement[2].Action[0].
	Path string `json:"path"`
	// Message says what is wrong, naming the actions and resources.
	Message string `json:"message"`
	// Fix says what to change.
	Fix string `json:"fix"`
}

func (f Finding) String() string {
	return fmt.Sprintf("%s %s %s %s: %s; fix: %s", f.Severity, f.ID, f.Policy, f.Path, f.Message, f.Fix)
}
