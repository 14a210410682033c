package localaws

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
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

// get returns the signing keys of issuer, a registered provider's URL
// exactly: read from the file cfg.JWKSFiles names for it, or else the kept
// ones, fetched again (over https only) when they are older than keysTTL
// or lack kid. It never runs inside a store transaction.
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
	keys, err := decodeKeySet(data)
	if err != nil || len(keys) == 0 {
		return nil, query.InvalidIdentityToken(keyRetrievalFailed + " (" + path + " is not a JSON Web Key Set with keys)")
	}
	return keys, nil
}

// fetchKeys reads the issuer's discovery document and then its key set.
// The document must name the issuer identically (OpenID Connect Discovery
// 1.0 §4.3), and both must be served over https.
func fetchKeys(ctx context.Context, client *http.Client, issuer string) ([]jwk, *query.Error) {
	var docIssuer, jwksURI string
	discovery := issuer + "/.well-known/openid-configuration"
	body, qerr := getJSON(ctx, client, discovery)
	if qerr != nil {
		return nil, qerr
	}
	if err := decodeObject(body, member{"issuer", &docIssuer}, member{"jwks_uri", &jwksURI}); err != nil {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the discovery document at %s %s)", keyRetrievalFailed, discovery, err))
	}
	if docIssuer != issuer {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the discovery document at %s names issuer %q, not the token's %q: they must be identical)", keyRetrievalFailed, discovery, docIssuer, issuer))
	}
	if jwksURI == "" {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the discovery document at %s has no jwks_uri)", keyRetrievalFailed, discovery))
	}
	body, qerr = getJSON(ctx, client, jwksURI)
	if qerr != nil {
		return nil, qerr
	}
	keys, err := decodeKeySet(body)
	if err != nil {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the key set at %s %s)", keyRetrievalFailed, jwksURI, err))
	}
	if len(keys) == 0 {
		return nil, query.InvalidIdentityToken(fmt.Sprintf("%s (the key set at %s has no keys)", keyRetrievalFailed, jwksURI))
	}
	return keys, nil
}

// getJSON fetches one JSON document from an issuer, over https. An issuer
// that cannot be reached is IDPCommunicationError, which a client may
// retry; one that answers with something other than a document is
// InvalidIdentityToken.
func getJSON(ctx context.Context, client *http.Client, rawURL string) ([]byte, *query.Error) {
	failed := func(detail string) *query.Error {
		return query.InvalidIdentityToken(keyRetrievalFailed + " (" + detail + ")")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, failed(fmt.Sprintf("%q is not a URL", rawURL))
	}
	if err := checkFetchable(u); err != nil {
		return nil, failed(err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, failed(err.Error())
	}
	req.Header.Set("Accept", "application/json")
	resp, err := fetchClient(client).Do(req)
	if err != nil {
		var refused *redirectRefused
		if errors.As(err, &refused) {
			return nil, failed(refused.Error())
		}
		return nil, query.IDPCommunicationError("The identity provider could not be reached: GET " + u.Redacted() + ": " + errorCause(err))
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, failed(fmt.Sprintf("GET %s answered %s", u.Redacted(), resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeyDocument+1))
	if err != nil {
		return nil, query.IDPCommunicationError("The identity provider could not be reached: GET " + u.Redacted() + ": " + errorCause(err))
	}
	if len(body) > maxKeyDocument {
		return nil, failed(fmt.Sprintf("GET %s answered more than %d bytes", u.Redacted(), maxKeyDocument))
	}
	return body, nil
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

// checkFetchable allows https URLs only: keys fetched over plain http
// could be anyone's. An issuer leash local cannot reach over https has its
// keys given in a file (Config.JWKSFiles, --oidc-jwks) instead.
func checkFetchable(u *url.URL) error {
	if u.Scheme == "https" && u.Host != "" {
		return nil
	}
	return fmt.Errorf("%s is not an https URL (give the keys of an issuer not served over https with --oidc-jwks)", u.Redacted())
}
