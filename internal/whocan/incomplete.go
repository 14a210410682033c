package whocan

import (
	"leash.dev/leash/policy"
)

// anyIdentity is anyPermission compiled once as an identity policy: the
// Admin node's, and the stand-in for the identity policies a snapshot names
// but does not hold.
var anyIdentity = func() *policy.Compiled {
	c, err := policy.CompileOne(policy.Named{Name: "policies the snapshot lacks", Document: anyPermission}, policy.Identity)
	if err != nil {
		panic("whocan: any permission does not compile: " + err.Error())
	}
	return c
}()

// unknown reports whether a "no" for p is not known: the snapshot lacks
// identity policies of p (a managed policy, a group), and they could allow
// what the others do not. That is decided exactly, by asking again with an
// identity policy allowing everything beside p's known ones, under p's
// boundary, the organization's policies and the resource's policy: when
// even that is refused (a trust policy naming someone else, an SCP or
// boundary that refuses, a resource policy p is not in), the missing
// policies cannot change the answer. An explicit deny stands whatever they
// say. A missing boundary is taken as absent, which can only allow more
// than AWS does, so it alone never makes a "no" unknown.
func (a *asker) unknown(p *Principal, d policy.Decision) bool {
	if d != policy.ImplicitDeny || !missingIdentity(p) {
		return false
	}
	wide := *p
	wide.identity = append(append([]*policy.Compiled(nil), p.identity...), anyIdentity)
	return a.decide(&wide) == policy.Allowed
}

// missingIdentity reports whether the snapshot lacks any identity policy
// of p: anything it lacks but a boundary.
func missingIdentity(p *Principal) bool {
	boundary := ""
	switch {
	case p.user != nil:
		boundary = p.user.Boundary
	case p.role != nil:
		boundary = p.role.Boundary
	}
	missing := len(p.Incomplete)
	if boundary != "" && p.boundary == nil {
		missing-- // the boundary's note
	}
	return missing > 0
}

// unknownPath reports whether, with --escalation, a "no" for p is not
// known though its known policies give it no path: when any permission
// reaches the answer, the identity policies the snapshot lacks could give
// p a path to it (iam:CreateAccessKey for an allowed user, a policy on
// itself), whatever they allow directly.
func unknownPath(p *Principal, d policy.Decision) bool {
	return d == policy.ImplicitDeny && missingIdentity(p)
}
