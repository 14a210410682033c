package oidcissuer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
)

// DefaultAudience is the client ID the IAM provider trusts and the
// audience of the tokens a pod's SDK sends to STS.
const DefaultAudience = "sts.amazonaws.com"

// ProviderAPI is the IAM calls EnsureProvider makes.
type ProviderAPI interface {
	OIDCProviderARNs(ctx context.Context) ([]string, error)
	GetOIDCProvider(ctx context.Context, arn string) (iamclient.OIDCProvider, error)
	CreateOIDCProvider(ctx context.Context, issuerURL string, clientIDs []string) (string, error)
}

// Provider is the IAM OIDC provider EnsureProvider found or made.
type Provider struct {
	ARN       string
	ClientIDs []string
	Created   bool
}

// EnsureProvider makes the IAM OIDC provider for issuerURL with the client
// ID audience, or finds the one there. A provider that lacks audience is
// refused, unchanged: adding a client ID widens who may assume every role
// trusting it, so leash leaves that to a person.
func EnsureProvider(ctx context.Context, api ProviderAPI, issuerURL, audience string) (Provider, error) {
	if err := CheckURL("--oidc-issuer", issuerURL); err != nil {
		return Provider{}, err
	}
	if audience == "" {
		return Provider{}, &inputerr.Error{Source: "--audience", Msg: "is empty: leave it out for " + DefaultAudience + ", or give the audience the tokens carry"}
	}
	p, found, err := findProvider(ctx, api, issuerURL, audience)
	if err != nil || found {
		return p, err
	}
	arn, err := api.CreateOIDCProvider(ctx, issuerURL, []string{audience})
	if iamclient.IsAlreadyExists(err) {
		// Made meanwhile by another run: judge the one there.
		p, found, err = findProvider(ctx, api, issuerURL, audience)
		if err == nil && !found {
			err = fmt.Errorf("iam:CreateOpenIDConnectProvider said the provider for %s exists, but it is not listed", issuerURL)
		}
		return p, err
	}
	if err != nil {
		return Provider{}, err
	}
	return Provider{ARN: arn, ClientIDs: []string{audience}, Created: true}, nil
}

// findProvider looks the issuer's provider up by the name IAM gives it
// (HOST/PATH at the end of the ARN), so no account ID is needed.
func findProvider(ctx context.Context, api ProviderAPI, issuerURL, audience string) (Provider, bool, error) {
	prefix, err := ConditionPrefix(issuerURL)
	if err != nil {
		return Provider{}, false, err
	}
	arns, err := api.OIDCProviderARNs(ctx)
	if err != nil {
		return Provider{}, false, err
	}
	for _, arn := range arns {
		if !strings.HasSuffix(arn, ":oidc-provider/"+prefix) {
			continue
		}
		got, err := api.GetOIDCProvider(ctx, arn)
		if err != nil {
			return Provider{}, false, err
		}
		if !slices.Contains(got.ClientIDs, audience) {
			return Provider{}, false, &inputerr.Error{Source: "--audience " + audience, Msg: fmt.Sprintf(
				"the provider %s exists with the client IDs %s, not %s; nothing was changed. Give --audience with one of its client IDs (and the same audience on the pods' projected tokens), "+
					"or add the client ID: aws iam add-client-id-to-open-id-connect-provider --open-id-connect-provider-arn %s --client-id %s",
				arn, quoteAll(got.ClientIDs), audience, arn, audience)}
		}
		return Provider{ARN: arn, ClientIDs: got.ClientIDs}, true, nil
	}
	return Provider{}, false, nil
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "(none)"
	}
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
