package usage

import (
	"fmt"

	"leash.dev/leash/analyze"
	"leash.dev/leash/policy"
)

// asker asks the engine about calls under one identity policy; a call on a
// KMS key is asked under the key's default key policy, as leash diff asks
// (analyze.UnderKeyPolicy): the question a request's statements answer.
type asker struct {
	name     string
	doc      *policy.Document
	compiled *policy.Policies
}

func newAsker(name string, doc *policy.Document) *asker {
	return &asker{name: name, doc: doc}
}

// decide asks about one call of principal, with what a trail tells of
// every call: the keys AWS derives from the caller, and the region the
// call was made in ("" for none).
func (a *asker) decide(principal, action, resource, region string) (policy.Decision, error) {
	if a.compiled == nil {
		var set policy.Set
		set.Add(policy.Identity, policy.Named{Name: a.name, Document: a.doc})
		p, err := policy.Compile(set)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", a.name, err)
		}
		a.compiled = p
	}
	req := &policy.Request{Principal: principal, Action: action, Resource: resource}
	req.Context.AddPrincipalKeys(principal)
	if region != "" {
		req.Context.Set("aws:RequestedRegion", region)
	}
	return analyze.UnderKeyPolicy(a.compiled, false, action, resource).Decide(req), nil
}
