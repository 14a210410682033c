package simulate

import (
	"fmt"

	"leash.dev/leash/policy"
)

// Outcome is the answer to one case, in input order.
type Outcome struct {
	Principal  string                `json:"principal,omitempty"`
	Action     string                `json:"action"`
	Resource   string                `json:"resource,omitempty"`
	Decision   string                `json:"decision"`
	Statements []policy.StatementRef `json:"statements"`
	Reasons    []policy.Reason       `json:"reasons"`
}

// Run compiles every case first, so that bad input is reported before any
// answer, then evaluates them in order.
func Run(cases []Case, source string) ([]Outcome, error) {
	compiled := make([]*Compiled, len(cases))
	for i := range cases {
		path := cases[i].path
		if path == "" && len(cases) > 1 {
			path = fmt.Sprintf("[%d]", i)
		}
		c, err := cases[i].Compile(source, path)
		if err != nil {
			return nil, err
		}
		compiled[i] = c
	}
	out := make([]Outcome, len(cases))
	for i, c := range compiled {
		res := c.Policies.Explain(&c.Request)
		out[i] = Outcome{
			Principal:  c.Request.Principal,
			Action:     c.Request.Action,
			Resource:   c.Request.Resource,
			Decision:   res.Decision.String(),
			Statements: res.Statements,
			Reasons:    res.Reasons,
		}
	}
	return out, nil
}

// AllAllowed reports whether every outcome is Allowed.
func AllAllowed(out []Outcome) bool {
	for _, o := range out {
		if o.Decision != policy.Allowed.String() {
			return false
		}
	}
	return true
}
