// Package reference reads the policy engine's reference cases: requests
// written by hand, each with the decision the AWS IAM User Guide documents for
// it. They live in policy/testdata/reference; the engine's own tests check
// leash against them, and test/peer checks the peer engine against them.
package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"leash.dev/leash/internal/simulate"
)

// Case is one reference case.
type Case struct {
	// Name says the rule the case pins; names are unique across files, since
	// test/peer's KNOWN_DIFFERENCES.md refers to cases by name.
	Name string `json:"name"`
	// Expect is the documented decision: Allowed, ExplicitDeny or ImplicitDeny.
	Expect string `json:"expect"`
	// JSON is the request as written, a simulate.Case object.
	JSON json.RawMessage `json:"case"`
	// Source is the AWS documentation page that gives the decision, for
	// cases that pin a rule a reader may want to check.
	Source string `json:"source,omitempty"`

	// File is the file the case was read from.
	File string `json:"-"`
	// Request is JSON decoded by simulate.ReadCases, the decoder of
	// `leash simulate`.
	Request simulate.Case `json:"-"`
}

// Load reads every *.json file of dir, in name order.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no reference cases in %s", dir)
	}
	var all []Case
	where := map[string]string{}
	for _, f := range files {
		cases, err := loadFile(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			if where[c.Name] != "" {
				return nil, fmt.Errorf("%s: case %q is also in %s; names must be unique", f, c.Name, where[c.Name])
			}
			where[c.Name] = f
		}
		all = append(all, cases...)
	}
	return all, nil
}

// loadFile reads one file: a JSON array of cases.
func loadFile(f string) ([]Case, error) {
	data, err := os.ReadFile(f)
	if err != nil {
		return nil, err
	}
	var cases []Case
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	for i := range cases {
		c := &cases[i]
		c.File = f
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("%s: case [%d] has no name", f, i)
		case c.Expect != "Allowed" && c.Expect != "ExplicitDeny" && c.Expect != "ImplicitDeny":
			return nil, fmt.Errorf("%s: case %q: expect must be Allowed, ExplicitDeny or ImplicitDeny, got %q", f, c.Name, c.Expect)
		}
		reqs, err := simulate.ReadCases(c.JSON, f)
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", c.Name, err)
		}
		if len(reqs) != 1 {
			return nil, fmt.Errorf("%s: case %q: \"case\" must be one request object", f, c.Name)
		}
		c.Request = reqs[0]
	}
	return cases, nil
}

// Decide is leash's decision for c: Allowed, ExplicitDeny or ImplicitDeny.
func (c *Case) Decide() (string, error) {
	compiled, err := c.Request.Compile(c.File, c.Name)
	if err != nil {
		return "", err
	}
	return compiled.Policies.Decide(&compiled.Request).String(), nil
}
