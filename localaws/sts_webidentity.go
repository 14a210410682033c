package localaws

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"leash.dev/leash/localaws/internal/authz"
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// webIdentity is a web identity token whose signature and times checked
// out, and the provider registered for its issuer.
type webIdentity struct {
	providerARN string
	issuer      string
	claims      tokenClaims
}

// notAuthorizedWebIdentity is STS's AccessDenied for a token the role's
// trust policy does not allow; it names no principal.
const notAuthorizedWebIdentity = "Not authorized to perform sts:AssumeRoleWithWebIdentity"

// webIdentityOperation is AssumeRoleWithWebIdentity. The request is not
// signed: the token authenticates it. Its prepare step, outside the store
// transaction, finds the issuer's provider, fetches the issuer's keys and
// verifies the token; run checks the audience, authorizes the provider
// against the role's trust policy and issues the session.
func webIdentityOperation(keys *oidcKeys) operation {
	return operation{
		unsigned: true,
		prepare: func(c *call) error {
			if _, err := readSessionRequest(c, false); err != nil {
				return err
			}
			token, err := webIdentityToken(c)
			if err != nil {
				return err
			}
			c.webIdentity, err = c.srv.verifyWebIdentity(c, keys, token)
			return err
		},
		run: assumeRoleWithWebIdentity,
	}
}

// webIdentityToken is the WebIdentityToken parameter. Messages about it
// never quote it.
func webIdentityToken(c *call) (string, error) {
	if _, ok := c.q.String("ProviderId"); ok {
		return "", query.InvalidIdentityToken("leash local accepts OpenID Connect ID tokens only: ProviderId (OAuth 2.0 access tokens of www.amazon.com and graph.facebook.com) is not supported.")
	}
	token, ok := c.q.String("WebIdentityToken")
	if !ok {
		return "", c.q.Invalid("WebIdentityToken", "Member must not be null")
	}
	if n := utf8.RuneCountInString(token); n < 4 || n > 20000 {
		return "", hiddenInvalid("webIdentityToken", lengthConstraint(n, 4, 20000))
	}
	return token, nil
}

// verifyWebIdentity checks a token as STS does before it looks at any role:
// its form, a provider registered for its issuer, its signature with the
// issuer's keys, and its times. It reads the store in a transaction of its
// own and fetches keys outside any.
func (s *Server) verifyWebIdentity(c *call, keys *oidcKeys, token string) (*webIdentity, error) {
	t, qerr := parseJWT(token)
	if qerr != nil {
		return nil, qerr
	}
	iss := t.claims.Issuer
	if iss == "" {
		return nil, query.InvalidIdentityToken("The web identity token has no iss claim.")
	}
	if !strings.HasPrefix(iss, "https://") {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("The web identity token's issuer (iss) %q is not an https URL: "+
			"an OpenID Connect provider's issuer is https://HOST[/PATH], exactly as the provider is registered.", iss))
	}
	arn := s.store.Account().OIDCProviderARN(iss)
	var provider store.OIDCProvider
	err := s.store.View(c.ctx, func(tx *store.Tx) error {
		var err error
		provider, err = tx.GetOIDCProvider(arn)
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, noProvider(iss)
	}
	if err != nil {
		return nil, err
	}
	// The provider's lookup forgives the host's case and a bare host's
	// trailing slash; the issuer does not. A variant of the registered URL
	// is another issuer, whose keys would come from elsewhere than the
	// provider's (such as its --oidc-jwks file).
	if iss != provider.URL {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("No OpenIDConnect provider found in your account for %s "+
			"(the provider registered is %s; a token's iss must be its URL exactly)", iss, provider.URL))
	}
	set, qerr := keys.get(c.ctx, &s.cfg, iss, t.header.Kid, c.now)
	if qerr != nil {
		return nil, qerr
	}
	if err := t.verify(set); err != nil {
		return nil, query.InvalidIdentityToken("The web identity token could not be verified: " + err.Error() + ".")
	}
	if qerr := t.claims.checkTimes(c.now); qerr != nil {
		return nil, qerr
	}
	if t.claims.Subject == "" {
		return nil, query.InvalidIdentityToken("The web identity token has no sub claim.")
	}
	if len(t.claims.Audience) == 0 {
		return nil, query.InvalidIdentityToken("The web identity token has no aud claim.")
	}
	return &webIdentity{providerARN: arn, issuer: iss, claims: t.claims}, nil
}

func noProvider(iss string) *query.Error {
	return query.InvalidIdentityToken("No OpenIDConnect provider found in your account for " + iss)
}

// audience is the token's audience that is one of the provider's client IDs
// (the aud claim, or else azp), and the token's other audiences.
func (w *webIdentity) audience(clientIDs []string) (matched string, others []string, ok bool) {
	for _, a := range w.claims.Audience {
		if !ok && slices.Contains(clientIDs, a) {
			matched, ok = a, true
			continue
		}
		others = append(others, a)
	}
	if !ok && w.claims.AZP != "" && slices.Contains(clientIDs, w.claims.AZP) {
		return w.claims.AZP, w.claims.Audience, true
	}
	return matched, others, ok
}

// keys are the condition keys of the request, named after the provider as
// IAM names them (such as token.actions.githubusercontent.com:sub), with
// aws:FederatedProvider and sts:RoleSessionName.
func (w *webIdentity) keys(provider store.OIDCProvider, aud string, oaud []string, sessionName string) map[string][]string {
	prefix := strings.TrimPrefix(provider.URL, "https://") + ":"
	keys := map[string][]string{
		prefix + "sub":          {w.claims.Subject},
		prefix + "aud":          {aud},
		"aws:FederatedProvider": {provider.ARN},
		"sts:RoleSessionName":   {sessionName},
	}
	if len(oaud) > 0 {
		keys[prefix+"oaud"] = oaud
	}
	if len(w.claims.AMR) > 0 {
		keys[prefix+"amr"] = w.claims.AMR
	}
	if w.claims.AZP != "" {
		keys[prefix+"azp"] = []string{w.claims.AZP}
	}
	if w.claims.Email != "" {
		keys[prefix+"email"] = []string{w.claims.Email}
	}
	return keys
}

// assumeRoleWithWebIdentity runs in the store transaction, after prepare
// verified the token.
func assumeRoleWithWebIdentity(c *call) (any, error) {
	in, err := readSessionRequest(c, false)
	if err != nil {
		return nil, err
	}
	w := c.webIdentity
	provider, err := c.tx.GetOIDCProvider(w.providerARN)
	if errors.Is(err, store.ErrNotFound) {
		return nil, noProvider(w.issuer) // deleted since prepare
	}
	if err != nil {
		return nil, err
	}
	aud, oaud, ok := w.audience(provider.ClientIDs)
	if !ok {
		return nil, query.InvalidIdentityToken("Incorrect token audience")
	}
	c.authz().AuthorizedResource = in.roleARN
	role, ok, err := roleIn(c.tx, in.roleARN) // the provider and the role are both of the main account
	if err != nil {
		return nil, err
	}
	if !ok {
		c.authz().Decision = policy.ImplicitDeny.String()
		return nil, query.AccessDenied(notAuthorizedWebIdentity)
	}
	if err := c.authorizeWebIdentity(provider.ARN, role, w.keys(provider, aud, oaud, in.sessionName)); err != nil {
		return nil, err
	}
	s, packed, err := createRoleSession(c.tx, &in, role, false)
	if err != nil {
		return nil, err
	}
	return struct {
		Credentials                 credentialsShape     `xml:"Credentials"`
		SubjectFromWebIdentityToken string               `xml:"SubjectFromWebIdentityToken"`
		AssumedRoleUser             assumedRoleUserShape `xml:"AssumedRoleUser"`
		PackedPolicySize            *int                 `xml:"PackedPolicySize,omitempty"`
		Provider                    string               `xml:"Provider"`
		Audience                    string               `xml:"Audience"`
	}{credentialsOf(s), w.claims.Subject, assumedRoleUserOf(s), packed, provider.ARN, aud}, nil
}

// authorizeWebIdentity asks the engine whether the role's trust policy lets
// the provider (the web identity caller) assume the role with these keys.
// A web identity has no policies of its own: the trust policy alone decides.
func (c *call) authorizeWebIdentity(providerARN string, role store.Role, keys map[string][]string) error {
	trust, err := parseStored(role.ARN, role.AssumeRolePolicyDocument, policy.Trust)
	if err != nil {
		return err
	}
	p, err := policy.Compile(policy.Set{ResourcePolicy: &policy.Named{Name: role.ARN, Document: trust}})
	if err != nil {
		return fmt.Errorf("compile the trust policy of %s: %w", role.ARN, err)
	}
	ar := authz.Request{Caller: &authz.Caller{ARN: providerARN}, Action: "sts:AssumeRoleWithWebIdentity", Resource: role.ARN,
		SourceIP: c.sourceIP, Secure: c.secure, Now: c.now, Keys: keys}
	ctx := ar.Context()
	// A web identity belongs to no account: the request has no
	// aws:PrincipalAccount.
	ctx.Delete("aws:PrincipalAccount")
	req := policy.Request{Principal: providerARN, Action: ar.Action, Resource: role.ARN, Context: ctx}
	if p.Decide(&req) == policy.Allowed {
		c.authz().Decision = policy.Allowed.String()
		return nil
	}
	c.authz().Decision = p.Explain(&req).Decision.String()
	return query.AccessDenied(notAuthorizedWebIdentity)
}
