package policy

import "strings"

// callerKind is what sort of principal makes a request.
type callerKind uint8

const (
	callerUnknown callerKind = iota
	callerUser
	callerRoleSession
	callerFederatedUser
	callerRoot
	callerRole // a role ARN given as the caller; AWS sees sessions, not roles
	callerService
	callerWebIdentity
)

// caller is a request's principal, parsed without allocating.
type caller struct {
	kind    callerKind
	arn     string
	account string
	// name is the user, role or federated user name (last path element);
	// session is a role session's name.
	name    string
	session string
	// serviceLinked is set for a service-linked role and its sessions,
	// which SCPs and RCPs do not restrict (see isServiceLinkedSession).
	serviceLinked bool
}

func parseCaller(p string) caller {
	var c caller
	c.parse(p)
	return c
}

// parse fills c in place, so that the decision path copies nothing.
func (c *caller) parse(p string) {
	*c = caller{arn: p}
	if !strings.HasPrefix(p, "arn:") {
		if webIdentityProviders[p] {
			c.kind = callerWebIdentity
		} else if strings.HasSuffix(p, ".amazonaws.com") || strings.HasSuffix(p, ".amazonaws.com.cn") {
			c.kind = callerService
		} else if p != "" {
			// accounts.google.com, cognito-identity.amazonaws.com, graph.facebook.com...
			c.kind = callerWebIdentity
		}
		return
	}
	var parts [6]string
	if !splitARNInto(p, &parts) {
		return
	}
	c.account = parts[4]
	res := parts[5]
	switch parts[2] {
	case "iam":
		switch {
		case res == "root":
			c.kind = callerRoot
		case strings.HasPrefix(res, "user/"):
			c.kind = callerUser
			c.name = lastElem(res)
		case strings.HasPrefix(res, "role/"):
			c.kind = callerRole
			c.name = lastElem(res)
			c.serviceLinked = strings.HasPrefix(res, serviceLinkedRolePath)
		case strings.HasPrefix(res, "oidc-provider/"), strings.HasPrefix(res, "saml-provider/"):
			c.kind = callerWebIdentity
		}
	case "sts":
		switch {
		case strings.HasPrefix(res, "assumed-role/"):
			role, sess, ok := strings.Cut(res[len("assumed-role/"):], "/")
			if ok {
				c.kind = callerRoleSession
				c.name, c.session = role, sess
				c.serviceLinked = isServiceLinkedSession(role)
			}
		case strings.HasPrefix(res, "federated-user/"):
			c.kind = callerFederatedUser
			c.name = res[len("federated-user/"):]
		}
	}
}

// webIdentityProviders are the identity providers AWS names without an ARN;
// Amazon Cognito's looks like a service principal but is one of them.
var webIdentityProviders = map[string]bool{
	"cognito-identity.amazonaws.com": true,
	"accounts.google.com":            true,
	"graph.facebook.com":             true,
	"www.amazon.com":                 true,
}

func lastElem(res string) string {
	return res[strings.LastIndexByte(res, '/')+1:]
}

// principalMatch is how a Principal element names a caller, from weakest to
// strongest. The strength decides which policies a resource-based allow can
// bypass.
type principalMatch uint8

const (
	noPrincipalMatch principalMatch = iota
	// matchAccount: the caller's account (root ARN or account ID). The account
	// must still grant access through identity policies.
	matchAccount
	// matchRole: the role whose session is calling, or the calling role
	// itself. Boundaries and session policies still apply.
	matchRole
	// matchEveryone: "*" or {"AWS": "*"}. It grants on its own in the same
	// account like a direct match, but AWS documents the session-policy
	// exception only for a principal named by its ARN, so session policies
	// still apply.
	matchEveryone
	// matchDirect: the caller itself (user, role session, federated user,
	// service, web identity provider).
	matchDirect
)

// principalSet is a compiled Principal element.
type principalSet struct {
	wildcard  bool
	aws       []string
	service   []string
	federated []string
	canonical []string
}

func compilePrincipal(p *Principal) *principalSet {
	if p == nil {
		return nil
	}
	return &principalSet{wildcard: p.Wildcard, aws: p.AWS, service: p.Service, federated: p.Federated, canonical: p.CanonicalUser}
}

// match returns the strongest way the set names the caller.
func (s *principalSet) match(c *caller) principalMatch {
	if s.wildcard {
		return matchEveryone
	}
	best := noPrincipalMatch
	for _, v := range s.aws {
		// {"AWS": "*"} is the same as "*": it names every caller.
		if v == "*" {
			best = matchEveryone
		}
	}
	switch c.kind {
	case callerService:
		for _, v := range s.service {
			if v == c.arn {
				return matchDirect
			}
		}
		return best
	case callerWebIdentity:
		for _, v := range s.federated {
			if v == c.arn {
				return matchDirect
			}
		}
		return best
	}
	for _, v := range s.aws {
		if m := awsPrincipalMatch(v, c); m > best {
			best = m
		}
	}
	return best
}

// awsPrincipalMatch compares one value of an "AWS" principal with the caller.
func awsPrincipalMatch(v string, c *caller) principalMatch {
	if v == "*" {
		return matchEveryone
	}
	// A role's own ARN names the role, not the caller: a request made as
	// the role (callerRole) stands for any session of it, so a policy that
	// names the role ARN grants as it does to a session (matchRole), limited
	// by the role's boundary and session policy.
	if v == c.arn && c.kind != callerUnknown && c.kind != callerRole {
		return matchDirect
	}
	if c.account == "" {
		return noPrincipalMatch
	}
	if v == c.account {
		return matchAccount
	}
	parts, ok := splitARN(v)
	if !ok || parts[4] != c.account {
		return noPrincipalMatch
	}
	switch {
	case parts[2] == "iam" && parts[5] == "root":
		return matchAccount
	case (c.kind == callerRoleSession || c.kind == callerRole) && parts[2] == "iam" && strings.HasPrefix(parts[5], "role/") && lastElem(parts[5]) == c.name:
		return matchRole
	}
	return noPrincipalMatch
}
