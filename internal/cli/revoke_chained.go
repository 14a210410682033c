package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/internal/termsafe"
)

// listChained lists the sessions chained from the ones r revoked: the
// roles they assumed, from the trail (--data, --trail-dir, or else the
// LookupEvents API of the endpoint revoked in). In text it prints them, or
// that none was found, or why the trail could not be read; only
// --follow-chained makes an unreadable trail an error.
func listChained(ctx context.Context, o revokeOptions, r *revoke.Revocation) ([]cloudtrail.Chain, error) {
	if r.Lift {
		return nil, nil
	}
	text := o.output == "text"
	src, from, err := revokeTrail(ctx, o)
	var chains []cloudtrail.Chain
	if err == nil {
		// A session issued before the cutoff began at most the longest
		// session before it, and a role session it assumed lasts at most
		// AWS's longest after that.
		since := r.Cutoff.Add(-r.LongestSession.Duration() - revoke.RoleSessionMax)
		chains, err = cloudtrail.Chained(ctx, src, r.Principal, since, r.Cutoff)
	}
	if err != nil {
		if o.followChained {
			return nil, &revoke.Refusal{Msg: fmt.Sprintf("--follow-chained: the trail (%s) could not be read, so the roles the revoked sessions assumed are unknown: %v", from, err)}
		}
		if text {
			fmt.Fprintf(o.stdout, "Sessions chained from the revoked ones were not listed: the trail (%s) could not be read: %v\n", from, err)
		}
		return nil, nil
	}
	if !text {
		return chains, nil
	}
	if len(chains) == 0 {
		fmt.Fprintf(o.stdout, "No session chained from the revoked ones in the trail (%s).\n", from)
		return nil, nil
	}
	fmt.Fprintf(o.stdout, "Sessions chained from the revoked ones (from %s): the deny does not end them, as in AWS, and one of them can undo it:\n", from)
	for _, c := range chains {
		issued := "a long-term key"
		if !c.Issued.IsZero() {
			issued = "a session issued " + c.Issued.Format(time.RFC3339)
		}
		fmt.Fprintf(o.stdout, "  %s assumed at %s by %s (%s)\n", termsafe.Escape(c.Role), c.At.Format(time.RFC3339), termsafe.Escape(c.By), issued)
	}
	if !o.followChained {
		fmt.Fprintln(o.stdout, "Revoke their roles too: run the same command with --follow-chained.")
	}
	return chains, nil
}

// revokeTrail is the trail chained sessions are read from, and its name.
func revokeTrail(ctx context.Context, o revokeOptions) (cloudtrail.Source, string, error) {
	a := auditOptions{data: o.data, trailDir: o.trailDir, getenv: o.getenv}
	from := ""
	switch {
	case o.data != "":
		from = "leash local's audit log in " + o.data
	case o.trailDir != "":
		from = "CloudTrail files under " + o.trailDir
	case o.endpoint != "":
		a.endpoint, a.credentialsFile, a.profile = o.endpoint, o.credentialsFile, o.profile
		from = "LookupEvents of " + o.endpoint
	default:
		a.fromAWS, a.credentialsFile, a.profile = true, o.credentialsFile, o.profile
		from = "CloudTrail LookupEvents"
	}
	src, err := auditSource(ctx, a, func(string, error) {})
	return src, from, err
}

// followChained revokes the role of every chained session (with
// --follow-chained), each as --role ARN would, and reports those it could
// not revoke together at the end.
func followChained(ctx context.Context, o revokeOptions, iam *iamclient.Client, chains []cloudtrail.Chain) error {
	if !o.followChained {
		return nil
	}
	var failed []string
	for _, c := range chains {
		fmt.Fprintf(o.stdout, "\nChained: revoke role %s\n", termsafe.Escape(c.Role))
		r, err := revoke.Plan(ctx, iam, revoke.Options{Kind: revoke.Role, Name: c.Role})
		if err == nil {
			printPlan(o.stdout, r)
			err = r.Apply(ctx, func(s *revoke.Step) { fmt.Fprintf(o.stdout, "  ✓ %s %s\n", s.Call, termsafe.Escape(s.On)) })
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", c.Role, err))
			continue
		}
		printLift(o.stdout, r, o.iamAccess)
	}
	if len(failed) > 0 {
		return &revoke.Refusal{Msg: "--follow-chained: these roles were not revoked: " + strings.Join(failed, "; ")}
	}
	return nil
}
