package localaws

import (
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// providerARNParam is the parameter that names an OIDC provider.
const providerARNParam = "OpenIDConnectProviderArn"

func iamOIDCOperations(ops map[string]operation) {
	// CreateOpenIDConnectProvider stores the thumbprints it is given, and
	// GetOpenIDConnectProvider returns them, but AssumeRoleWithWebIdentity
	// does not use them: it fetches an issuer's keys over https with the
	// TLS certificate checked against the machine's trusted root CAs (the
	// HTTP client's), or reads them from the issuer's --oidc-jwks file. IAM
	// too secures many providers through its library of trusted root CAs
	// and keeps their thumbprints unused ("Obtain the thumbprint for an
	// OpenID Connect identity provider",
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_providers_create_oidc_verify-thumbprint.html).
	ops["CreateOpenIDConnectProvider"] = operation{
		target: func(c *call) (target, error) {
			url, err := c.required("Url")
			if err != nil {
				return target{}, err
			}
			s := subject{arn: c.tx.Account().OIDCProviderARN(strings.TrimSuffix(url, "/"))}
			return s.target(c, []keysFunc{requestTags})
		},
		run: func(c *call) (any, error) {
			url, err := c.required("Url")
			if err != nil {
				return nil, err
			}
			clientIDs, err := c.list("ClientIDList")
			if err != nil {
				return nil, err
			}
			thumbprints, err := c.list("ThumbprintList")
			if err != nil {
				return nil, err
			}
			tags, err := c.tags("Tags")
			if err != nil {
				return nil, err
			}
			p, err := c.tx.CreateOIDCProvider(store.OIDCProvider{URL: url, ClientIDs: clientIDs, Thumbprints: thumbprints, Tags: storeTags(tags)})
			if err != nil {
				return nil, err
			}
			return struct {
				OpenIDConnectProviderArn string                        `xml:"OpenIDConnectProviderArn"`
				Tags                     query.OptionalList[query.Tag] `xml:"Tags"`
			}{p.ARN, tagsOf(p.Tags)}, nil
		},
	}
	ops["GetOpenIDConnectProvider"] = operation{
		readOnly: true,
		target:   onARN(providerARNParam),
		run: func(c *call) (any, error) {
			p, err := c.requiredProvider()
			if err != nil {
				return nil, err
			}
			// IAM returns the URL without its scheme.
			return struct {
				URL            string                        `xml:"Url"`
				ClientIDList   []string                      `xml:"ClientIDList>member"`
				ThumbprintList []string                      `xml:"ThumbprintList>member"`
				CreateDate     query.Timestamp               `xml:"CreateDate"`
				Tags           query.OptionalList[query.Tag] `xml:"Tags"`
			}{strings.TrimPrefix(p.URL, "https://"), p.ClientIDs, p.Thumbprints, query.Timestamp(p.CreateDate), tagsOf(p.Tags)}, nil
		},
	}
	ops["ListOpenIDConnectProviders"] = operation{
		readOnly: true,
		// No resource-level permissions: only Resource "*" grants it.
		target: onAnyResource,
		run: func(c *call) (any, error) {
			providers, err := c.tx.ListOIDCProviders()
			if err != nil {
				return nil, err
			}
			type entry struct {
				Arn string `xml:"Arn"`
			}
			out := struct {
				List []entry `xml:"OpenIDConnectProviderList>member"`
			}{List: []entry{}}
			for _, p := range providers {
				out.List = append(out.List, entry{p.ARN})
			}
			return out, nil
		},
	}
	ops["DeleteOpenIDConnectProvider"] = operation{
		target: onARN(providerARNParam),
		run: func(c *call) (any, error) {
			arn, err := c.required(providerARNParam)
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteOIDCProvider(arn)
		},
	}
	ops["AddClientIDToOpenIDConnectProvider"] = operation{
		target: onARN(providerARNParam),
		run: func(c *call) (any, error) {
			arn, id, err := c.requiredPair(providerARNParam, "ClientID")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.AddClientIDToOIDCProvider(arn, id)
			return nil, err
		},
	}
	ops["RemoveClientIDFromOpenIDConnectProvider"] = operation{
		target: onARN(providerARNParam),
		run: func(c *call) (any, error) {
			arn, id, err := c.requiredPair(providerARNParam, "ClientID")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.RemoveClientIDFromOIDCProvider(arn, id)
			return nil, err
		},
	}
	ops["UpdateOpenIDConnectProviderThumbprint"] = operation{
		target: onARN(providerARNParam),
		run: func(c *call) (any, error) {
			arn, err := c.required(providerARNParam)
			if err != nil {
				return nil, err
			}
			thumbprints, err := c.list("ThumbprintList")
			if err != nil {
				return nil, err
			}
			if thumbprints == nil {
				return nil, c.q.Invalid("ThumbprintList", "Member must not be null")
			}
			_, err = c.tx.UpdateOIDCProviderThumbprint(arn, thumbprints)
			return nil, err
		},
	}
	tagOperations(ops, oidcProviderTags)
}

// requiredProvider is the provider named by the required
// OpenIDConnectProviderArn.
func (c *call) requiredProvider() (store.OIDCProvider, error) {
	arn, err := c.required(providerARNParam)
	if err != nil {
		return store.OIDCProvider{}, err
	}
	return c.tx.GetOIDCProvider(arn)
}
