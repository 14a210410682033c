package analyze

import (
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// Principal is one principal's policies as leash check reads them: its
// identity policies (files, or read from IAM), its permissions boundary (nil
// for none), a role's trust policy (nil for a user, or when the policies
// come from files), and its ARN when known ("" otherwise).
type Principal struct {
	Identity []policy.Named
	Boundary *policy.Named
	// Trust is who may assume the role: reviewed with Trust, never part of
	// what the principal is allowed.
	Trust *policy.Named
	ARN   string
	// SCPs are the service control policies over the principal's account,
	// one list per organization level, root first; the escalation analysis
	// applies them with the boundary.
	SCPs [][]policy.Named
}

// DefaultPrincipal is who the assertions ask about when the principal is
// not known: a user in AWS's documented example account.
const DefaultPrincipal = "arn:aws:iam::123456789012:user/principal"

// Check is everything leash check asks of a principal: Review of its
// policies (with escalation paths its boundary or SCPs refuse left out), validation of its boundary, review of a role's trust policy, and, when given, the Only allowlist
// (nil for none) and the assertions (about DefaultPrincipal when p.ARN is ""). The findings are sorted as Review sorts
// them. An error means the policies cannot be compiled for the assertions.
func Check(p Principal, only []string, asserts []Assertion, cat *catalog.Catalog) ([]Finding, error) {
	if cat == nil {
		cat = catalog.Default()
	}
	findings := review(p.Identity, PolicySet{Boundary: p.Boundary, SCPs: p.SCPs}, p.ARN, cat)
	if p.Boundary != nil {
		findings = append(findings, ReviewBoundary(*p.Boundary, cat)...)
	}
	if p.Trust != nil {
		findings = append(findings, ReviewTrust(*p.Trust, cat)...)
	}
	for _, level := range p.SCPs {
		for _, n := range level {
			// Like a boundary, an SCP grants nothing: only its names are
			// checked.
			findings = append(findings, Validate(n.Document, n.Name, cat)...)
		}
	}
	if len(only) > 0 {
		findings = append(findings, Only(p.Identity, only, cat)...)
	}
	if len(asserts) > 0 {
		askAs := p.ARN
		if askAs == "" {
			askAs = DefaultPrincipal
		}
		af, err := CheckAssertions(p.Identity, p.Boundary, askAs, asserts, cat)
		if err != nil {
			return nil, err
		}
		findings = append(findings, af...)
	}
	SortFindings(findings)
	return findings, nil
}
