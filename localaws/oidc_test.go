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
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
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
		{"padded base64 is refused", header + "." + claims + ".c2ln==", "signature is not canonical unpadded base64url"},
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

// trailingBits re-encodes s, unpadded base64url of a length that is not a
// multiple of 4, with the unused low bits of its last character set: the
// same bytes to a lenient decoder, another string to a strict one.
func trailingBits(t *testing.T, s string) string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	unused := map[int]int{2: 0b1111, 3: 0b11}[len(s)%4]
	if unused == 0 {
		t.Fatalf("%d characters leave no unused bits", len(s))
	}
	last := strings.IndexByte(alphabet, s[len(s)-1])
	return s[:len(s)-1] + string(alphabet[last|unused])
}

// TestJWTPartsAreCanonicalBase64URL pins that each part of a token is read
// with strict, canonical base64url (RFC 7515 §2: base64url without padding
// or line breaks): a part whose last character has its unused bits set, or
// with padding or a line break, is refused, even though a lenient decoder
// reads the same bytes from it.
func TestJWTPartsAreCanonicalBase64URL(t *testing.T) {
	header := b64([]byte(`{"alg":"RS256"}`))              // 15 bytes: 20 characters, no spare bits
	headerSpare := b64([]byte(`{"alg":"RS256" }`))        // 16 bytes: 22 characters, 4 spare bits
	claims := b64([]byte(`{"sub":"s","exp":1700000000}`)) // 28 bytes: 38 characters, 2 spare bits
	sig := b64([]byte("signature"))                       // 9 bytes: no spare bits
	sigSpare := b64([]byte("signature!"))                 // 10 bytes: 14 characters, 4 spare bits
	tests := []struct {
		name, token, words string
	}{
		{"canonical parts parse", headerSpare + "." + claims + "." + sigSpare, ""},
		{"a signature with its unused bits set is refused", header + "." + claims + "." + trailingBits(t, sigSpare), "its signature is not canonical"},
		{"a payload with its unused bits set is refused", header + "." + trailingBits(t, claims) + "." + sig, "its payload is not canonical"},
		{"a header with its unused bits set is refused", trailingBits(t, headerSpare) + "." + claims + "." + sig, "its header is not canonical"},
		{"a padded signature is refused", header + "." + claims + "." + sigSpare + "==", "its signature is not canonical"},
		{"a padded payload is refused", header + "." + claims + "==." + sig, "its payload is not canonical"},
		{"a line break in the signature is refused", header + "." + claims + "." + sig[:4] + "\n" + sig[4:], "its signature is not canonical"},
		{"a line break in the header is refused", header[:4] + "\r\n" + header[4:] + "." + claims + "." + sig, "its header is not canonical"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseJWT(tt.token)
			if tt.words == "" {
				if err != nil {
					t.Fatalf("parseJWT: %v", err)
				}
				return
			}
			if err == nil || err.Code != "InvalidIdentityToken" || !strings.Contains(err.Message, tt.words) {
				t.Errorf("parseJWT = %v; want InvalidIdentityToken with %q", err, tt.words)
			}
		})
	}
}

// TestJWTNamesAreExact pins that claim and JOSE header names are matched
// exactly (RFC 7519 §4 and RFC 7515 §4: names are case-sensitive): "Exp"
// is not exp and "Sub" is not sub, whatever their order; and that a name
// given twice is refused (RFC 7519 §4 lets a parser refuse it; taking
// either would let the token's form choose the claim).
func TestJWTNamesAreExact(t *testing.T) {
	tests := []struct {
		name           string
		header, claims string
		check          func(*jwt) string // "" when the parsed token is as the rule says
		words          string
	}{
		{"Exp after exp does not replace exp", `{"alg":"RS256"}`, `{"exp":1700000000,"Exp":1900000000}`, func(j *jwt) string {
			if j.claims.Expires == nil || j.claims.Expires.Unix() != 1700000000 {
				return fmt.Sprintf("exp = %v", j.claims.Expires)
			}
			return ""
		}, ""},
		{"Sub after sub does not replace sub", `{"alg":"RS256"}`, `{"sub":"alice","Sub":"admin"}`, func(j *jwt) string {
			if j.claims.Subject != "alice" {
				return "sub = " + j.claims.Subject
			}
			return ""
		}, ""},
		{"SUB alone is no sub", `{"alg":"RS256"}`, `{"SUB":"admin","ISS":"https://x","AUD":"a","EXP":1}`, func(j *jwt) string {
			if c := j.claims; c.Subject != "" || c.Issuer != "" || len(c.Audience) != 0 || c.Expires != nil {
				return fmt.Sprintf("claims = %+v", c)
			}
			return ""
		}, ""},
		{"an escaped name is the name it spells", `{"alg":"RS256"}`, `{"\u0073ub":"alice"}`, func(j *jwt) string {
			if j.claims.Subject != "alice" {
				return "sub = " + j.claims.Subject
			}
			return ""
		}, ""},
		{"Alg and Kid are not alg and kid", `{"alg":"RS256","Alg":"none","kid":"k","KID":"other"}`, `{}`, func(j *jwt) string {
			if j.header.Alg != "RS256" || j.header.Kid != "k" {
				return fmt.Sprintf("header = %+v", j.header)
			}
			return ""
		}, ""},
		{"Crit is not crit", `{"alg":"RS256","Crit":["b64"]}`, `{}`, func(j *jwt) string {
			if len(j.header.Crit) != 0 {
				return fmt.Sprintf("crit = %v", j.header.Crit)
			}
			return ""
		}, ""},
		{"a claim named twice is refused", `{"alg":"RS256"}`, `{"sub":"alice","sub":"admin"}`, nil, `its payload names "sub" twice`},
		{"a claim named twice, once escaped, is refused", `{"alg":"RS256"}`, `{"exp":1,"\u0065xp":2}`, nil, `its payload names "exp" twice`},
		{"a header parameter named twice is refused", `{"alg":"RS256","alg":"none"}`, `{}`, nil, `its header names "alg" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJWT(b64([]byte(tt.header)) + "." + b64([]byte(tt.claims)) + ".c2ln")
			if tt.words != "" {
				if err == nil || err.Code != "InvalidIdentityToken" || !strings.Contains(err.Message, tt.words) {
					t.Errorf("parseJWT = %v; want InvalidIdentityToken with %q", err, tt.words)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseJWT: %v", err)
			}
			if why := tt.check(got); why != "" {
				t.Error(why)
			}
		})
	}
}

// TestKeySetNamesAreExact pins that a JSON Web Key Set and its keys are
// read by exact parameter names (RFC 7517 §4 and §5), refusing a name given
// twice.
func TestKeySetNamesAreExact(t *testing.T) {
	tests := []struct {
		name, set string
		want      []jwk
		words     string
	}{
		{"exact names are read", `{"keys":[{"kty":"EC","crv":"P-256","x":"AA","y":"AQ","kid":"k"}]}`, []jwk{{Kty: "EC", Crv: "P-256", X: "AA", Y: "AQ", Kid: "k"}}, ""},
		{"KTY and Kid are not kty and kid", `{"keys":[{"kty":"EC","KTY":"RSA","kid":"k","Kid":"other"}]}`, []jwk{{Kty: "EC", Kid: "k"}}, ""},
		{"Keys is not keys", `{"Keys":[{"kty":"EC"}]}`, []jwk{}, ""},
		{"a key parameter named twice is refused", `{"keys":[{"kty":"EC","kty":"RSA"}]}`, nil, `key 0 names "kty" twice`},
		{"keys named twice is refused", `{"keys":[],"keys":[{"kty":"EC"}]}`, nil, `names "keys" twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeKeySet([]byte(tt.set))
			if tt.words != "" {
				if err == nil || !strings.Contains(err.Error(), tt.words) {
					t.Errorf("decodeKeySet = %v; want %q", err, tt.words)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeKeySet: %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("decodeKeySet = %+v; want %+v", got, tt.want)
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

// TestKeysAreKeptAndRefetchedForANewKid pins the key cache: one fetch
// serves many tokens, and a kid the kept keys lack fetches again, but not
// more often than keysMinRefresh.
func TestKeysAreKeptAndRefetchedForANewKid(t *testing.T) {
	var fetches atomic.Int32
	var kid atomic.Value
	kid.Store("one")
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	var url string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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

// TestEverySupportedAlgorithmVerifiesItsSignature pins, for each algorithm
// STS accepts, that a token signed with the published key verifies and
// that the same token with a corrupted signature, or one made by another
// key of the same kind, does not: no algorithm is taken unverified.
func TestEverySupportedAlgorithmVerifiesItsSignature(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	otherRSA, _ := rsa.GenerateKey(rand.Reader, 2048)
	ec := map[string]*ecdsa.PrivateKey{}
	otherEC := map[string]*ecdsa.PrivateKey{}
	keys := []jwk{rsaJWK("RSA", &rk.PublicKey)}
	for crv, curve := range curves {
		ec[crv], _ = ecdsa.GenerateKey(curve, rand.Reader)
		otherEC[crv], _ = ecdsa.GenerateKey(curve, rand.Reader)
		keys = append(keys, ecJWK(crv, crv, &ec[crv].PublicKey))
	}
	signers := func(alg string) (kid string, key, other crypto.Signer) {
		a := algorithms[alg]
		if a.curve == nil {
			return "RSA", rk, otherRSA
		}
		crv := a.curve.Params().Name
		return crv, ec[crv], otherEC[crv]
	}
	algs := slices.Sorted(maps.Keys(algorithms))
	if len(algs) != 6 {
		t.Fatalf("STS accepts %v; this test covers each", algs)
	}
	claims := map[string]any{"sub": "s"}
	for _, alg := range algs {
		kid, key, other := signers(alg)
		header := map[string]any{"alg": alg, "kid": kid}
		t.Run(alg+" with the published key verifies", func(t *testing.T) {
			tok, _ := parseJWT(compact(t, header, claims, key))
			if err := tok.verify(keys); err != nil {
				t.Errorf("verify: %v", err)
			}
		})
		t.Run(alg+" with a corrupted signature does not verify", func(t *testing.T) {
			tok, _ := parseJWT(compact(t, header, claims, key))
			for _, at := range []int{0, len(tok.signature) / 2, len(tok.signature) - 1} {
				bad := *tok
				bad.signature = slices.Clone(tok.signature)
				bad.signature[at] ^= 0x01
				if err := bad.verify(keys); err == nil || !strings.Contains(err.Error(), "does not verify") {
					t.Errorf("byte %d flipped: verify = %v; want it refused", at, err)
				}
			}
		})
		t.Run(alg+" signed by another key does not verify", func(t *testing.T) {
			tok, _ := parseJWT(compact(t, header, claims, other))
			if err := tok.verify(keys); err == nil || !strings.Contains(err.Error(), "does not verify") {
				t.Errorf("verify = %v; want it refused", err)
			}
		})
		t.Run(alg+" on other claims does not verify", func(t *testing.T) {
			a := strings.Split(compact(t, header, claims, key), ".")
			b := strings.Split(compact(t, header, map[string]any{"sub": "admin"}, key), ".")
			tok, _ := parseJWT(a[0] + "." + b[1] + "." + a[2])
			if err := tok.verify(keys); err == nil || !strings.Contains(err.Error(), "does not verify") {
				t.Errorf("verify = %v; want it refused", err)
			}
		})
	}
}

// TestDiscoveryDocumentMustNameTheIssuerIdentically pins OpenID Connect
// Discovery 1.0 §4.3: the issuer a discovery document names must be
// identical to the issuer whose document it is, or its keys are not used;
// and the key set must be fetched over https.
func TestDiscoveryDocumentMustNameTheIssuerIdentically(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	var doc atomic.Value
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_, _ = w.Write([]byte(doc.Load().(string)))
		case "/keys":
			_ = json.NewEncoder(w).Encode(jwks{Keys: []jwk{rsaJWK("k", &rk.PublicKey)}})
		}
	}))
	defer srv.Close()
	iss := srv.URL
	host := strings.TrimPrefix(iss, "https://")
	document := func(issuer, jwksURI string) string {
		return fmt.Sprintf(`{"issuer":%q,"jwks_uri":%q}`, issuer, jwksURI)
	}
	tests := []struct {
		name, doc, words string
	}{
		{"the issuer named identically is used", document(iss, iss+"/keys"), ""},
		{"the issuer with a trailing slash is another", document(iss+"/", iss+"/keys"), "names issuer"},
		{"the issuer in upper case is another", document("HTTPS://"+strings.ToUpper(host), iss+"/keys"), "names issuer"},
		{"the issuer over http is another", document("http://"+host, iss+"/keys"), "names issuer"},
		{"the issuer with a path is another", document(iss+"/other", iss+"/keys"), "names issuer"},
		{"no issuer is another", `{"jwks_uri":"` + iss + `/keys"}`, "names issuer"},
		{"Issuer is not issuer", `{"Issuer":"` + iss + `","jwks_uri":"` + iss + `/keys"}`, "names issuer"},
		{"issuer named twice is refused", `{"issuer":"https://other.example","issuer":"` + iss + `","jwks_uri":"` + iss + `/keys"}`, `names "issuer" twice`},
		{"a key set over http is not fetched", document(iss, "http://"+host+"/keys"), "is not an https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc.Store(tt.doc)
			keys, err := fetchKeys(context.Background(), srv.Client(), iss)
			if tt.words == "" {
				if err != nil || !hasKey(keys, "k") {
					t.Fatalf("fetchKeys = %v, %v", keys, err)
				}
				return
			}
			if err == nil || err.Code != "InvalidIdentityToken" || !strings.Contains(err.Message, tt.words) {
				t.Errorf("fetchKeys = %v; want InvalidIdentityToken with %q", err, tt.words)
			}
		})
	}
}

// FuzzDecodeKeySet feeds the key set reader arbitrary input: it must not
// panic, and a set it accepts has no member named twice at its top.
func FuzzDecodeKeySet(f *testing.F) {
	f.Add(`{"keys":[{"kty":"RSA","n":"AQAB","e":"AQAB"}]}`)
	f.Add(`{"keys":[],"keys":[]}`)
	f.Add(`{"Keys":[{"KTY":"EC"}]}`)
	f.Add(`{"keys":[{"kty":"EC","\u006bty":"RSA"}]}`)
	f.Fuzz(func(t *testing.T, set string) {
		keys, err := decodeKeySet([]byte(set))
		if err != nil {
			return
		}
		if _, err := exactObject([]byte(set)); err != nil {
			t.Errorf("accepted a set whose object is refused: %v", err)
		}
		for _, k := range keys {
			_, _ = k.publicKey()
		}
	})
}
