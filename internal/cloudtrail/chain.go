package cloudtrail

import (
	"context"
	"encoding/json"
	"time"

	"leash.dev/leash/localaws/audit"
)

// Chain is a session chained from a revoked principal: a call to
// sts:AssumeRole that the principal or a session derived from it made, and
// the role it assumed. A session deny on the principal does not end the
// role session such a call issued: AWS evaluates it with the assumed
// role's policies, not the caller's.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
type Chain struct {
	// Role is the ARN of the role assumed.
	Role string `json:"role"`
	// By is the caller's ARN.
	By string `json:"by"`
	// At is when the call was made.
	At time.Time `json:"at"`
	// Issued is when the caller's session was issued; zero for a
	// long-term key.
	Issued time.Time `json:"callerIssued,omitzero"`
}

// Chained lists the roles assumed by principal and the sessions derived
// from it before cutoff, and, following each such role in turn, by that
// role's sessions since it was first assumed so: every role whose sessions
// descend from credentials the revocation ends. Calls since since are
// read; a failed call assumed nothing. Each role is listed once, with the
// first call that assumed it, in the order found.
func Chained(ctx context.Context, src Source, principal string, since, cutoff time.Time) ([]Chain, error) {
	var calls []*audit.Event
	err := Collect(ctx, src, audit.Filter{Since: since, EventName: "AssumeRole"}, func(e *audit.Event) error {
		if e.EventSource == "sts.amazonaws.com" && e.EventName == "AssumeRole" && e.ErrorCode == "" && assumedRole(e) != "" {
			calls = append(calls, e)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []Chain
	// from is each principal followed, with the time from which its
	// sessions' calls count.
	from := map[string]time.Time{principal: {}}
	order := []string{principal}
	for i := 0; i < len(order); i++ {
		p, start := order[i], from[order[i]]
		for _, e := range calls {
			id := &e.UserIdentity
			if !audit.Selects(p, id) || e.EventTime.Before(start) {
				continue
			}
			// The revoked principal's own calls count when made with what
			// the revocation ends: a session issued before the cutoff, or a
			// key before the cutoff.
			if p == principal && (id.SessionContext != nil && !id.IssuedBefore(cutoff) || id.SessionContext == nil && !e.EventTime.Before(cutoff)) {
				continue
			}
			role := assumedRole(e)
			if _, seen := from[role]; seen {
				continue
			}
			from[role] = e.EventTime
			order = append(order, role)
			c := Chain{Role: role, By: id.ARN, At: e.EventTime.UTC()}
			if id.SessionContext != nil {
				c.Issued = id.SessionContext.Attributes.CreationDate.UTC()
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// assumedRole is the ARN of the role an AssumeRole call names: the
// resource leash local authorized it against, else CloudTrail's request
// parameters or resources.
func assumedRole(e *audit.Event) string {
	if arn := e.AuthorizedResource(); arn != "" {
		return arn
	}
	var p struct {
		RoleArn string `json:"roleArn"`
	}
	if len(e.RequestParameters) > 0 && json.Unmarshal(e.RequestParameters, &p) == nil && p.RoleArn != "" {
		return p.RoleArn
	}
	for _, r := range e.Resources {
		if r.Type == "AWS::IAM::Role" {
			return r.ARN
		}
	}
	return ""
}
