package simulate

import (
	"fmt"

	"leash.dev/leash/policy"
)

// DecisionError is the decision of a request that could not be decided:
// its Outcome's Error says why.
const DecisionError = "Error"

// Outcome is the answer to one case, in input order.
type Outcome struct {
	Principal  string                `json:"principal,omitempty"`
	Action     string                `json:"action"`
	Resource   string                `json:"resource,omitempty"`
	Decision   string                `json:"decision"`
	Statements []policy.StatementRef `json:"statements"`
	Reasons    []policy.Reason       `json:"reasons"`
	// Error is why a request was not decided (Decision is "Error"): the
	// source, the JSON path and the fix, as leash's messages for bad input.
	Error string `json:"error,omitempty"`
}

// Run compiles every case first, so that bad input is reported before any
// answer, then evaluates them in order.
func Run(cases []Case, source string) ([]Outcome, error) {
	compiled := make([]*Compiled, len(cases))
	for i := range cases {
		path := cases[i].where()
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
		out[i] = c.outcome()
	}
	return out, nil
}

// pending is a case of a stream with its fields checked and its policies
// parsed, or the error that stopped that; decide finishes it. The two halves
// run on different goroutines of the stream's pipeline.
type pending struct {
	c   *Case
	req policy.Request
	set policy.Set
	asm assembly
	err error
	// late is a case whose errors may need to know what follows it (the
	// first object of JSON Lines, see Reader): the reading goroutine cannot
	// wait for that, so decide prepares it.
	late bool
}

func prepare(c *Case, source string, cache *docCache) pending {
	p := pending{c: c}
	p.req, p.set, p.err = c.resolve(source, c.where, cache, &p.asm)
	return p
}

// decide answers the case: one that cannot be compiled gets an Outcome with
// Decision "Error" and the message, and the stream goes on.
func (p *pending) decide(source string) Outcome {
	if p.late {
		*p = prepare(p.c, source, nil)
	}
	err := p.err
	if err == nil {
		// Documents compiled by the cache are assembled; when one did not
		// compile, the case is parsed again without the cache (which keeps
		// no parsed documents that compiled) and compiling its Set words
		// the error.
		if policies, ok := p.asm.policies(); ok {
			c := Compiled{Request: p.req, Policies: policies}
			return c.outcome()
		}
		p.req, p.set, err = p.c.resolve(source, p.c.where, nil, nil)
	}
	if err == nil {
		var compiled *Compiled
		if compiled, err = compileSet(p.req, p.set, source, p.c.where); err == nil {
			return compiled.outcome()
		}
	}
	c := p.c
	return Outcome{Principal: c.Principal, Action: c.Action, Resource: c.Resource, Decision: DecisionError, Error: err.Error()}
}

func (c *Compiled) outcome() Outcome {
	res := c.Policies.Explain(&c.Request)
	return Outcome{
		Principal:  c.Request.Principal,
		Action:     c.Request.Action,
		Resource:   c.Request.Resource,
		Decision:   res.Decision.String(),
		Statements: res.Statements,
		Reasons:    res.Reasons,
	}
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
