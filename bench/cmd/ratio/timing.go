package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/policy"
)

// compiled is one request of the corpus ready for leash.
type compiled struct {
	policies *policy.Policies
	request  policy.Request
}

// compileCase turns a corpus case into leash requests through leash's own
// simulate contract, so that context values are read the way `leash
// simulate` reads them.
func compileCase(c Case) ([]compiled, error) {
	out := make([]compiled, len(c.Requests))
	for i, r := range c.Requests {
		sc := simulate.Case{
			Principal: r.Principal, Action: r.Action, Resource: r.Resource, ResourceAccount: r.AccountID,
			Context: r.Context,
		}
		for _, p := range c.IdentityPolicies {
			sc.IdentityPolicies = append(sc.IdentityPolicies, simulate.NamedDocument{Name: p.Name, Document: p.Document})
		}
		cc, err := sc.Compile("corpus", fmt.Sprintf("%s.requests[%d]", c.Name, i))
		if err != nil {
			return nil, err
		}
		out[i] = compiled{policies: cc.Policies, request: cc.Request}
	}
	return out, nil
}

// timing is the median time of one Decide over several rounds.
type timing struct {
	nsPerOp float64
	allocs  float64
}

// timeDecide times Decide over all requests of a case: a warm-up, then rounds
// of at least roundTime each; the result is the median round's time per
// request.
func timeDecide(reqs []compiled, rounds int, roundTime time.Duration) timing {
	pass := func(n int) time.Duration {
		start := time.Now()
		for range n {
			for i := range reqs {
				reqs[i].policies.Decide(&reqs[i].request)
			}
		}
		return time.Since(start)
	}
	// Warm up and find how many passes fill a round.
	n := 1
	for {
		if d := pass(n); d >= roundTime/4 {
			n = int(float64(n) * float64(roundTime) / float64(d))
			break
		}
		n *= 2
	}
	perOp := make([]float64, rounds)
	for r := range perOp {
		perOp[r] = float64(pass(n).Nanoseconds()) / float64(n*len(reqs))
	}
	slices.Sort(perOp)
	allocs := testing.AllocsPerRun(100, func() {
		for i := range reqs {
			reqs[i].policies.Decide(&reqs[i].request)
		}
	})
	return timing{nsPerOp: perOp[len(perOp)/2], allocs: allocs / float64(len(reqs))}
}
