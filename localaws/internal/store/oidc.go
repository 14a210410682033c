package store

import (
	"net/url"
	"slices"
	"strings"
	"time"
)

// OIDCProvider is an IAM OpenID Connect identity provider: the issuer whose
// tokens AssumeRoleWithWebIdentity accepts.
type OIDCProvider struct {
	// ARN is arn:aws:iam::ACCOUNT:oidc-provider/HOST/PATH.
	ARN string
	// URL is the issuer, https://HOST/PATH, as given at creation.
	URL         string
	ClientIDs   []string
	Thumbprints []string
	Tags        Tags
	CreateDate  time.Time
}

// oidcKey is the bucket key of an issuer: host and path without the scheme
// and with the host lower-cased, since hosts are case-insensitive.
func oidcKey(issuer string) string {
	rest := strings.TrimPrefix(issuer, "https://")
	host, path, _ := strings.Cut(rest, "/")
	if path == "" {
		return strings.ToLower(host)
	}
	return strings.ToLower(host) + "/" + path
}

func checkIssuerURL(issuer string) error {
	if err := checkLength("url", issuer, 1, maxURLLen); err != nil {
		return err
	}
	u, err := url.Parse(issuer)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return refuse(InvalidInput, "Invalid OpenID Connect provider URL %s: it must be https://HOST[/PATH] without a query or fragment.", issuer)
	}
	return nil
}

func checkClientIDs(ids []string) error {
	if len(ids) > maxClientIDs {
		return refuse(LimitExceeded, "Cannot exceed quota for ClientIdsPerOpenIdConnectProvider: %d", maxClientIDs)
	}
	for _, id := range ids {
		if err := checkLength("clientIDList", id, 1, maxClientIDLen); err != nil {
			return err
		}
	}
	return nil
}

func checkThumbprints(thumbprints []string) error {
	if len(thumbprints) > maxThumbprints {
		return refuse(LimitExceeded, "Cannot exceed quota for ThumbprintsPerOpenIdConnectProvider: %d", maxThumbprints)
	}
	for _, t := range thumbprints {
		if err := checkPattern("thumbprintList", t, thumbprintPattern); err != nil {
			return err
		}
	}
	return nil
}

// CreateOIDCProvider registers an issuer from p's URL, ClientIDs,
// Thumbprints and Tags, and returns it with its ARN and creation date.
func (tx *Tx) CreateOIDCProvider(p OIDCProvider) (OIDCProvider, error) {
	p.URL = strings.TrimSuffix(p.URL, "/")
	if err := checkIssuerURL(p.URL); err != nil {
		return OIDCProvider{}, err
	}
	if err := checkClientIDs(p.ClientIDs); err != nil {
		return OIDCProvider{}, err
	}
	if err := checkThumbprints(p.Thumbprints); err != nil {
		return OIDCProvider{}, err
	}
	if err := p.Tags.check(TaggedOIDCProvider.foldsKeys()); err != nil {
		return OIDCProvider{}, err
	}
	k := oidcKey(p.URL)
	if tx.exists(bucketOIDCProviders, k) {
		return OIDCProvider{}, refuse(EntityAlreadyExists, "Provider with url %s already exists.", p.URL)
	}
	created := OIDCProvider{
		ARN:         tx.account.OIDCProviderARN(p.URL),
		URL:         p.URL,
		ClientIDs:   distinct(p.ClientIDs),
		Thumbprints: slices.Clone(p.Thumbprints),
		Tags:        p.Tags,
		CreateDate:  tx.now,
	}
	return created, tx.put(bucketOIDCProviders, k, created)
}

// oidcKeyOfARN is the bucket key of a provider ARN of this account, or "".
func (tx *Tx) oidcKeyOfARN(arn string) string {
	rest, ok := strings.CutPrefix(arn, "arn:aws:iam::"+tx.account.ID+":oidc-provider/")
	if !ok || rest == "" {
		return ""
	}
	return oidcKey(rest)
}

// GetOIDCProvider returns a provider by ARN. AssumeRoleWithWebIdentity finds
// the provider of a token's issuer with Account().OIDCProviderARN(iss).
func (tx *Tx) GetOIDCProvider(arn string) (OIDCProvider, error) {
	var p OIDCProvider
	if k := tx.oidcKeyOfARN(arn); k != "" {
		found, err := tx.get(bucketOIDCProviders, k, &p)
		if err != nil {
			return OIDCProvider{}, err
		}
		if found {
			return p, nil
		}
	}
	return OIDCProvider{}, refuse(NoSuchEntity, "OpenIdConnect Provider not found for arn %s", arn)
}

// ListOIDCProviders returns every provider of the account; IAM does not page
// this list.
func (tx *Tx) ListOIDCProviders() ([]OIDCProvider, error) {
	var out []OIDCProvider
	err := tx.bucket(bucketOIDCProviders).ForEach(func(_, v []byte) error {
		var p OIDCProvider
		if err := decode(v, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// DeleteOIDCProvider deletes a provider. Roles that trust it stay, and
// AssumeRoleWithWebIdentity with its tokens fails from then on, as in IAM.
func (tx *Tx) DeleteOIDCProvider(arn string) error {
	p, err := tx.GetOIDCProvider(arn)
	if err != nil {
		return err
	}
	return tx.delete(bucketOIDCProviders, oidcKey(p.URL))
}

func (tx *Tx) updateOIDCProvider(arn string, change func(*OIDCProvider) error) (OIDCProvider, error) {
	p, err := tx.GetOIDCProvider(arn)
	if err != nil {
		return OIDCProvider{}, err
	}
	if err := change(&p); err != nil {
		return OIDCProvider{}, err
	}
	return p, tx.put(bucketOIDCProviders, oidcKey(p.URL), p)
}

// AddClientIDToOIDCProvider adds an audience; adding one it has does nothing.
func (tx *Tx) AddClientIDToOIDCProvider(arn, clientID string) (OIDCProvider, error) {
	return tx.updateOIDCProvider(arn, func(p *OIDCProvider) error {
		if slices.Contains(p.ClientIDs, clientID) {
			return nil
		}
		ids := append(slices.Clone(p.ClientIDs), clientID)
		if err := checkClientIDs(ids); err != nil {
			return err
		}
		p.ClientIDs = ids
		return nil
	})
}

// RemoveClientIDFromOIDCProvider removes an audience; removing one it does
// not have does nothing, as in IAM.
func (tx *Tx) RemoveClientIDFromOIDCProvider(arn, clientID string) (OIDCProvider, error) {
	return tx.updateOIDCProvider(arn, func(p *OIDCProvider) error {
		p.ClientIDs = slices.DeleteFunc(slices.Clone(p.ClientIDs), func(id string) bool { return id == clientID })
		return nil
	})
}

// UpdateOIDCProviderThumbprint replaces the provider's thumbprints.
func (tx *Tx) UpdateOIDCProviderThumbprint(arn string, thumbprints []string) (OIDCProvider, error) {
	return tx.updateOIDCProvider(arn, func(p *OIDCProvider) error {
		if err := checkThumbprints(thumbprints); err != nil {
			return err
		}
		p.Thumbprints = slices.Clone(thumbprints)
		return nil
	})
}

// distinct is ids without repeats, in first-seen order.
func distinct(ids []string) []string {
	out := []string{}
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
