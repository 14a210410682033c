package iamclient

import (
	"context"
	"fmt"

	"leash.dev/leash/policy"
)

// ParsedPolicies are a user's or role's policies as leash's engine reads
// them: the identity policies (inline and attached, and a user's groups')
// and the permissions boundary, nil when it has none.
type ParsedPolicies struct {
	Identity []policy.Named
	Boundary *policy.Named
}

// Set is the policies as one policy set, ready to compile.
func (p ParsedPolicies) Set() policy.Set {
	var set policy.Set
	for _, n := range p.Identity {
		set.Add(policy.Identity, n)
	}
	if p.Boundary != nil {
		set.Add(policy.Boundary, *p.Boundary)
	}
	return set
}

// PolicyParseError is a policy IAM holds that leash's engine cannot parse,
// such as one using an element leash does not know yet.
type PolicyParseError struct {
	Kind string // "policy" or "permissions boundary"
	Name string // an inline policy's name or a managed policy's ARN
	Err  error
}

func (e *PolicyParseError) Error() string { return e.Kind + " " + e.Name + ": " + e.Err.Error() }

func (e *PolicyParseError) Unwrap() error { return e.Err }

// LoadPolicies reads from IAM and parses every policy that applies to the
// user or role (kind "user" or "role", as PrincipalName returns) of that
// name. A policy IAM holds but leash cannot parse is a *PolicyParseError;
// other errors are IAM's.
func (c *Client) LoadPolicies(ctx context.Context, kind, name string) (ParsedPolicies, error) {
	var pp PrincipalPolicies
	var err error
	switch kind {
	case "user":
		pp, err = c.UserPolicies(ctx, name)
	case "role":
		pp, err = c.RolePolicies(ctx, name)
	default:
		return ParsedPolicies{}, fmt.Errorf("iamclient: policies of a %q: only users and roles hold them", kind)
	}
	if err != nil {
		return ParsedPolicies{}, err
	}
	var out ParsedPolicies
	for _, d := range pp.Identity {
		doc, err := policy.Parse([]byte(d.Document), policy.Identity)
		if err != nil {
			return ParsedPolicies{}, &PolicyParseError{Kind: "policy", Name: d.Name, Err: err}
		}
		out.Identity = append(out.Identity, policy.Named{Name: d.Name, Document: doc})
	}
	if b := pp.Boundary; b != nil {
		doc, err := policy.Parse([]byte(b.Document), policy.Boundary)
		if err != nil {
			return ParsedPolicies{}, &PolicyParseError{Kind: "permissions boundary", Name: b.Name, Err: err}
		}
		out.Boundary = &policy.Named{Name: b.Name, Document: doc}
	}
	return out, nil
}
