package operator

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/termsafe"
)

// Applied is what leash apply did for one request.
type Applied struct {
	Request string
	Outcome Outcome
	// Err is a failure that outlived the client's retries.
	Err error
}

// Ready says whether the request's Secret holds working credentials.
func (a Applied) Ready() bool {
	return a.Err == nil && a.Outcome.Failure == nil && a.Outcome.Provisioned
}

// Ignored says whether the request is for another cloud: not ready, and not
// a failure either.
func (a Applied) Ignored() bool {
	return a.Err == nil && a.Outcome.Failure != nil && a.Outcome.Failure.Type == leashv1.Ignored
}

// Apply syncs each request once, in order, with the same code the operator
// runs in a cluster.
func Apply(ctx context.Context, p *Provisioner, requests []*leashv1.CredentialsRequest) []Applied {
	out := make([]Applied, 0, len(requests))
	for _, cr := range requests {
		o, err := p.Sync(ctx, cr)
		out = append(out, Applied{Request: cr.Namespace + "/" + cr.Name, Outcome: o, Err: err})
	}
	return out
}

// WriteTable prints one row per request (request, mode, principal, granted
// actions, state), then the message of every request that is not ready,
// what was not checked of every ready one, and the warnings (the PolicyWarnings condition's) of every request.
// The request's name and actions are the manifest's words and the
// principal and messages quote IAM's names: all are escaped
// (termsafe.Escape), so none can start a forged row or line. The mode is the
// one leash used (STS for a role, made or named), not status.mode's Manual:
// a person reading the table after create-roles made a role should see so.
func WriteTable(w io.Writer, applied []Applied) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REQUEST\tMODE\tPRINCIPAL\tGRANTED\tSTATE")
	for _, a := range applied {
		o := a.Outcome
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termsafe.Escape(a.Request), orDash(string(o.Mode)), orDash(termsafe.Escape(o.Principal)),
			termsafe.Escape(granted(o.Granted)), termsafe.Escape(state(a)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range applied {
		request := termsafe.Escape(a.Request)
		switch {
		case a.Err != nil:
			fmt.Fprintf(w, "\n%s: %s\n", request, termsafe.Escape(a.Err.Error()))
		case a.Outcome.Failure != nil:
			fmt.Fprintf(w, "\n%s: %s: %s\n", request, a.Outcome.Failure.Type, termsafe.Escape(a.Outcome.Failure.Message))
		case a.Outcome.Unchecked != "":
			fmt.Fprintf(w, "\n%s: not checked: %s\n", request, termsafe.Escape(a.Outcome.Unchecked))
		}
		for _, warning := range a.Outcome.Warnings {
			fmt.Fprintf(w, "\n%s: warning: %s\n", request, termsafe.Escape(warning))
		}
	}
	return nil
}

func state(a Applied) string {
	switch {
	case a.Err != nil:
		return "Error"
	case a.Ignored():
		return string(leashv1.Ignored)
	case a.Outcome.Failure != nil:
		return a.Outcome.Failure.Reason
	case a.Outcome.Provisioned && a.Outcome.Unchecked != "":
		return "Ready (" + ReasonRoleUnchecked + ")"
	case a.Outcome.Provisioned:
		return "Ready"
	}
	return "Pending"
}

// granted shortens a list of actions to its first two and a count.
func granted(actions []string) string {
	switch {
	case len(actions) == 0:
		return "-"
	case len(actions) <= 2:
		return strings.Join(actions, ",")
	}
	return fmt.Sprintf("%s,%s +%d more", actions[0], actions[1], len(actions)-2)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
