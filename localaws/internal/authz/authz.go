// Package authz decides whether the local endpoint serves a request: it
// builds the request context AWS would build for the caller, asks the
// policy engine, and words a denial as AWS does. It holds no evaluation
// logic of its own; package policy decides.
package authz

import (
	"strconv"
	"strings"
	"time"

	"leash.dev/leash/policy"
)

// Caller is an authenticated principal with everything that bears on what
// it may do.
type Caller struct {
	// ARN is the user ARN or the assumed-role session ARN.
	ARN     string
	Account string
	// UserID is aws:userid: the user's ID, or "ROLEID:session" for a role
	// session.
	UserID string
	// Tags are the principal's tags: the user's, or the role's overlaid
	// with the session's.
	Tags map[string]string
	// Policies are the caller's identity policies, boundary and session
	// policy, compiled (see Cache).
	Policies *policy.Policies
	// TokenIssueTime is when temporary credentials were issued; zero for
	// long-term keys.
	TokenIssueTime time.Time
	// SourceIdentity is the role session's source identity, "" for none.
	// It is aws:SourceIdentity on every request the session makes.
	SourceIdentity string
}

// Request is one call to authorize.
type Request struct {
	Caller   *Caller
	Action   string
	Resource string
	// ResourceAccount owns the resource when it is not the account in its
	// ARN; empty means the ARN's.
	ResourceAccount string
	// Region is the region of the request's signature scope.
	Region   string
	SourceIP string
	Secure   bool
	Now      time.Time
	// Keys are the action's own condition keys, such as aws:RequestTag/team,
	// aws:TagKeys, iam:PassedToService or iam:PermissionsBoundary.
	Keys map[string][]string
}

// Context builds the request context AWS provides for the call: the
// caller's keys, the time, the network and the action's own keys.
func (r *Request) Context() policy.Context {
	var ctx policy.Context
	c := r.Caller
	ctx.AddPrincipalKeys(c.ARN)
	ctx.Set("aws:PrincipalAccount", c.Account)
	if c.UserID != "" {
		ctx.Set("aws:userid", c.UserID)
	}
	for k, v := range c.Tags {
		ctx.Set("aws:PrincipalTag/"+k, v)
	}
	now := r.Now.UTC()
	ctx.Set("aws:CurrentTime", now.Format(time.RFC3339))
	ctx.Set("aws:EpochTime", strconv.FormatInt(now.Unix(), 10))
	if !c.TokenIssueTime.IsZero() {
		ctx.Set("aws:TokenIssueTime", c.TokenIssueTime.UTC().Format(time.RFC3339))
	}
	if c.SourceIdentity != "" {
		ctx.Set("aws:SourceIdentity", c.SourceIdentity)
	}
	if r.SourceIP != "" {
		ctx.Set("aws:SourceIp", r.SourceIP)
	}
	ctx.Set("aws:SecureTransport", strconv.FormatBool(r.Secure))
	if r.Region != "" {
		ctx.Set("aws:RequestedRegion", r.Region)
	}
	for k, v := range r.Keys {
		if len(v) == 1 && !strings.EqualFold(k, "aws:TagKeys") {
			ctx.Set(k, v[0])
		} else {
			ctx.SetList(k, v)
		}
	}
	return ctx
}

// Denial is a refused request, worded as AWS words it.
type Denial struct {
	Decision policy.Decision
	Message  string
	Result   policy.Result
}

// Authorize decides the request with the given policies (the caller's, and
// the resource's when it has a policy, compiled as one set).
func Authorize(p *policy.Policies, r *Request) *Denial {
	req := policy.Request{Principal: r.Caller.ARN, Action: r.Action, Resource: r.Resource, ResourceAccount: r.ResourceAccount, Context: r.Context()}
	if p.Decide(&req) == policy.Allowed {
		return nil
	}
	res := p.Explain(&req)
	return &Denial{Decision: res.Decision, Message: Message(r.Caller.ARN, r.Action, r.Resource, res), Result: res}
}

// Message words a denial as AWS's AccessDenied does: who, what, on which
// resource, and the kind of policy that denied or did not allow it.
func Message(principal, action, resource string, res policy.Result) string {
	who := "User: " + principal
	if resource == "" {
		resource = "*"
	}
	head := who + " is not authorized to perform: " + action + " on resource: " + resource
	// A rule AWS applies outside policies is named with its page, since no
	// policy denied.
	for _, reason := range res.Reasons {
		if reason.Code == policy.ReasonServiceRule {
			return head + ": " + reason.Message
		}
	}
	if res.Decision == policy.ExplicitDeny {
		kind := "identity-based policy"
		if len(res.Statements) > 0 {
			kind = policyKindPhrase(res.Statements[0].PolicyType)
		}
		return head + " with an explicit deny in " + article(kind) + " " + kind
	}
	// The reasons come in AWS's order of evaluation; the first policy type
	// that did not allow is the one AWS names.
	kind := "identity-based policy"
reasons:
	for _, reason := range res.Reasons {
		switch reason.Code {
		case policy.ReasonSCPNoAllow:
			kind = "service control policy"
		case policy.ReasonRCPNoAllow:
			kind = "resource control policy"
		case policy.ReasonNoAllow:
			kind = "identity-based policy"
		case policy.ReasonBoundaryNoAllow:
			kind = "permissions boundary"
		case policy.ReasonSessionNoAllow:
			kind = "session policy"
		case policy.ReasonResourcePolicyNoAllow, policy.ReasonCrossAccountNoResource, policy.ReasonExplicitTrustRequired:
			kind = "resource-based policy"
		default:
			continue
		}
		break reasons
	}
	return head + " because no " + kind + " allows the " + action + " action"
}

func policyKindPhrase(policyType string) string {
	switch policyType {
	case policy.SCP.String():
		return "service control policy"
	case policy.RCP.String():
		return "resource control policy"
	case policy.Boundary.String():
		return "permissions boundary"
	case policy.Session.String():
		return "session policy"
	case policy.Resource.String(), policy.Trust.String():
		return "resource-based policy"
	}
	return "identity-based policy"
}

func article(noun string) string {
	if strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an"
	}
	return "a"
}
