package localaws

import (
	"regexp"
	"slices"
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// A role's trust policy names who may assume the role, and IAM refuses,
// when the policy is saved, a principal that is not one: MalformedPolicyDocument,
// "Invalid principal in policy: "AWS":"not-an-arn"". The rules below are
// the Principal element's (IAM User Guide, "AWS JSON policy elements:
// Principal") as leash local can check them:
//
//   - AWS: "*", a 12-digit account ID, or an ARN of the aws partition with
//     no wildcard in it: arn:aws:iam::ACCOUNT:root, user/…, role/…,
//     assumed-role/…, or arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION
//     or federated-user/NAME. IAM turns a user or role ARN into the
//     entity's unique ID when it saves the policy, so one that names no
//     user or role is refused; leash local checks that in the accounts it
//     holds (its own and each --other-account), and accepts it in any other
//     account, which it cannot see.
//   - Service: a service's DNS name, such as ec2.amazonaws.com.
//   - Federated: an OIDC or SAML provider's ARN, or one of the web
//     identity providers IAM names (cognito-identity.amazonaws.com,
//     www.amazon.com, graph.facebook.com, accounts.google.com).

// servicePrincipal is a service's DNS name: labels of letters, digits and
// hyphens under amazonaws.com (amazonaws.com.cn in China) or amazon.com.
var servicePrincipal = regexp.MustCompile(`(?i)^[a-z0-9-]+(\.[a-z0-9-]+)*\.(amazonaws\.com|amazonaws\.com\.cn|amazon\.com)$`)

// webIdentityProviders are the Federated principals that are not ARNs.
var webIdentityProviders = []string{"cognito-identity.amazonaws.com", "www.amazon.com", "graph.facebook.com", "accounts.google.com"}

// trustPolicy is a role's trust policy parameter, parsed as a trust
// policy and with every principal checked.
func (c *call) trustPolicy(param string) (string, error) {
	doc, err := c.document(param, policy.Trust)
	if err != nil {
		return "", err
	}
	d, err := policy.ParseString(doc, policy.Trust)
	if err != nil {
		return "", query.MalformedPolicyDocument(err.Error())
	}
	for _, st := range d.Statements {
		for _, p := range []*policy.Principal{st.Principal, st.NotPrincipal} {
			if err := c.checkPrincipal(p); err != nil {
				return "", err
			}
		}
	}
	return doc, nil
}

// checkPrincipal checks each principal of a Principal or NotPrincipal
// element (nil: absent).
func (c *call) checkPrincipal(p *policy.Principal) error {
	if p == nil {
		return nil
	}
	for _, v := range p.AWS {
		if !c.validAWSPrincipal(v) {
			return invalidPrincipal("AWS", v)
		}
	}
	for _, v := range p.Service {
		if !servicePrincipal.MatchString(v) {
			return invalidPrincipal("Service", v)
		}
	}
	for _, v := range p.Federated {
		if !validFederatedPrincipal(v) {
			return invalidPrincipal("Federated", v)
		}
	}
	return nil
}

// invalidPrincipal is IAM's refusal of one principal, naming its type and
// value as IAM does.
func invalidPrincipal(kind, value string) error {
	return query.MalformedPolicyDocument(`Invalid principal in policy: "` + kind + `":"` + value + `"`)
}

// validAWSPrincipal reports whether v is an AWS principal IAM would save.
func (c *call) validAWSPrincipal(v string) bool {
	if v == "*" || policy.IsAccountID(v) {
		return true
	}
	// "You cannot use a wildcard to match part of a principal name or ARN."
	if strings.Contains(v, "*") {
		return false
	}
	a, ok := policy.ParseARN(v)
	if !ok || a.Partition != "aws" || a.Region != "" || !policy.IsAccountID(a.Account) {
		return false
	}
	kind, rest, _ := strings.Cut(a.Resource, "/")
	switch {
	case a.Service == "iam" && a.Resource == "root":
		return true
	case a.Service == "iam" && (kind == "user" || kind == "role"):
		return nameOf(rest) != "" && c.principalExists(v, a)
	case a.Service == "iam" && kind == "assumed-role", a.Service == "sts" && kind == "assumed-role":
		role, session, ok := strings.Cut(rest, "/")
		return ok && role != "" && session != ""
	case a.Service == "sts" && kind == "federated-user":
		return rest != ""
	}
	return false
}

// validFederatedPrincipal reports whether v names an identity provider.
func validFederatedPrincipal(v string) bool {
	if slices.Contains(webIdentityProviders, v) {
		return true
	}
	a, ok := policy.ParseARN(v)
	if !ok || a.Partition != "aws" || a.Service != "iam" || a.Region != "" || !policy.IsAccountID(a.Account) {
		return false
	}
	kind, name, _ := strings.Cut(a.Resource, "/")
	return (kind == "oidc-provider" || kind == "saml-provider") && name != "" && !strings.Contains(name, "*")
}

// principalExists reports whether a user or role ARN names an entity, as
// IAM resolves it to one when it saves the policy: in the call's own
// account from its transaction, in another account leash local holds from
// what prepareTrustPolicy read, and in an account it does not hold, which
// it cannot see, always.
func (c *call) principalExists(arn string, a policy.ARN) bool {
	if a.Account == c.tx.Account().ID {
		return entityExists(c.tx, arn, a)
	}
	if exists, held := c.heldPrincipals[arn]; held {
		return exists
	}
	return c.srv.accountStore(a.Account) == nil
}

// entityExists reports whether the user or role of that ARN is in tx, under
// that path and name (the name part of a principal ARN is case sensitive).
func entityExists(tx *store.Tx, arn string, a policy.ARN) bool {
	kind, rest, _ := strings.Cut(a.Resource, "/")
	name := nameOf(rest)
	if kind == "user" {
		u, err := tx.GetUser(name)
		return err == nil && u.ARN == arn
	}
	r, err := tx.GetRole(name)
	return err == nil && r.ARN == arn
}

// nameOf is the name at the end of a path/name resource.
func nameOf(pathName string) string {
	return pathName[strings.LastIndexByte(pathName, '/')+1:]
}

// prepareTrustPolicy reads, before the call's transaction, whether each
// user or role ARN the trust policy in param names exists, for the
// accounts leash local holds: two accounts' transactions are never nested.
// It refuses nothing; the operation checks the policy after authorizing
// the caller, so a caller who may not change the role learns nothing of
// other accounts' users.
func prepareTrustPolicy(param string) func(c *call) error {
	return func(c *call) error {
		d, err := policy.ParseString(c.param(param), policy.Trust)
		if err != nil {
			return nil // the operation reports it
		}
		c.heldPrincipals = map[string]bool{}
		for _, st := range d.Statements {
			for _, p := range []*policy.Principal{st.Principal, st.NotPrincipal} {
				if p == nil {
					continue
				}
				for _, v := range p.AWS {
					c.readHeldPrincipal(v)
				}
			}
		}
		return nil
	}
}

// readHeldPrincipal records whether v, when it is a user or role ARN in an
// account leash local holds, names an entity there.
func (c *call) readHeldPrincipal(v string) {
	a, ok := policy.ParseARN(v)
	if !ok || a.Service != "iam" {
		return
	}
	kind, _, _ := strings.Cut(a.Resource, "/")
	st := c.srv.accountStore(a.Account)
	if (kind != "user" && kind != "role") || st == nil {
		return
	}
	var exists bool
	err := st.View(c.ctx, func(tx *store.Tx) error {
		exists = entityExists(tx, v, a)
		return nil
	})
	c.heldPrincipals[v] = err == nil && exists
}

// accountStore is the state of an account leash local holds (its own or
// an --other-account), nil for any other account.
func (s *Server) accountStore(id string) *store.Store {
	if id == s.store.Account().ID {
		return s.store
	}
	return s.others[id]
}
