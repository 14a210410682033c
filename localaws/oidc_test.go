package localaws

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/query"
)

var b64 = base64.RawURLEncoding.EncodeToString

func rsaJWK(kid string, k *rsa.PublicKey) jwk {
	return jwk{Kty: "RSA", Kid: kid, N: b64(k.N.Bytes()), E: b64(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid, crv string, k *ecdsa.PublicKey) jwk {
	point, _ := k.Bytes()
	size := (len(point) - 1) / 2
	return jwk{Kty: "EC", Kid: kid, Crv: crv, X: b64(point[1 : 1+size]), Y: b64(point[1+size:])}
}

// compact signs header and claims with key (an *rsa.PrivateKey or
// *ecdsa.PrivateKey) for alg.
func compact(t *testing.T, header, claims map[string]any, key crypto.Signer) string {
	t.Helper()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	input := b64(h) + "." + b64(c)
	alg, _ := header["alg"].(string)
	a, ok := algorithms[alg]
	if !ok {
		return input + "." + b64([]byte("x"))
	}
	hash := a.hash.New()
	hash.Write([]byte(input))
	digest := hash.Sum(nil)
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		var err error
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, a.hash, digest); err != nil {
			t.Fatal(err)
		}
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			t.Fatal(err)
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		sig = append(r.FillBytes(make([]byte, size)), s.FillBytes(make([]byte, size))...)
	}
	return input + "." + b64(sig)
}

func TestParseJWT(t *testing.T) {
	header := b64([]byte(`{"alg":"RS256","kid":"k"}`))
	claims := b64([]byte(`{"iss":"https://issuer.example","sub":"s","aud":["a","b"],"amr":"pwd","exp":1700000000.5}`))
	tests := []struct {
		name, token, words string
	}{
		{"three parts with JSON header and payload parse", header + "." + claims + ".c2ln", ""},
		{"two parts are not a JWS", header + "." + claims, "2 dot-separated parts"},
		{"an opaque access token is not a JWS", "ya29.a0AfH6SMBx", "2 dot-separated parts"},
		{"padded base64 is refused", header + "." + claims + ".c2ln==", "signature is not unpadded base64url"},
		{"an empty signature is refused", header + "." + claims + ".", "signature"},
		{"a header that is not JSON", b64([]byte("alg")) + "." + claims + ".c2ln", "its header is not JSON"},
		{"a payload that is an array", header + "." + b64([]byte("[1]")) + ".c2ln", "its payload is a JSON array, not an object"},
		{"aud that is a number", header + "." + b64([]byte(`{"aud":5}`)) + ".c2ln", "its payload has a claim of the wrong type: aud is neither"},
		{"exp that is a string", header + "." + b64([]byte(`{"exp":"tomorrow"}`)) + ".c2ln", "exp, nbf and iat must be numbers"},
		{"sub that is a number", header + "." + b64([]byte(`{"sub":5}`)) + ".c2ln", "its payload has a number where sub belongs"},
		{"trailing data after the payload", header + "." + b64([]byte(`{"sub":"s"}{}`)) + ".c2ln", "data after its JSON object"},
		{"critical header extensions are refused", b64([]byte(`{"alg":"RS256","crit":["b64"]}`)) + "." + claims + ".c2ln", "critical extensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJWT(tt.token)
			if tt.words == "" {
				if err != nil {
					t.Fatalf("parseJWT: %v", err)
				}
				c := got.claims
				if got.header.Kid != "k" || c.Issuer != "https://issuer.example" || len(c.Audience) != 2 || len(c.AMR) != 1 || c.Expires.UnixMilli() != 1700000000500 {
					t.Errorf("parsed %+v", got)
				}
				return
			}
			if err == nil || err.Code != "InvalidIdentityToken" || !strings.Contains(err.Message, tt.words) {
				t.Errorf("parseJWT = %v; want InvalidIdentityToken with %q", err, tt.words)
			}
		})
	}
}

func TestVerifySignature(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p521, _ := ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	keys := []jwk{rsaJWK("rsa", &rk.PublicKey), ecJWK("p256", "P-256", &p256.PublicKey), ecJWK("p384", "P-384", &p384.PublicKey),
		ecJWK("p521", "P-521", &p521.PublicKey), rsaJWK("small", &small.PublicKey)}
	claims := map[string]any{"sub": "s"}
	tests := []struct {
		name   string
		header map[string]any
		key    crypto.Signer
		keys   []jwk
		words  string
	}{
		{"RS256 with the kid's key verifies", map[string]any{"alg": "RS256", "kid": "rsa"}, rk, keys, ""},
		{"RS384 verifies", map[string]any{"alg": "RS384", "kid": "rsa"}, rk, keys, ""},
		{"RS512 verifies", map[string]any{"alg": "RS512", "kid": "rsa"}, rk, keys, ""},
		{"ES256 verifies", map[string]any{"alg": "ES256", "kid": "p256"}, p256, keys, ""},
		{"ES384 verifies", map[string]any{"alg": "ES384", "kid": "p384"}, p384, keys, ""},
		{"ES512 verifies", map[string]any{"alg": "ES512", "kid": "p521"}, p521, keys, ""},
		{"no kid tries every key of the algorithm's type", map[string]any{"alg": "ES256"}, p256, keys, ""},
		{"a key of another signer does not verify", map[string]any{"alg": "RS256", "kid": "rsa"}, other, keys, "does not verify"},
		{"an unknown kid has no key", map[string]any{"alg": "RS256", "kid": "gone"}, rk, keys, `no usable RS256 key with kid "gone"`},
		{"an RSA key under 2048 bits is not used", map[string]any{"alg": "RS256", "kid": "small"}, small, keys, "no usable RS256 key"},
		{"an ES256 token does not verify with a P-384 key", map[string]any{"alg": "ES256", "kid": "p384"}, p384, keys, "does not verify"},
		{"a key restricted to another alg is not used", map[string]any{"alg": "RS384", "kid": "rsa"}, rk, []jwk{func() jwk { k := rsaJWK("rsa", &rk.PublicKey); k.Alg = "RS256"; return k }()}, "no usable RS384 key"},
		{"an encryption key is not used", map[string]any{"alg": "RS256", "kid": "rsa"}, rk, []jwk{func() jwk { k := rsaJWK("rsa", &rk.PublicKey); k.Use = "enc"; return k }()}, "no usable RS256 key"},
		{"HS256 is refused", map[string]any{"alg": "HS256", "kid": "rsa"}, rk, keys, `signed with "HS256"`},
		{"PS256 is refused", map[string]any{"alg": "PS256", "kid": "rsa"}, rk, keys, `signed with "PS256"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, qerr := parseJWT(compact(t, tt.header, claims, tt.key))
			if qerr != nil {
				t.Fatal(qerr)
			}
			err := tok.verify(tt.keys)
			if tt.words == "" {
				if err != nil {
					t.Errorf("verify: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("verify = %v; want %q", err, tt.words)
			}
		})
	}
}

func TestJWKPublicKey(t *testing.T) {
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	good := ecJWK("k", "P-256", &p256.PublicKey)
	offCurve := good
	offCurve.Y = b64(make([]byte, 32))
	tests := []struct {
		name  string
		key   jwk
		words string
	}{
		{"an EC point on its curve decodes", good, ""},
		{"an EC point off its curve is refused", offCurve, "not on the curve"},
		{"an unknown curve is refused", jwk{Kty: "EC", Crv: "P-192", X: good.X, Y: good.Y}, "is not P-256"},
		{"short coordinates are refused", jwk{Kty: "EC", Crv: "P-256", X: good.X[:10], Y: good.Y}, "32-byte"},
		{"an RSA key of 2048 bits decodes", rsaJWK("k", &rk.PublicKey), ""},
		{"an RSA key of 1024 bits is refused", jwk{Kty: "RSA", N: b64(rk.N.Bytes()[:128]), E: "AQAB"}, "fewer than 2048"},
		{"an even RSA exponent is refused", jwk{Kty: "RSA", N: b64(rk.N.Bytes()), E: b64([]byte{2})}, "odd number"},
		{"an oct key is refused", jwk{Kty: "oct"}, `key type "oct"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.key.publicKey()
			if (err == nil) != (tt.words == "") || (err != nil && !strings.Contains(err.Error(), tt.words)) {
				t.Errorf("publicKey = %v; want %q", err, tt.words)
			}
		})
	}
}

func TestCheckTimes(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	at := func(d time.Duration) *numericDate { return &numericDate{now.Add(d)} }
	tests := []struct {
		name   string
		claims tokenClaims
		code   string
	}{
		{"a token valid now passes", tokenClaims{Expires: at(time.Hour), NotBef: at(-time.Minute), IssuedAt: at(-time.Minute)}, ""},
		{"expired less than five minutes ago passes (IAM's leeway)", tokenClaims{Expires: at(-4 * time.Minute)}, ""},
		{"expired five minutes ago is expired", tokenClaims{Expires: at(-5 * time.Minute)}, "ExpiredTokenException"},
		{"no exp is refused", tokenClaims{}, "InvalidIdentityToken"},
		{"nbf within the leeway passes", tokenClaims{Expires: at(time.Hour), NotBef: at(4 * time.Minute)}, ""},
		{"nbf beyond the leeway is rejected", tokenClaims{Expires: at(time.Hour), NotBef: at(6 * time.Minute)}, "IDPRejectedClaim"},
		{"iat beyond the leeway is rejected", tokenClaims{Expires: at(time.Hour), IssuedAt: at(6 * time.Minute)}, "IDPRejectedClaim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.claims.checkTimes(now)
			if got := codeOf(err); got != tt.code {
				t.Errorf("checkTimes = %v; want code %q", err, tt.code)
			}
		})
	}
}

func TestIssuerProviderURL(t *testing.T) {
	tests := []struct{ iss, want string }{
		{"https://token.actions.githubusercontent.com", "https://token.actions.githubusercontent.com"},
		{"https://auth.example.com/", "https://auth.example.com"},
		{"https://oidc.eks.us-east-1.amazonaws.com/id/ABC", "https://oidc.eks.us-east-1.amazonaws.com/id/ABC"},
		{"http://127.0.0.1:8080", "https://127.0.0.1:8080"},
		{"http://localhost:8080/realm", "https://localhost:8080/realm"},
		{"http://[::1]:8080", "https://[::1]:8080"},
		{"http://issuer.example.com", ""},
		{"https://issuer.example.com?x=1", ""},
		{"https://user@issuer.example.com", ""},
		{"issuer.example.com", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := issuerProviderURL(tt.iss)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("issuerProviderURL(%q) = %q, %v; want %q", tt.iss, got, err, tt.want)
		}
	}
}

// TestKeysAreKeptAndRefetchedForANewKid pins the key cache: one fetch
// serves many tokens, and a kid the kept keys lack fetches again, but not
// more often than keysMinRefresh.
func TestKeysAreKeptAndRefetchedForANewKid(t *testing.T) {
	var fetches atomic.Int32
	var kid atomic.Value
	kid.Store("one")
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	var url string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": url, "jwks_uri": url + "/keys"})
		case "/keys":
			fetches.Add(1)
			_ = json.NewEncoder(w).Encode(jwks{Keys: []jwk{rsaJWK(kid.Load().(string), &rk.PublicKey)}})
		}
	}))
	defer srv.Close()
	url = srv.URL
	cfg := &Config{HTTPClient: srv.Client()}
	k := newOIDCKeys()
	now := time.Unix(1_800_000_000, 0)
	get := func(at time.Duration, want string) {
		t.Helper()
		keys, err := k.get(context.Background(), cfg, url, want, now.Add(at))
		if err != nil {
			t.Fatalf("get: %v", err)
		}
		if !hasKey(keys, want) {
			t.Errorf("at %v: keys lack %q", at, want)
		}
	}
	get(0, "one")
	get(time.Second, "one")
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for two tokens; want 1", n)
	}
	kid.Store("two")
	if keys, _ := k.get(context.Background(), cfg, url, "two", now.Add(2*time.Second)); hasKey(keys, "two") {
		t.Errorf("a new kid fetched again within keysMinRefresh")
	}
	get(keysMinRefresh+time.Second, "two")
	get(keysMinRefresh+keysTTL+2*time.Second, "two")
	if n := fetches.Load(); n != 3 {
		t.Errorf("%d fetches; want 3 (first, new kid, expired)", n)
	}
}

func codeOf(err *query.Error) string {
	if err == nil {
		return ""
	}
	return err.Code
}

// FuzzParseJWT feeds the token parser arbitrary input: it must not panic,
// and whatever it accepts has three parts and a signature.
func FuzzParseJWT(f *testing.F) {
	f.Add("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzIn0.c2ln")
	f.Add("a.b.c")
	f.Add("..")
	f.Add(b64([]byte(`{"alg":"ES256","crit":[]}`)) + "." + b64([]byte(`{"aud":["x"],"exp":1e10,"amr":["a"]}`)) + ".AA")
	f.Fuzz(func(t *testing.T, token string) {
		tok, err := parseJWT(token)
		if err != nil {
			if err.Code != "InvalidIdentityToken" {
				t.Errorf("code %s", err.Code)
			}
			return
		}
		if len(tok.signature) == 0 || strings.Count(tok.signed, ".") != 1 {
			t.Errorf("accepted a token without two parts and a signature")
		}
		_ = tok.verify(nil)
		_ = tok.claims.checkTimes(time.Unix(0, 0))
	})
}
