package localaws_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/localtest"
)

// issuer is an OIDC issuer on loopback, served over https: a discovery
// document and a key set with one RSA and one EC key, generated for the
// test. client trusts its certificate.
type issuer struct {
	url    string
	client *http.Client
	rsa    *rsa.PrivateKey
	ec     *ecdsa.PrivateKey
	// status, when not 200, is what the issuer answers instead.
	status atomic.Int32
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	iss := &issuer{rsa: rk, ec: ek}
	iss.status.Store(http.StatusOK)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status := int(iss.status.Load()); status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.url, "jwks_uri": iss.url + "/keys"})
		case "/keys":
			_, _ = w.Write(iss.keySet())
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	iss.url, iss.client = srv.URL, srv.Client()
	return iss
}

// keySet is the issuer's public keys as a JSON Web Key Set.
func (i *issuer) keySet() []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	point, _ := i.ec.PublicKey.Bytes()
	set := map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "rsa-1", "use": "sig", "alg": "RS256", "n": b64(i.rsa.N.Bytes()), "e": b64(big.NewInt(int64(i.rsa.E)).Bytes())},
		{"kty": "EC", "kid": "ec-1", "use": "sig", "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])},
	}}
	data, _ := json.Marshal(set)
	return data
}

// prefix is the issuer's condition key prefix, as in 127.0.0.1:PORT:sub.
func (i *issuer) prefix() string { return strings.TrimPrefix(i.url, "https://") }

// sign makes a compact JWS of claims with the issuer's key for alg: RS256
// or ES256 with the published keys, or "none" and "HS256" unsigned.
func (i *issuer) sign(t *testing.T, alg string, claims map[string]any) string {
	t.Helper()
	kid := map[string]string{"RS256": "rsa-1", "ES256": "ec-1"}[alg]
	return signJWT(t, alg, kid, i.rsa, i.ec, claims)
}

func signJWT(t *testing.T, alg, kid string, rk *rsa.PrivateKey, ek *ecdsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	return signPayload(t, alg, kid, rk, ek, payload)
}

// signRaw signs a payload written by hand, such as one with a claim named
// twice, with the issuer's key for alg.
func (i *issuer) signRaw(t *testing.T, alg, payload string) string {
	t.Helper()
	kid := map[string]string{"RS256": "rsa-1", "ES256": "ec-1"}[alg]
	return signPayload(t, alg, kid, i.rsa, i.ec, []byte(payload))
}

func signPayload(t *testing.T, alg, kid string, rk *rsa.PrivateKey, ek *ecdsa.PrivateKey, payload []byte) string {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	header, _ := json.Marshal(map[string]string{"alg": alg, "kid": kid, "typ": "JWT"})
	input := b64(header) + "." + b64(payload)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch alg {
	case "RS256":
		if sig, err = rsa.SignPKCS1v15(rand.Reader, rk, crypto.SHA256, digest[:]); err != nil {
			t.Fatal(err)
		}
	case "ES256":
		r, s, err := ecdsa.Sign(rand.Reader, ek, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	default:
		sig = []byte("unsigned")
	}
	return input + "." + b64(sig)
}

// webEnv is a server with an issuer registered as an OIDC provider whose
// client ID is sts.amazonaws.com, and a role that trusts one service
// account of it, as ccoctl writes trust policies.
type webEnv struct {
	*stsEnv
	iss         *issuer
	providerARN string
	roleARN     string
}

const serviceAccount = "system:serviceaccount:openshift-cloud-controller-manager:cloud-controller-manager"

func startWebIdentity(t *testing.T, cfg localaws.Config) *webEnv {
	t.Helper()
	iss := newIssuer(t)
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = iss.client
	}
	e := startSTS(t, cfg)
	out, err := e.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(iss.url), ClientIDList: []string{"sts.amazonaws.com"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	provider := *out.OpenIDConnectProviderArn
	trust := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Federated":"` + provider + `"},
		"Action":"sts:AssumeRoleWithWebIdentity",
		"Condition":{"StringEquals":{"` + iss.prefix() + `:sub":"` + serviceAccount + `","` + iss.prefix() + `:aud":"sts.amazonaws.com"}}}}`
	role := e.role(t, "ccm", trust, allow("iam:ListUsers"), 0)
	return &webEnv{stsEnv: e, iss: iss, providerARN: provider, roleARN: role}
}

// claims are a valid token's claims, changed by the given pairs (a nil
// value removes the claim).
func (w *webEnv) claims(changes ...any) map[string]any {
	now := w.clock.now()
	c := map[string]any{"iss": w.iss.url, "sub": serviceAccount, "aud": "sts.amazonaws.com",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()}
	for i := 0; i+1 < len(changes); i += 2 {
		if changes[i+1] == nil {
			delete(c, changes[i].(string))
		} else {
			c[changes[i].(string)] = changes[i+1]
		}
	}
	return c
}

// anonymous is an STS client without credentials, as a workload has before
// it exchanges its token.
func (e *stsEnv) anonymous() *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.url), Retryer: localtest.Retryer()})
}

func (w *webEnv) exchange(token string) (*sts.AssumeRoleWithWebIdentityOutput, error) {
	return w.anonymous().AssumeRoleWithWebIdentity(context.Background(), &sts.AssumeRoleWithWebIdentityInput{
		RoleArn: aws.String(w.roleARN), RoleSessionName: aws.String("ccm"), WebIdentityToken: aws.String(token),
	})
}

func TestAssumeRoleWithWebIdentity(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	ctx := context.Background()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	now := w.clock.now()
	tests := []struct {
		name        string
		token       func(t *testing.T) string
		code, words string
	}{
		{"RS256 token whose sub and aud the trust policy names", func(t *testing.T) string { return w.iss.sign(t, "RS256", w.claims()) }, "", ""},
		{"ES256 token", func(t *testing.T) string { return w.iss.sign(t, "ES256", w.claims()) }, "", ""},
		{"aud list that includes the client ID", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("aud", []string{"other", "sts.amazonaws.com"}))
		}, "", ""},
		{"expired within the five minutes of leeway", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("exp", now.Add(-time.Minute).Unix()))
		}, "", ""},
		{"sub the trust policy does not name", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("sub", "system:serviceaccount:default:default"))
		}, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity"},
		{"aud that is not one of the provider's client IDs", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("aud", "https://kubernetes.default.svc"))
		}, "InvalidIdentityToken", "Incorrect token audience"},
		{"expired beyond the leeway", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("exp", now.Add(-6*time.Minute).Unix()))
		}, "ExpiredTokenException", "Token expired: current date/time"},
		{"not valid yet", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("nbf", now.Add(time.Hour).Unix()))
		}, "IDPRejectedClaim", "not valid yet"},
		{"no exp", func(t *testing.T) string { return w.iss.sign(t, "RS256", w.claims("exp", nil)) }, "InvalidIdentityToken", "no exp claim"},
		{"signed by another key under the published kid", func(t *testing.T) string {
			return signJWT(t, "RS256", "rsa-1", other, nil, w.claims())
		}, "InvalidIdentityToken", "signature does not verify"},
		{"signature of one token on another's claims", func(t *testing.T) string {
			a := strings.Split(w.iss.sign(t, "RS256", w.claims()), ".")
			b := strings.Split(w.iss.sign(t, "RS256", w.claims("sub", "system:serviceaccount:x:y")), ".")
			return a[0] + "." + b[1] + "." + a[2]
		}, "InvalidIdentityToken", "signature does not verify"},
		{"alg none", func(t *testing.T) string { return w.iss.sign(t, "none", w.claims()) }, "InvalidIdentityToken", `signed with "none"`},
		{"HMAC", func(t *testing.T) string { return w.iss.sign(t, "HS256", w.claims()) }, "InvalidIdentityToken", `signed with "HS256"`},
		{"issuer with no provider", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("iss", "https://oidc.example.com"))
		}, "InvalidIdentityToken", "No OpenIDConnect provider found in your account for https://oidc.example.com"},
		{"plain http issuer off loopback", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("iss", "http://oidc.example.com"))
		}, "InvalidIdentityToken", "is not an https URL"},
		{"the provider's issuer over plain http", func(t *testing.T) string {
			return w.iss.sign(t, "RS256", w.claims("iss", "http://"+w.iss.prefix()))
		}, "InvalidIdentityToken", "is not an https URL"},
		{"not a JWT", func(*testing.T) string { return "an-opaque-access-token" }, "InvalidIdentityToken", "not a valid JWT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.exchange(tt.token(t))
			if tt.code != "" {
				wantError(t, "AssumeRoleWithWebIdentity", err, tt.code, tt.words)
				return
			}
			if err != nil {
				t.Fatalf("AssumeRoleWithWebIdentity: %v", err)
			}
			if *out.SubjectFromWebIdentityToken != serviceAccount || *out.Audience != "sts.amazonaws.com" || *out.Provider != w.providerARN {
				t.Errorf("Subject, Audience, Provider = %s, %s, %s", *out.SubjectFromWebIdentityToken, *out.Audience, *out.Provider)
			}
			if *out.AssumedRoleUser.Arn != "arn:aws:sts::"+stsAccount+":assumed-role/ccm/ccm" {
				t.Errorf("AssumedRoleUser.Arn = %s", *out.AssumedRoleUser.Arn)
			}
			if _, err := w.iamAs(session(out.Credentials)).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
				t.Errorf("ListUsers, which the role allows: %v", err)
			}
		})
	}
}

func TestAssumeRoleWithWebIdentityIssuerFailures(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	token := w.iss.sign(t, "RS256", w.claims())
	w.iss.status.Store(http.StatusInternalServerError)
	_, err := w.exchange(token)
	wantError(t, "issuer answering 500", err, "InvalidIdentityToken", "Couldn't retrieve verification key from your identity provider")

	// An issuer nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "https://" + ln.Addr().String()
	_ = ln.Close()
	if _, err := w.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(down), ClientIDList: []string{"sts.amazonaws.com"},
	}); err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	_, err = w.exchange(w.iss.sign(t, "RS256", w.claims("iss", down)))
	wantError(t, "issuer not listening", err, "IDPCommunicationError", "could not be reached")
}

// TestWebIdentityRoleProvider is how controllers get credentials: the SDK's
// stscreds provider exchanging a projected service-account token.
func TestWebIdentityRoleProvider(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	if err := os.WriteFile(path, []byte(w.iss.sign(t, "RS256", w.claims())), 0o600); err != nil {
		t.Fatal(err)
	}
	provider := stscreds.NewWebIdentityRoleProvider(w.anonymous(), w.roleARN, stscreds.IdentityTokenFile(path),
		func(o *stscreds.WebIdentityRoleOptions) { o.RoleSessionName = "cloud-controller-manager" })
	creds, err := aws.NewCredentialsCache(provider).Retrieve(ctx)
	if err != nil {
		t.Fatalf("Retrieve: %v", err)
	}
	if !strings.HasPrefix(creds.AccessKeyID, "ASIA") || !creds.CanExpire || !creds.Expires.After(w.clock.now()) {
		t.Errorf("credentials: key ID %s, expires %v (%v)", creds.AccessKeyID, creds.Expires, creds.CanExpire)
	}
	id, err := w.stsAs(aws.NewCredentialsCache(provider)).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || *id.Arn != "arn:aws:sts::"+stsAccount+":assumed-role/ccm/cloud-controller-manager" {
		t.Errorf("GetCallerIdentity with the exchanged credentials: %v, %v", id, err)
	}
}

// TestWebIdentityKeysFromFile is an issuer leash local cannot reach, such as
// a cluster's in-cluster issuer, whose key set an administrator saved.
func TestWebIdentityKeysFromFile(t *testing.T) {
	iss := newIssuer(t)
	const cluster = "https://kubernetes.default.svc.cluster.local"
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, iss.keySet(), 0o600); err != nil {
		t.Fatal(err)
	}
	e := startSTS(t, localaws.Config{JWKSFiles: map[string]string{cluster: path}})
	out, err := e.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(cluster), ClientIDList: []string{"sts.amazonaws.com"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	trust := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Federated":"` + *out.OpenIDConnectProviderArn + `"},
		"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"kubernetes.default.svc.cluster.local:sub":"` + serviceAccount + `"}}}}`
	role := e.role(t, "ccm", trust, "", 0)
	now := e.clock.now()
	token := iss.sign(t, "ES256", map[string]any{"iss": cluster, "sub": serviceAccount, "aud": []string{"sts.amazonaws.com"}, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	_, err = e.anonymous().AssumeRoleWithWebIdentity(context.Background(), &sts.AssumeRoleWithWebIdentityInput{
		RoleArn: aws.String(role), RoleSessionName: aws.String("ccm"), WebIdentityToken: aws.String(token),
	})
	if err != nil {
		t.Errorf("AssumeRoleWithWebIdentity with keys from a file: %v", err)
	}
}

// TestWebIdentityCallsAreAuditedAsCloudTrailDoes: the unsigned call is
// recorded under the token's subject at its issuer, never with the token.
func TestWebIdentityCallsAreAuditedAsCloudTrailDoes(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	token := w.iss.sign(t, "RS256", w.claims())
	if _, err := w.exchange(token); err != nil {
		t.Fatalf("AssumeRoleWithWebIdentity: %v", err)
	}
	// An answered request is already in the file.
	data, err := os.ReadFile(filepath.Join(w.dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), token) {
		t.Fatal("the audit log holds the web identity token")
	}
	var found *audit.Event
	_, err = audit.Read(strings.NewReader(string(data)), audit.Filter{}, func(e *audit.Event) error {
		if e.EventName == "AssumeRoleWithWebIdentity" {
			found = e
		}
		return nil
	})
	if err != nil || found == nil {
		t.Fatalf("no AssumeRoleWithWebIdentity event (%v)", err)
	}
	id := found.UserIdentity
	if id.Type != "WebIdentityUser" || id.UserName != serviceAccount || !strings.HasSuffix(id.PrincipalID, ":sts.amazonaws.com:"+serviceAccount) || id.IdentityProvider == "" {
		t.Errorf("userIdentity = %+v, want a WebIdentityUser for %s", id, serviceAccount)
	}
}

// TestWebIdentityClaimNamesAreExact pins, through STS, that claim names are
// matched exactly (RFC 7519 §4: names are case-sensitive) and that a name
// given twice is refused: a claim "Exp" does not extend an expired token,
// "Sub" does not replace the subject the trust policy checks.
func TestWebIdentityClaimNamesAreExact(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	now := w.clock.now()
	payload := func(sub, extra string, exp int64) string {
		return fmt.Sprintf(`{"iss":%q,"sub":%q,"aud":"sts.amazonaws.com","iat":%d,"exp":%d%s}`, w.iss.url, sub, now.Unix(), exp, extra)
	}
	later := now.Add(time.Hour).Unix()
	tests := []struct {
		name, payload, code, words string
	}{
		{"exact names are read", payload(serviceAccount, "", later), "", ""},
		{"Exp after an expired exp does not extend the token", payload(serviceAccount, fmt.Sprintf(`,"Exp":%d`, later), now.Add(-time.Hour).Unix()),
			"ExpiredTokenException", "Token expired"},
		{"Sub after sub does not replace the subject", payload("system:serviceaccount:default:default", fmt.Sprintf(`,"Sub":%q`, serviceAccount), later),
			"AccessDenied", notAuthorizedWebIdentity},
		{"a claim named twice is refused", payload("system:serviceaccount:default:default", fmt.Sprintf(`,"sub":%q`, serviceAccount), later),
			"InvalidIdentityToken", `its payload names "sub" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.exchange(w.iss.signRaw(t, "RS256", tt.payload))
			if tt.code == "" {
				if err != nil || *out.SubjectFromWebIdentityToken != serviceAccount {
					t.Fatalf("AssumeRoleWithWebIdentity: %v", err)
				}
				return
			}
			wantError(t, "AssumeRoleWithWebIdentity", err, tt.code, tt.words)
		})
	}
}

// notAuthorizedWebIdentity is STS's message for a trust policy that does
// not allow the token.
const notAuthorizedWebIdentity = "Not authorized to perform sts:AssumeRoleWithWebIdentity"

// TestWebIdentityIssuerIsHTTPSOnly pins that a token's iss must be an
// https URL, the provider's exactly: a provider registered as https:// (IAM
// takes https URLs only) is not reached through an http:// iss, and no key
// is ever fetched over plain http, on loopback included.
func TestWebIdentityIssuerIsHTTPSOnly(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	// An issuer on loopback over plain http, registered as https://.
	var requests atomic.Int32
	plain := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(rw).Encode(map[string]string{"issuer": "http://" + r.Host, "jwks_uri": "http://" + r.Host + "/keys"})
		case "/keys":
			_, _ = rw.Write(w.iss.keySet())
		}
	}))
	t.Cleanup(plain.Close)
	host := strings.TrimPrefix(plain.URL, "http://")
	if _, err := w.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String("https://" + host), ClientIDList: []string{"sts.amazonaws.com"},
	}); err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	tests := []struct{ name, iss string }{
		{"an http iss on loopback for a provider registered as https is refused", plain.URL},
		{"an http iss for an https issuer's provider is refused", "http://" + w.iss.prefix()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.exchange(w.iss.sign(t, "RS256", w.claims("iss", tt.iss)))
			wantError(t, "AssumeRoleWithWebIdentity", err, "InvalidIdentityToken", "is not an https URL")
			if n := requests.Load(); n != 0 {
				t.Errorf("leash local made %d requests over plain http", n)
			}
		})
	}
}

// fetchRecorder is an HTTP client that answers nothing and records what it was
// asked for: a test that keys come from a file fails if any is fetched.
type fetchRecorder struct {
	mu   sync.Mutex
	urls []string
}

func (r *fetchRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.urls = append(r.urls, req.URL.String())
	return nil, errors.New("the test allows no request")
}

func (r *fetchRecorder) fetched() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.urls...)
}

// TestWebIdentityIssuerVariantsDoNotBypassTheKeyFile pins that the token's
// iss is compared with the registered provider's URL exactly: a variant
// that the provider's lookup would map to it (a trailing slash, another
// case, percent-encoding, a default port, a query or fragment) is refused,
// rather than verified with keys fetched from wherever it points instead of
// the provider's --oidc-jwks file.
func TestWebIdentityIssuerVariantsDoNotBypassTheKeyFile(t *testing.T) {
	iss := newIssuer(t)
	const cluster = "https://oidc.cluster.internal/cluster"
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, iss.keySet(), 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &fetchRecorder{}
	e := startSTS(t, localaws.Config{JWKSFiles: map[string]string{cluster: path}, HTTPClient: &http.Client{Transport: rec}})
	out, err := e.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(cluster), ClientIDList: []string{"sts.amazonaws.com"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	trust := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Federated":"` + *out.OpenIDConnectProviderArn + `"},
		"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"oidc.cluster.internal/cluster:sub":"` + serviceAccount + `"}}}}`
	role := e.role(t, "ccm", trust, "", 0)
	now := e.clock.now()
	tests := []struct{ name, iss, words string }{
		{"the provider's URL exactly is verified with the file's keys", cluster, ""},
		{"a trailing slash is another issuer", cluster + "/", "No OpenIDConnect provider found"},
		{"an upper-case host is another issuer", "https://OIDC.cluster.internal/cluster", "a token's iss must be its URL exactly"},
		{"a percent-encoded path is another issuer", "https://oidc.cluster.internal/%63luster", "No OpenIDConnect provider found"},
		{"a percent-encoded host is another issuer", "https://oidc%2Ecluster.internal/cluster", "No OpenIDConnect provider found"},
		{"the default port is another issuer", "https://oidc.cluster.internal:443/cluster", "No OpenIDConnect provider found"},
		{"a query is another issuer", cluster + "?x=1", "No OpenIDConnect provider found"},
		{"a fragment is another issuer", cluster + "#f", "No OpenIDConnect provider found"},
		{"an upper-case scheme is not https", "HTTPS://oidc.cluster.internal/cluster", "is not an https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := iss.sign(t, "ES256", map[string]any{"iss": tt.iss, "sub": serviceAccount, "aud": "sts.amazonaws.com", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
			_, err := e.anonymous().AssumeRoleWithWebIdentity(context.Background(), &sts.AssumeRoleWithWebIdentityInput{
				RoleArn: aws.String(role), RoleSessionName: aws.String("ccm"), WebIdentityToken: aws.String(token),
			})
			if tt.words == "" {
				if err != nil {
					t.Errorf("AssumeRoleWithWebIdentity: %v", err)
				}
			} else {
				wantError(t, "AssumeRoleWithWebIdentity", err, "InvalidIdentityToken", tt.words)
			}
			if got := rec.fetched(); len(got) > 0 {
				t.Errorf("keys were fetched from %v instead of read from the provider's file", got)
			}
		})
	}
}

// TestWebIdentitySignatureIsCanonical pins that a token whose signature
// is re-encoded with the unused bits of its last character set is refused:
// the bytes are the same to a lenient decoder, so it would verify, but
// base64url in a JWS is canonical (RFC 7515 §2) and STS takes one form of
// a token.
func TestWebIdentitySignatureIsCanonical(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	token := w.iss.sign(t, "RS256", w.claims())
	// A 2048-bit RSA signature is 256 bytes: 342 characters, of which the
	// last carries 4 unused bits.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, token[len(token)-1])
	lenient := token[:len(token)-1] + string(alphabet[last|0b1111])
	if lenient == token {
		t.Fatal("the signature's last character already has its unused bits set")
	}
	if _, err := w.exchange(token); err != nil {
		t.Fatalf("AssumeRoleWithWebIdentity with the canonical token: %v", err)
	}
	_, err := w.exchange(lenient)
	wantError(t, "AssumeRoleWithWebIdentity", err, "InvalidIdentityToken", "its signature is not canonical unpadded base64url")
}

// TestWebIdentityAudienceIsAClientID pins the audience check: the token's
// aud, or else its azp (authorized party), must be one of the provider's
// client IDs, or STS answers InvalidIdentityToken "Incorrect token
// audience". With azp a client ID, the aud condition key holds azp and
// oaud the token's aud, as IAM documents for tokens with an azp field
// ("Available keys for AWS web identity federation",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html#condition-keys-wif).
func TestWebIdentityAudienceIsAClientID(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	oaudRole := w.role(t, "oaud", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Federated":"`+w.providerARN+`"},
		"Action":"sts:AssumeRoleWithWebIdentity",
		"Condition":{"StringEquals":{"`+w.iss.prefix()+`:aud":"sts.amazonaws.com","`+w.iss.prefix()+`:oaud":"https://kubernetes.default.svc"}}}}`, "", 0)
	tests := []struct {
		name, role   string
		changes      []any
		code, words  string
		wantAudience string
	}{
		{"aud a client ID passes", w.roleARN, nil, "", "", "sts.amazonaws.com"},
		{"aud not a client ID without azp is refused", w.roleARN, []any{"aud", "https://kubernetes.default.svc"}, "InvalidIdentityToken", "Incorrect token audience", ""},
		{"aud not a client ID and azp not a client ID either is refused", w.roleARN, []any{"aud", "https://kubernetes.default.svc", "azp", "some-other-client"}, "InvalidIdentityToken", "Incorrect token audience", ""},
		{"azp a client ID passes, as the aud condition key, with aud as oaud", oaudRole, []any{"aud", "https://kubernetes.default.svc", "azp", "sts.amazonaws.com"}, "", "", "sts.amazonaws.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := w.anonymous().AssumeRoleWithWebIdentity(context.Background(), &sts.AssumeRoleWithWebIdentityInput{
				RoleArn: aws.String(tt.role), RoleSessionName: aws.String("ccm"), WebIdentityToken: aws.String(w.iss.sign(t, "RS256", w.claims(tt.changes...))),
			})
			if tt.code != "" {
				wantError(t, "AssumeRoleWithWebIdentity", err, tt.code, tt.words)
				return
			}
			if err != nil {
				t.Fatalf("AssumeRoleWithWebIdentity: %v", err)
			}
			if *out.Audience != tt.wantAudience {
				t.Errorf("Audience = %s, want %s", *out.Audience, tt.wantAudience)
			}
		})
	}
}

// TestWebIdentityThumbprintsAreNotUsed pins what docs/local.md says of
// thumbprints: leash local stores them for IAM's API but verifies an
// issuer's TLS certificate with its trusted roots (or reads the keys from an
// --oidc-jwks file), as IAM does for the many providers it secures through
// its library of trusted root CAs ("Obtain the thumbprint for an OpenID
// Connect identity provider",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_providers_create_oidc_verify-thumbprint.html).
// A provider whose thumbprint matches no certificate still verifies tokens.
func TestWebIdentityThumbprintsAreNotUsed(t *testing.T) {
	w := startWebIdentity(t, localaws.Config{})
	if _, err := w.admin.UpdateOpenIDConnectProviderThumbprint(context.Background(), &iam.UpdateOpenIDConnectProviderThumbprintInput{
		OpenIDConnectProviderArn: aws.String(w.providerARN), ThumbprintList: []string{strings.Repeat("0", 40)},
	}); err != nil {
		t.Fatalf("UpdateOpenIDConnectProviderThumbprint: %v", err)
	}
	if _, err := w.exchange(w.iss.sign(t, "RS256", w.claims())); err != nil {
		t.Errorf("AssumeRoleWithWebIdentity with a thumbprint of no certificate: %v", err)
	}
}
