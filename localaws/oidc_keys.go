package localaws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"leash.dev/leash/localaws/internal/query"
)

// How issuers' signing keys are fetched and kept.
const (
	// keysTTL is how long fetched keys are used before they are fetched
	// again.
	keysTTL = 15 * time.Minute
	// keysMinRefresh bounds how often a token with a key ID the kept keys
	// lack makes the keys be fetched again (an issuer rotating its keys).
	keysMinRefresh = 30 * time.Second
	// fetchTimeout bounds each request to an issuer.
	fetchTimeout = 5 * time.Second
	// maxKeyDocument bounds a discovery document or key set.
	maxKeyDocument = 1 << 20
	// maxKeptIssuers bounds the issuers whose keys are kept; only
	// registered providers' issuers are ever fetched.
	maxKeptIssuers = 256
)

// keyRetrievalFailed is STS's message when it cannot get an issuer's keys.
const keyRetrievalFailed = "Couldn't retrieve verification key from your identity provider, please reference AssumeRoleWithWebIdentity documentation for requirements"

// oidcKeys fetches OIDC issuers' signing keys through their discovery
// documents and keeps them for keysTTL. It is safe for concurrent use.
type oidcKeys struct {
	mu   sync.Mutex
	kept map[string]fetchedKeys // issuer → keys
}

type fetchedKeys struct {
	keys    []jwk
	fetched time.Time
}

func newOIDCKeys() *oidcKeys {
	return &oidcKeys{kept: map[string]fetchedKeys{}}
}

// get returns the signing keys of issuer: read from the file cfg.JWKSFiles
// names for it, or else the kept ones, fetched again when they are older
// than keysTTL or lack kid. It never runs inside a store transaction.
func (k *oidcKeys) get(ctx context.Context, cfg *Config, issuer, kid string, now time.Time) ([]jwk, *query.Error) {
	if path, ok := cfg.JWKSFiles[issuer]; ok {
		return readKeyFile(path)
	}
	k.mu.Lock()
	f, ok := k.kept[issuer]
	k.mu.Unlock()
	age := now.Sub(f.fetched)
	if ok && age >= 0 && age < keysTTL && (hasKey(f.keys, kid) || age < keysMinRefresh) {
		return f.keys, nil
	}
	keys, err := fetchKeys(ctx, cfg.HTTPClient, issuer)
	if err != nil {
		return nil, err
	}
	k.mu.Lock()
	if len(k.kept) >= maxKeptIssuers {
		k.kept = map[string]fetchedKeys{}
	}
	k.kept[issuer] = fetchedKeys{keys: keys, fetched: now}
	k.mu.Unlock()
	return keys, nil
}

// hasKey reports whether keys has one with the ID kid; a token without a kid
// is checked against every key.
func hasKey(keys []jwk, kid string) bool {
	if kid == "" {
		return true
	}
	for _, k := range keys {
		if k.Kid == kid {
			return true
		}
	}
	return false
}

func readKeyFile(path string) ([]jwk, *query.Error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, query.InvalidIdentityToken(keyRetrievalFailed + " (" + err.Error() + ")")
	}
	var set jwks
	if err := json.Unmarshal(data, &set); err != nil || len(set.Keys) == 0 {
		return nil, query.InvalidIdentityToken(keyRetrievalFailed + " (" + path + " is not a JSON Web Key Set with keys)")
	}
	return set.Keys, nil
}

// fetchKeys reads the issuer's discovery document and then its key set.
func fetchKeys(ctx context.Context, client *http.Client, issuer string) ([]jwk, *query.Error) {
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	discovery := strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
	if err := getJSON(ctx, client, discovery, &doc); err != nil {
		return nil, err
	}
	if doc.Issuer != issuer {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the discovery document at %s names issuer %q, not the token's %q)", keyRetrievalFailed, discovery, doc.Issuer, issuer))
	}
	if doc.JWKSURI == "" {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the discovery document at %s has no jwks_uri)", keyRetrievalFailed, discovery))
	}
	var set jwks
	if err := getJSON(ctx, client, doc.JWKSURI, &set); err != nil {
		return nil, err
	}
	if len(set.Keys) == 0 {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the key set at %s has no keys)", keyRetrievalFailed, doc.JWKSURI))
	}
	return set.Keys, nil
}

// getJSON fetches one JSON document from an issuer. An issuer that cannot be
// reached is IDPCommunicationError, which a client may retry; one that
// answers with something other than the document is InvalidIdentityToken.
func getJSON(ctx context.Context, client *http.Client, rawURL string, v any) *query.Error {
	failed := func(detail string) *query.Error {
		return query.InvalidIdentityToken(keyRetrievalFailed + " (" + detail + ")")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return failed(fmt.Sprintf("%q is not a URL", rawURL))
	}
	if err := checkFetchable(u); err != nil {
		return failed(err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return failed(err.Error())
	}
	req.Header.Set("Accept", "application/json")
	resp, err := fetchClient(client).Do(req)
	if err != nil {
		var refused *redirectRefused
		if errors.As(err, &refused) {
			return failed(refused.Error())
		}
		return query.IDPCommunicationError("The identity provider could not be reached: GET " + u.Redacted() + ": " + errorCause(err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return failed(fmt.Sprintf("GET %s answered %s", u.Redacted(), resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeyDocument+1))
	if err != nil {
		return query.IDPCommunicationError("The identity provider could not be reached: GET " + u.Redacted() + ": " + errorCause(err))
	}
	if len(body) > maxKeyDocument {
		return failed(fmt.Sprintf("GET %s answered more than %d bytes", u.Redacted(), maxKeyDocument))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return failed(fmt.Sprintf("GET %s answered something other than the JSON document", u.Redacted()))
	}
	return nil
}

// errorCause is the innermost message of a request error, without the URL
// the url.Error repeats.
func errorCause(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) && uerr.Err != nil {
		return uerr.Err.Error()
	}
	return err.Error()
}

// redirectRefused is a redirect fetchClient did not follow.
type redirectRefused struct{ reason string }

func (e *redirectRefused) Error() string { return e.reason }

// fetchClient is client refusing redirects to a URL checkFetchable refuses.
func fetchClient(client *http.Client) *http.Client {
	c := *client
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return &redirectRefused{"stopped after 5 redirects"}
		}
		if err := checkFetchable(req.URL); err != nil {
			return &redirectRefused{"refused a redirect: " + err.Error()}
		}
		return nil
	}
	return &c
}

// checkFetchable allows https URLs, and http URLs on loopback only (issuers
// that tests and local clusters serve).
func checkFetchable(u *url.URL) error {
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%s is not an https URL (plain http is allowed on loopback only)", u.Redacted())
}

// issuerProviderURL is the IAM provider URL a token's iss claim names,
// https://HOST/PATH without a trailing slash: the URL the provider was
// registered with. An http:// issuer is accepted on loopback only and maps to
// the provider registered with https://.
func issuerProviderURL(iss string) (string, *query.Error) {
	u, err := url.Parse(iss)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || checkFetchable(u) != nil {
		return "", query.InvalidIdentityToken(fmt.Sprintf("The web identity token's issuer (iss) %q is not an https URL without a query or fragment.", iss))
	}
	return "https://" + strings.TrimSuffix(u.Host+u.Path, "/"), nil
}
