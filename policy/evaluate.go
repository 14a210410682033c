package policy

import "strings"

// Decision is the outcome of an authorization request.
type Decision uint8

// The three outcomes AWS distinguishes.
const (
	// ImplicitDeny: nothing allowed the request (or a boundary, SCP or
	// session policy did not).
	ImplicitDeny Decision = iota
	// ExplicitDeny: a Deny statement matched, or a rule AWS applies outside
	// policies refused the request (servicerules.go); nothing can override it.
	ExplicitDeny
	// Allowed: every policy type that applies allowed the request.
	Allowed
)

func (d Decision) String() string {
	switch d {
	case Allowed:
		return "Allowed"
	case ExplicitDeny:
		return "ExplicitDeny"
	}
	return "ImplicitDeny"
}

// Evaluate compiles the set and decides one request, with its explanation.
// To decide many requests against the same policies, Compile once and call
// Decide or Explain.
func Evaluate(s Set, r *Request) (Result, error) {
	p, err := Compile(s)
	if err != nil {
		return Result{}, err
	}
	return p.Explain(r), nil
}

// Decide answers the request without an explanation. It does not allocate.
func (p *Policies) Decide(r *Request) Decision {
	return p.decide(r, nil)
}

// Explain answers the request and says why.
func (p *Policies) Explain(r *Request) Result {
	t := &trace{}
	d := p.decide(r, t)
	return t.result(d)
}

// input is a request prepared for evaluation.
type input struct {
	action   string
	resource string
	// resParts is the resource split into ARN parts, when resIsARN.
	resParts [6]string
	resIsARN bool
	caller   caller
	ctx      *Context
	// hasBoundary is set when the caller has a permissions boundary.
	hasBoundary bool
}

// docResult is what one document says about a request.
type docResult struct {
	allow bool
	deny  bool
	// allowedBy is, for documents that name principals, the strongest way an
	// allowing statement named the caller.
	allowedBy principalMatch
}

func (d *compiledDoc) eval(in *input, t *trace) docResult {
	var r docResult
	for i := range d.stmts {
		s := &d.stmts[i]
		m := s.applies(in, d, t)
		if m == noPrincipalMatch {
			continue
		}
		if s.effect == Deny {
			r.deny = true
			t.matched(d, s)
			continue
		}
		r.allow = true
		if m > r.allowedBy {
			r.allowedBy = m
		}
		t.matched(d, s)
	}
	return r
}

// applies reports whether the statement covers the request, and how it names
// the caller (matchDirect for policies that name no principal).
func (s *compiledStmt) applies(in *input, d *compiledDoc, t *trace) principalMatch {
	if !s.matchesAction(in.action) || !s.matchesResource(in) {
		return noPrincipalMatch
	}
	m := matchDirect
	if s.principal != nil {
		pm := s.principal.match(&in.caller)
		if s.notPrincipal {
			// NotPrincipal spares only a caller it names itself: naming the
			// account or the role does not spare a user or a session, since
			// AWS identifies an assumed-role user by its session name
			// (IAM User Guide, "AWS JSON policy elements: NotPrincipal").
			// A caller given as a role ARN stands for some session of the
			// role, so naming the role does not spare it either. A Deny
			// with NotPrincipal always applies to a principal that has a
			// permissions boundary.
			if (pm == matchDirect || pm == matchEveryone) && !(in.hasBoundary && s.effect == Deny) {
				return noPrincipalMatch
			}
		} else if pm == noPrincipalMatch {
			return noPrincipalMatch
		} else {
			m = pm
		}
	}
	for i := range s.conds {
		c := &s.conds[i]
		if ok, why := c.eval(in.ctx); !ok {
			t.conditionFailed(d, s, c, why, in.ctx)
			return noPrincipalMatch
		}
	}
	return m
}

func (s *compiledStmt) matchesAction(action string) bool {
	for i := range s.actions {
		if s.actions[i].match(action, nil, true) {
			return !s.notAction
		}
	}
	return s.notAction
}

func (s *compiledStmt) matchesResource(in *input) bool {
	if s.anyResource {
		return true
	}
	for i := range s.resources {
		if s.resources[i].matchParts(in.resource, &in.resParts, in.resIsARN, in.ctx) {
			return !s.notResource
		}
	}
	return s.notResource
}

// levelsResult evaluates organization policies: every level needs an allow.
// implicitAllow adds AWS's always-attached full-access policy to each level
// (RCPFullAWSAccess), so that only denies count.
func levelsResult(levels [][]*compiledDoc, in *input, t *trace, kind Kind, implicitAllow bool) (allowed, denied bool) {
	allowed = true
	for li, level := range levels {
		levelAllows := implicitAllow
		for _, d := range level {
			r := d.eval(in, t)
			denied = denied || r.deny
			levelAllows = levelAllows || r.allow
		}
		if !levelAllows {
			allowed = false
			t.blocked(kind, li, level)
		}
	}
	return allowed, denied
}

func (p *Policies) decide(r *Request, t *trace) Decision {
	var in input
	in.action, in.resource, in.ctx, in.hasBoundary = r.Action, r.Resource, &r.Context, p.boundary != nil
	in.caller.parse(r.Principal)
	if in.resource == "" {
		in.resource = "*"
	}
	in.resIsARN = splitARNInto(in.resource, &in.resParts)
	c := &in.caller

	// Some requests AWS refuses whatever the policies say (servicerules.go).
	if rule := matchServiceRule(&in); rule != nil {
		t.refused(rule)
		return ExplicitDeny
	}

	// sts:GetCallerIdentity needs no permission and cannot be denied.
	if len(in.action) == len("sts:GetCallerIdentity") && strings.EqualFold(in.action, "sts:GetCallerIdentity") && c.kind != callerUnknown {
		t.note(noteCallerIdentity)
		return Allowed
	}

	resourceAccount := r.ResourceAccount
	if resourceAccount == "" {
		if in.resIsARN {
			resourceAccount = in.resParts[4]
		}
	}
	// AWS managed policies (arn:aws:iam::aws:policy/...) belong to no
	// customer account and every account reads them with its own identity
	// policies: they are not a cross-account resource.
	if resourceAccount == "" || resourceAccount == "aws" {
		resourceAccount = c.account
	}
	iamPrincipal := c.kind != callerService && c.kind != callerWebIdentity

	// Neither SCPs nor RCPs restrict a service-linked role (servicelinked.go).
	orgPolicies := !c.serviceLinked
	denied := false
	scpAllowed, rcpAllowed := true, true
	var d bool
	if iamPrincipal && orgPolicies {
		scpAllowed, d = levelsResult(p.scps, &in, t, SCP, false)
		denied = denied || d
	}
	if orgPolicies {
		rcpAllowed, d = levelsResult(p.rcps, &in, t, RCP, true)
		denied = denied || d
	}

	// The account root user has every permission in its account, limited
	// only by denies and SCPs.
	idAllow := c.kind == callerRoot
	if iamPrincipal {
		for _, doc := range p.identity {
			r := doc.eval(&in, t)
			idAllow = idAllow || r.allow
			denied = denied || r.deny
		}
	}
	var res docResult
	if p.resource != nil {
		res = p.resource.eval(&in, t)
		denied = denied || res.deny
	}
	boundaryAllow, sessionAllow := true, true
	if iamPrincipal && p.boundary != nil {
		b := p.boundary.eval(&in, t)
		boundaryAllow = b.allow
		denied = denied || b.deny
	}
	if iamPrincipal && p.session != nil {
		s := p.session.eval(&in, t)
		sessionAllow = s.allow
		denied = denied || s.deny
	}

	if denied {
		return ExplicitDeny
	}
	// Without a principal, the request is taken to come from the
	// resource's own account.
	sameAccount := r.Principal == "" || (c.account != "" && c.account == resourceAccount)
	g := grant{
		sameAccount: sameAccount, iamPrincipal: iamPrincipal,
		explicitTrust: sameAccount && explicitTrust(&in, p.resource != nil),
		idAllow:       idAllow, res: res, boundaryAllow: boundaryAllow, sessionAllow: sessionAllow,
	}
	granted := g.granted(t)
	if !scpAllowed || !rcpAllowed || !granted {
		return ImplicitDeny
	}
	return Allowed
}

// grant holds what each policy type said, once no explicit deny applies.
type grant struct {
	sameAccount, iamPrincipal, explicitTrust bool
	idAllow, boundaryAllow, sessionAllow     bool
	res                                      docResult
}

// granted combines identity-based and resource-based allows with the
// boundary and the session policy, by AWS's same-account and cross-account
// rules.
func (g *grant) granted(t *trace) bool {
	if !g.iamPrincipal {
		// Services and web identity providers have only the resource policy
		// (a role's trust policy, for AssumeRoleWithWebIdentity).
		if g.res.allowedBy >= matchEveryone {
			return true
		}
		t.missing(missingResourceAllow)
		return false
	}
	// A resource policy that names the user, role session or federated user
	// itself grants on its own in the same account: AWS applies neither the
	// boundary nor the session policy to that grant. One that grants to
	// everyone ("*") also stands without an identity policy or boundary, but
	// AWS exempts from session policies only principals named by ARN.
	if g.sameAccount && g.res.allowedBy == matchDirect {
		return true
	}
	if g.sameAccount && g.res.allowedBy == matchEveryone {
		if !g.sessionAllow {
			t.missing(missingSessionAllow)
		}
		return g.sessionAllow
	}
	// Otherwise the identity side must allow, unless (same account) the
	// resource policy names the caller's role; the boundary and the session
	// policy then still apply.
	var ok bool
	switch {
	case g.sameAccount && g.explicitTrust:
		// Role trust and KMS key policies must allow the account explicitly;
		// an identity policy alone is not enough.
		ok = (g.idAllow && g.res.allowedBy >= matchAccount) || g.res.allowedBy == matchRole
		if !ok {
			t.missing(missingExplicitTrust)
		}
	case g.sameAccount:
		ok = g.idAllow || g.res.allowedBy == matchRole
	default:
		// Across accounts both sides must allow: the resource policy must
		// name the caller or its account, and the caller's policies must allow.
		ok = g.idAllow && g.res.allow
		if !g.res.allow {
			t.missing(missingCrossAccountResource)
		}
	}
	if !g.idAllow && g.res.allowedBy < matchRole {
		t.missing(missingIdentityAllow)
	}
	if !g.boundaryAllow {
		t.missing(missingBoundaryAllow)
	}
	if !g.sessionAllow {
		t.missing(missingSessionAllow)
	}
	return ok && g.boundaryAllow && g.sessionAllow
}

// explicitTrust reports whether the resource's own policy must grant access
// even within its account: a role's trust policy for the sts:AssumeRole*
// family with sts:TagSession and sts:SetSourceIdentity, and a KMS key
// policy. When the request carries no resource policy
// for a role, the caller's identity policies decide, as AWS's own simulator
// does; a KMS key always has a key policy, so without one nothing is allowed.
func explicitTrust(in *input, haveResourcePolicy bool) bool {
	a := in.action
	if len(a) < 4 || (lower(a[0]) != 's' && lower(a[0]) != 'k') {
		return false // neither sts: nor kms:
	}
	svc, name, _ := strings.Cut(a, ":")
	switch {
	case strings.EqualFold(svc, "sts"):
		// Session tags and source identity are set while assuming the role,
		// so the trust policy must allow them too.
		return haveResourcePolicy && (len(name) >= len("AssumeRole") && strings.EqualFold(name[:len("AssumeRole")], "AssumeRole") ||
			strings.EqualFold(name, "TagSession") || strings.EqualFold(name, "SetSourceIdentity"))
	case strings.EqualFold(svc, "kms"):
		return in.resIsARN && strings.HasPrefix(in.resParts[5], "key/")
	}
	return false
}
