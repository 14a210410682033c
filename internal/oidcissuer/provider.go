// Package oidcissuer holds what leash knows about a service-account token
// issuer: the folder that makes one (its signing keys, JWKS and discovery
// document, their rotation), how IAM names the OIDC identity provider that
// trusts it, and the prefix of the condition keys a role's trust policy tests
// its tokens with.
package oidcissuer

import (
	"fmt"
	"net/url"
	"strings"

	"leash.dev/leash/policy"
)

// ProviderARN is the ARN IAM gives the OIDC identity provider made for
// issuerURL in account: arn:aws:iam::ACCOUNT:oidc-provider/HOST/PATH. IAM
// names the provider by the issuer's host and path without the scheme, so two
// spellings of one issuer ("https://x/" and "https://x") give one ARN.
func ProviderARN(account, issuerURL string) (string, error) {
	if !policy.IsAccountID(account) {
		return "", fmt.Errorf("account %q is not a 12-digit AWS account ID", account)
	}
	prefix, err := ConditionPrefix(issuerURL)
	if err != nil {
		return "", err
	}
	return "arn:aws:iam::" + account + ":oidc-provider/" + prefix, nil
}

// ConditionPrefix is the issuer as IAM spells it in a trust policy's
// condition keys (PREFIX:sub, PREFIX:aud): host and path, no scheme, no
// trailing slash, the host as given (STS matches a token's iss to the
// provider as spelled, so leash does not fold case). The issuer must be an https URL with no query, fragment or
// user info, since IAM accepts no other and STS would never match its tokens.
func ConditionPrefix(issuerURL string) (string, error) {
	u, err := url.Parse(issuerURL)
	if err != nil {
		return "", fmt.Errorf("issuer URL %q: %v", issuerURL, err)
	}
	switch {
	case u.Scheme != "https":
		return "", fmt.Errorf("issuer URL %q: the scheme must be https (IAM trusts only https issuers)", issuerURL)
	case u.Host == "":
		return "", fmt.Errorf("issuer URL %q has no host: give it as https://HOST[/PATH]", issuerURL)
	case u.User != nil:
		return "", fmt.Errorf("issuer URL %q has user info: give it as https://HOST[/PATH]", issuerURL)
	case u.RawQuery != "" || u.ForceQuery:
		return "", fmt.Errorf("issuer URL %q has a query: give it as https://HOST[/PATH]", issuerURL)
	case u.Fragment != "":
		return "", fmt.Errorf("issuer URL %q has a fragment: give it as https://HOST[/PATH]", issuerURL)
	}
	return strings.TrimSuffix(u.Host+u.Path, "/"), nil
}
