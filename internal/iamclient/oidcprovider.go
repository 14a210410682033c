package iamclient

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// OIDCProvider is an IAM OpenID Connect identity provider.
type OIDCProvider struct {
	ARN string
	// URL is the issuer as IAM returns it: host and path, no scheme.
	URL       string
	ClientIDs []string
}

// OIDCProviderARNs lists the account's OIDC providers' ARNs.
func (c *Client) OIDCProviderARNs(ctx context.Context) ([]string, error) {
	out, err := c.iam.ListOpenIDConnectProviders(ctx, &iam.ListOpenIDConnectProvidersInput{})
	if err != nil {
		return nil, fmt.Errorf("iam:ListOpenIDConnectProviders: %w", err)
	}
	arns := make([]string, 0, len(out.OpenIDConnectProviderList))
	for _, p := range out.OpenIDConnectProviderList {
		arns = append(arns, aws.ToString(p.Arn))
	}
	return arns, nil
}

// GetOIDCProvider reads a provider's URL and client IDs.
func (c *Client) GetOIDCProvider(ctx context.Context, arn string) (OIDCProvider, error) {
	out, err := c.iam.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(arn)})
	if err != nil {
		return OIDCProvider{}, fmt.Errorf("iam:GetOpenIDConnectProvider %s: %w", arn, err)
	}
	return OIDCProvider{ARN: arn, URL: aws.ToString(out.Url), ClientIDs: out.ClientIDList}, nil
}

// CreateOIDCProvider makes a provider for issuerURL with clientIDs and no
// thumbprint: IAM then takes the issuer's certificate authority itself (and
// for issuers whose certificates chain to a CA AWS trusts, such as S3's,
// uses no thumbprint at all).
func (c *Client) CreateOIDCProvider(ctx context.Context, issuerURL string, clientIDs []string) (string, error) {
	out, err := c.iam.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{Url: aws.String(issuerURL), ClientIDList: clientIDs})
	if err != nil {
		return "", fmt.Errorf("iam:CreateOpenIDConnectProvider %s: %w", issuerURL, err)
	}
	return aws.ToString(out.OpenIDConnectProviderArn), nil
}
