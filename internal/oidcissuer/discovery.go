package oidcissuer

import "strings"

// Discovery is the OIDC discovery document served at
// ISSUER/.well-known/openid-configuration: STS reads jwks_uri from it and
// checks issuer against the tokens' iss.
type Discovery struct {
	Issuer          string   `json:"issuer"`
	JWKSURI         string   `json:"jwks_uri"`
	ResponseTypes   []string `json:"response_types_supported"`
	SubjectTypes    []string `json:"subject_types_supported"`
	SigningAlgs     []string `json:"id_token_signing_alg_values_supported"`
	ClaimsSupported []string `json:"claims_supported,omitempty"`
}

// JWKSPath is where the key set lies under the public folder, and under
// the issuer URL.
const JWKSPath = "keys.json"

// DiscoveryPath is where the discovery document lies under the public
// folder, and under the issuer URL.
const DiscoveryPath = ".well-known/openid-configuration"

func discoveryOf(issuer string) Discovery {
	return Discovery{
		Issuer:          issuer,
		JWKSURI:         strings.TrimSuffix(issuer, "/") + "/" + JWKSPath,
		ResponseTypes:   []string{"id_token"},
		SubjectTypes:    []string{"public"},
		SigningAlgs:     []string{"RS256"},
		ClaimsSupported: []string{"sub", "iss", "aud", "exp", "iat"},
	}
}
