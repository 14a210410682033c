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
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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

// issuer is an OIDC issuer on loopback: a discovery document and a key set
// with one RSA and one EC key, generated for the test.
type issuer struct {
	url string
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	iss.url = srv.URL
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

// providerURL is the URL the issuer is registered with in IAM, which takes
// https URLs only; leash local fetches loopback issuers over http.
func (i *issuer) providerURL() string { return "https://" + strings.TrimPrefix(i.url, "http://") }

// prefix is the issuer's condition key prefix, as in 127.0.0.1:PORT:sub.
func (i *issuer) prefix() string { return strings.TrimPrefix(i.url, "http://") }

// sign makes a compact JWS of claims with the issuer's key for alg: RS256
// or ES256 with the published keys, or "none" and "HS256" unsigned.
func (i *issuer) sign(t *testing.T, alg string, claims map[string]any) string {
	t.Helper()
	kid := map[string]string{"RS256": "rsa-1", "ES256": "ec-1"}[alg]
	return signJWT(t, alg, kid, i.rsa, i.ec, claims)
}

func signJWT(t *testing.T, alg, kid string, rk *rsa.PrivateKey, ek *ecdsa.PrivateKey, claims map[string]any) string {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	header, _ := json.Marshal(map[string]string{"alg": alg, "kid": kid, "typ": "JWT"})
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	input := b64(header) + "." + b64(payload)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
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
	e := startSTS(t, cfg)
	iss := newIssuer(t)
	out, err := e.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(iss.providerURL()), ClientIDList: []string{"sts.amazonaws.com"},
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
	down := "http://" + ln.Addr().String()
	_ = ln.Close()
	if _, err := w.admin.CreateOpenIDConnectProvider(context.Background(), &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String("https://" + ln.Addr().String()), ClientIDList: []string{"sts.amazonaws.com"},
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
