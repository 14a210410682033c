package oidcissuer

import "context"

// FindProvider looks up the IAM OIDC provider of issuerURL without making
// one, for the commands that need it to exist (leash sts create-roles): found
// is false when there is none, and a provider whose client IDs lack audience
// is the same error EnsureProvider gives, as a role trusting it for that
// audience could never be assumed.
func FindProvider(ctx context.Context, api ProviderAPI, issuerURL, audience string) (p Provider, found bool, err error) {
	return findProvider(ctx, api, issuerURL, audience)
}
