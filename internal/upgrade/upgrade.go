// Package upgrade answers, before a cluster upgrade, whether the next
// release's CredentialsRequests find the permissions they need in the
// credentials the cluster holds now. For each request it asks leash's engine
// whether the current principal's policies (its permissions boundary
// included) allow every action, resource and condition the next request's
// statements grant, and lists those they do not, with the engine's reason.
// Check reads no cluster and no IAM itself: the caller says where each
// current principal is and how to read its policies (StatusPrincipal and
// IAMReader for a cluster's requests), so the CLI (from a folder or a
// cluster) and the operator ask the same question.
package upgrade

import (
	"context"
	"errors"
	"fmt"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// State is a request's answer.
type State string

// The states, as --output json writes them.
const (
	// OK: the current principal allows everything the next request grants.
	OK State = "ok"
	// Missing: it lacks some of it; the upgrade would break the request.
	Missing State = "missing"
	// New: no current request of that name; it is provisioned at upgrade.
	New State = "new"
	// Ignored: the request is for another cloud, as the operator ignores it.
	Ignored State = "ignored"
	// Failed: the request could not be checked; the message says why and
	// what to do.
	Failed State = "failed"
)

// Request is one request of the next release.
type Request struct {
	Namespace, Name string
	// Policy is what the request's statementEntries grant; nil when
	// Ignored or Invalid says why it is not checked.
	Policy *policy.Document
	// Ignored says why a request for another cloud is left alone.
	Ignored string
	// Invalid says why the request cannot be provisioned as written (a
	// template left unrendered), naming the field.
	Invalid string
}

// Principal is the IAM user or role whose credentials a request holds now.
type Principal struct {
	Kind string // "user" or "role", as iamclient.LoadPolicies takes it
	Name string // its name, or its ARN
	// Note says why this principal stands for the request when it is not
	// the request's own, such as the root credentials of a Passthrough one.
	Note string
}

// Held is a principal's ARN and the policies IAM holds for it.
type Held struct {
	ARN string
	iamclient.ParsedPolicies
}

// Find returns the principal of the current request NAMESPACE/NAME:
// ErrNew when there is no such request, a *Failure when it cannot be
// checked (not provisioned yet). Any other error stops the check.
type Find func(ctx context.Context, namespace, name string) (Principal, error)

// Read returns a principal's policies: a *Failure when they cannot be
// read for a reason the person can fix (IAM has no such principal). Any
// other error stops the check.
type Read func(ctx context.Context, p Principal) (Held, error)

// ErrNew is Find's answer for a request the cluster does not hold yet.
var ErrNew = errors.New("no current request")

// Failure is a request that cannot be checked, and what to do about it.
type Failure struct{ Msg string }

func (f *Failure) Error() string { return f.Msg }

// Result is one next request's answer.
type Result struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Principal is the current principal's ARN (its name when IAM did not
	// give one); empty when there is none.
	Principal string       `json:"principal,omitempty"`
	State     State        `json:"state"`
	Missing   []Permission `json:"missing"`
	// Message is why a request is ignored, new or failed, or a note on the
	// principal it was checked against.
	Message string `json:"message,omitempty"`
}

// Permission is one action, resource and condition a next request grants
// and its current principal does not allow, and the engine's reason.
type Permission struct {
	Action   string `json:"action"`
	Resource string `json:"resource"`
	// Condition is the request context asked with, as key=value pairs.
	Condition string `json:"condition,omitempty"`
	Reason    string `json:"reason"`
}

// Check answers every next request, in order. It stops only on an error
// that is not a request's own (IAM unreachable, credentials refused).
func Check(ctx context.Context, next []Request, find Find, read Read) ([]Result, error) {
	expand := analyze.ActionExpander(catalog.Default())
	out := make([]Result, 0, len(next))
	for _, r := range next {
		res, err := check(ctx, r, find, read, expand)
		if err != nil {
			return nil, fmt.Errorf("CredentialsRequest %s/%s: %w", r.Namespace, r.Name, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func check(ctx context.Context, r Request, find Find, read Read, expand func(string) []string) (Result, error) {
	res := Result{Namespace: r.Namespace, Name: r.Name, Missing: []Permission{}}
	fail := func(err error) (Result, error) {
		var f *Failure
		if !errors.As(err, &f) {
			return res, err
		}
		res.State, res.Message = Failed, f.Msg
		return res, nil
	}
	switch {
	case r.Ignored != "":
		res.State, res.Message = Ignored, r.Ignored
		return res, nil
	case r.Invalid != "":
		res.State, res.Message = Failed, r.Invalid
		return res, nil
	}
	p, err := find(ctx, r.Namespace, r.Name)
	if errors.Is(err, ErrNew) {
		res.State, res.Message = New, "provisioned at upgrade"
		return res, nil
	}
	if err != nil {
		return fail(err)
	}
	res.Principal, res.Message = p.Name, p.Note
	held, err := read(ctx, p)
	if err != nil {
		return fail(err)
	}
	if held.ARN != "" {
		res.Principal = held.ARN
	}
	// The boundary is compiled with the identity policies: an action it
	// does not allow is missing however the identity policies grant it.
	compiled, err := policy.Compile(held.Set())
	if err != nil {
		return fail(&Failure{Msg: fmt.Sprintf("the policies IAM holds for %s do not compile: %v", res.Principal, err)})
	}
	seen := map[Permission]bool{}
	for _, g := range analyze.Ask(compiled, res.Principal, analyze.Questions(r.Policy, expand)) {
		m := Permission{Action: g.Action, Resource: g.Resource, Condition: g.Context, Reason: g.Why}
		if !seen[m] { // two statements may grant the same action
			seen[m] = true
			res.Missing = append(res.Missing, m)
		}
	}
	res.State = OK
	if len(res.Missing) > 0 {
		res.State = Missing
	}
	return res, nil
}
