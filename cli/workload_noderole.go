package cli

import (
	"errors"
	"fmt"
	"os"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// readNodeRole reads the node role's policy documents (--node-role-policy)
// and checks the allow-list (--node-role-only) names catalog actions, so
// that a misspelt pattern is refused rather than passing nothing.
func readNodeRole(files, only []string) ([]policy.Named, error) {
	if len(only) == 0 {
		return nil, &inputerr.Error{Source: "--node-role-only", Msg: "give at least one action pattern, such as 'ec2:Describe*'"}
	}
	cat := catalog.Default()
	for _, p := range only {
		if len(cat.Expand(p)) == 0 {
			return nil, &inputerr.Error{Source: "--node-role-only", Msg: analyze.NoMatch(cat, p)}
		}
	}
	var out []policy.Named
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, &inputerr.Error{Source: "--node-role-policy", Msg: fmt.Sprintf("%s: %v", f, errors.Unwrap(err))}
		}
		doc, err := policy.Parse(data, policy.Identity)
		if err != nil {
			return nil, &inputerr.Error{Source: "--node-role-policy", Msg: fmt.Sprintf("%s: %v (give an IAM policy document in JSON)", f, err)}
		}
		out = append(out, policy.Named{Name: f, Document: doc})
	}
	return out, nil
}
