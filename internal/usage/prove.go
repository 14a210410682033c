package usage

import (
	"fmt"
	"slices"

	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// Proof is the engine's answers on a proposal: every observed call the
// request covers, asked of the request and of the proposal; and every
// action the request allows that nothing used, asked of the proposal.
type Proof struct {
	Calls  []Check `json:"calls"`
	Unused []Check `json:"unused"`
}

// Check is one question and its answers. Request is empty for an unused
// action: only the proposal's answer matters there.
type Check struct {
	Action   string `json:"action"`
	Resource string `json:"resource"`
	// Region is the call's region, asked as aws:RequestedRegion.
	Region   string `json:"region,omitempty"`
	Request  string `json:"request,omitempty"`
	Proposal string `json:"proposal"`
}

// Failures are the answers that break the proposal's promise: an observed
// call the request allows and the proposal does not (or decided otherwise,
// for a call whose conditions the trail cannot settle), or an unused
// action the proposal allows. Empty when the proposal holds.
func (p *Proof) Failures() []string {
	var out []string
	for _, c := range p.Calls {
		if c.Proposal != c.Request {
			out = append(out, fmt.Sprintf("observed call %s on %s: the request decides %s, the proposal %s", c.Action, c.Resource, c.Request, c.Proposal))
		}
	}
	for _, c := range p.Unused {
		if c.Proposal == policy.Allowed.String() {
			out = append(out, fmt.Sprintf("unused action %s on %s: the proposal allows it", c.Action, c.Resource))
		}
	}
	return out
}

// Allowed counts the observed calls the proposal allows.
func (p *Proof) Allowed() int {
	n := 0
	for _, c := range p.Calls {
		if c.Proposal == policy.Allowed.String() {
			n++
		}
	}
	return n
}

// Prove asks the engine about the proposal. The calls are asked with what
// a trail tells of every call (the keys AWS derives from the principal,
// the region); a statement whose conditions need more decides alike in the
// request and the proposal, which keeps its conditions. An unused action
// is asked without a region: the proposal must refuse it on every
// resource the request names it on, and on "*", whatever the conditions.
func Prove(r *Report, request, proposal *policy.Document) (*Proof, error) {
	req, prop := newAsker("request", request), newAsker("proposal", proposal)
	var failed error
	decide := func(a *asker, action, resource, region string) string {
		d, err := a.decide(r.Principal, action, resource, region)
		if err != nil && failed == nil {
			failed = err
		}
		return d.String()
	}
	p := &Proof{}
	seen := map[[3]string]bool{}
	ask := func(action, resource, region string) bool {
		k := [3]string{action, resource, region}
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, s := range r.Statements {
		for _, a := range s.Actions {
			for _, u := range a.Used {
				regions := u.Regions
				if len(regions) == 0 {
					regions = []string{""}
				}
				for _, res := range u.Resources {
					for _, region := range regions {
						if ask(u.Action, res, region) {
							p.Calls = append(p.Calls, Check{Action: u.Action, Resource: res, Region: region,
								Request: decide(req, u.Action, cloudtrail.CalledResource(res), region), Proposal: decide(prop, u.Action, cloudtrail.CalledResource(res), region)})
						}
					}
				}
			}
		}
	}
	used := r.UsedActions()
	cat := catalog.Default()
	clear(seen)
	for _, s := range r.Statements {
		if s.Effect != string(policy.Allow) {
			continue
		}
		for _, a := range s.Actions {
			for _, action := range expand(cat, a.Written) {
				if slices.ContainsFunc(used, func(u string) bool { return policy.MatchAction(u, action) }) {
					continue
				}
				for _, res := range []string{s.Resource, "*"} {
					if ask(action, res, "") {
						p.Unused = append(p.Unused, Check{Action: action, Resource: res, Proposal: decide(prop, action, res, "")})
					}
				}
			}
		}
	}
	return p, failed
}

// expand is the actions a written action matches: the catalog's, or the
// action itself when the catalog knows none (a new action is still asked).
func expand(cat *catalog.Catalog, written string) []string {
	var out []string
	for _, a := range cat.Expand(written) {
		out = append(out, a.String())
	}
	if len(out) == 0 {
		out = []string{written}
	}
	return out
}
