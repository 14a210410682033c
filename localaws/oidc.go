package localaws

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	_ "crypto/sha256" // SHA-256 for RS256 and ES256
	_ "crypto/sha512" // SHA-384 and SHA-512 for RS384, RS512, ES384, ES512
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"leash.dev/leash/localaws/internal/query"
)

// JSON Web Tokens (RFC 7519) signed with JWS (RFC 7515), as OIDC ID tokens
// and Kubernetes service-account tokens are: the parsing and the checks STS
// makes before AssumeRoleWithWebIdentity looks at the role's trust policy.
// Fetching the keys is in oidc_keys.go.

// tokenLeeway is the clock skew allowed on a token's times. IAM accepts a
// token for five minutes past its exp, as OIDC Core allows.
const tokenLeeway = 5 * time.Minute

// minRSABits is the smallest RSA key accepted for a signature.
const minRSABits = 2048

// jwt is a token split into its parts and decoded, not yet verified.
type jwt struct {
	header jwsHeader
	claims tokenClaims
	// signed is the JWS signing input, header.payload as sent.
	signed    string
	signature []byte
}

// jwsHeader is the JOSE header parameters STS reads, by exact name (see
// decodeObject).
type jwsHeader struct {
	Alg  string
	Kid  string
	Crit []string
}

func (h *jwsHeader) decode(data []byte) error {
	return decodeObject(data, member{"alg", &h.Alg}, member{"kid", &h.Kid}, member{"crit", &h.Crit})
}

// tokenClaims are the claims STS reads, by exact name (see decodeObject).
type tokenClaims struct {
	Issuer   string
	Subject  string
	Audience audience
	AZP      string
	Email    string
	AMR      stringList
	Expires  *numericDate
	NotBef   *numericDate
	IssuedAt *numericDate
}

func (c *tokenClaims) decode(data []byte) error {
	return decodeObject(data,
		member{"iss", &c.Issuer}, member{"sub", &c.Subject}, member{"aud", &c.Audience},
		member{"azp", &c.AZP}, member{"email", &c.Email}, member{"amr", &c.AMR},
		member{"exp", &c.Expires}, member{"nbf", &c.NotBef}, member{"iat", &c.IssuedAt})
}

// audience is the aud claim: one string or an array of them.
type audience []string

func (a *audience) UnmarshalJSON(data []byte) error {
	var l stringList
	if err := l.UnmarshalJSON(data); err != nil {
		return errors.New("aud is neither a string nor an array of strings")
	}
	*a = audience(l)
	return nil
}

// stringList is a claim that is a string or an array of strings, such as amr.
type stringList []string

func (l *stringList) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return errors.New("neither a string nor an array of strings")
	}
	*l = many
	return nil
}

// numericDate is a JWT time: seconds since the epoch, possibly fractional.
type numericDate struct{ time.Time }

func (d *numericDate) UnmarshalJSON(data []byte) error {
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil || f < 0 || f > 1e11 {
		return errors.New("exp, nbf and iat must be numbers of seconds since the epoch")
	}
	sec := int64(f)
	d.Time = time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
	return nil
}

// parseJWT splits and decodes a compact JWS. It checks the form only; the
// signature and the claims are the caller's to check.
func parseJWT(token string) (*jwt, *query.Error) {
	invalid := func(why string) *query.Error {
		return query.InvalidIdentityToken("The web identity token is not a valid JWT: " + why + ". Send an OpenID Connect ID token (header.payload.signature), not an OAuth access token.")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, invalid(fmt.Sprintf("it has %d dot-separated parts, not 3", len(parts)))
	}
	var t jwt
	if err := decodePart(parts[0], t.header.decode); err != nil {
		return nil, invalid("its header " + err.Error())
	}
	if len(t.header.Crit) > 0 {
		return nil, invalid("its header has critical extensions (crit), which STS does not support")
	}
	if err := decodePart(parts[1], t.claims.decode); err != nil {
		return nil, invalid("its payload " + err.Error())
	}
	sig, err := decodeBase64URL(parts[2])
	if err != nil || len(sig) == 0 {
		return nil, invalid("its signature is not canonical unpadded base64url")
	}
	t.signed, t.signature = parts[0]+"."+parts[1], sig
	return &t, nil
}

// decodePart decodes one base64url JSON part of a JWS with decode. Errors
// say what is wrong without quoting the token.
func decodePart(part string, decode func([]byte) error) error {
	data, err := decodeBase64URL(part)
	if err != nil {
		return err
	}
	return decode(data)
}

// signatureAlgorithm is a JWS alg STS accepts.
type signatureAlgorithm struct {
	hash crypto.Hash
	// curve is nil for RSA (PKCS #1 v1.5) and the curve for ECDSA.
	curve elliptic.Curve
}

// keyType is the JWK kty of the algorithm's keys.
func (a signatureAlgorithm) keyType() string {
	if a.curve == nil {
		return "RSA"
	}
	return "EC"
}

// algorithms are the JWS algorithms STS accepts for ID tokens; none, the
// HMAC ones and anything else are refused.
var algorithms = map[string]signatureAlgorithm{
	"RS256": {hash: crypto.SHA256},
	"RS384": {hash: crypto.SHA384},
	"RS512": {hash: crypto.SHA512},
	"ES256": {hash: crypto.SHA256, curve: elliptic.P256()},
	"ES384": {hash: crypto.SHA384, curve: elliptic.P384()},
	"ES512": {hash: crypto.SHA512, curve: elliptic.P521()},
}

// jwk is one key of a JSON Web Key Set (RFC 7517), RSA or EC. The json
// tags are for writing one; reading is by exact name (decodeKeySet).
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// jwks is a JSON Web Key Set.
type jwks struct {
	Keys []jwk `json:"keys"`
}

func (k *jwk) decode(data []byte) error {
	return decodeObject(data, member{"kty", &k.Kty}, member{"kid", &k.Kid}, member{"use", &k.Use}, member{"alg", &k.Alg},
		member{"n", &k.N}, member{"e", &k.E}, member{"crv", &k.Crv}, member{"x", &k.X}, member{"y", &k.Y})
}

// decodeKeySet reads a JSON Web Key Set by exact names: its keys member,
// and each key's parameters.
func decodeKeySet(data []byte) ([]jwk, error) {
	var raw []json.RawMessage
	if err := decodeObject(data, member{"keys", &raw}); err != nil {
		return nil, err
	}
	keys := make([]jwk, len(raw))
	for i, r := range raw {
		if err := keys[i].decode(r); err != nil {
			return nil, fmt.Errorf("key %d %w", i, err)
		}
	}
	return keys, nil
}

var curves = map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()}

// publicKey decodes the key, refusing RSA keys under minRSABits and EC
// points that are not on their curve.
func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err := decodeBase64URL(k.N)
		if err != nil || len(n) == 0 {
			return nil, errors.New("n is not base64url")
		}
		e, err := decodeBase64URL(k.E)
		if err != nil || len(e) == 0 || len(e) > 4 {
			return nil, errors.New("e is not a base64url exponent")
		}
		key := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if key.N.BitLen() < minRSABits {
			return nil, fmt.Errorf("the RSA key has %d bits, fewer than %d", key.N.BitLen(), minRSABits)
		}
		if key.E < 3 || key.E%2 == 0 {
			return nil, errors.New("the RSA exponent is not an odd number of at least 3")
		}
		return key, nil
	case "EC":
		curve, ok := curves[k.Crv]
		if !ok {
			return nil, fmt.Errorf("curve %q is not P-256, P-384 or P-521", k.Crv)
		}
		size := (curve.Params().BitSize + 7) / 8
		x, errX := decodeBase64URL(k.X)
		y, errY := decodeBase64URL(k.Y)
		if errX != nil || errY != nil || len(x) != size || len(y) != size {
			return nil, fmt.Errorf("x and y are not %d-byte base64url coordinates", size)
		}
		point := append(append([]byte{4}, x...), y...)
		key, err := ecdsa.ParseUncompressedPublicKey(curve, point)
		if err != nil {
			return nil, errors.New("the point is not on the curve")
		}
		return key, nil
	}
	return nil, fmt.Errorf("key type %q is not RSA or EC", k.Kty)
}

// verify checks the token's signature with the keys: the key named by the
// header's kid, or (without a kid) any key that fits the algorithm.
func (t *jwt) verify(keys []jwk) error {
	alg, ok := algorithms[t.header.Alg]
	if !ok {
		return fmt.Errorf("the token is signed with %q; STS accepts RS256, RS384, RS512, ES256, ES384 and ES512", t.header.Alg)
	}
	h := alg.hash.New()
	h.Write([]byte(t.signed))
	digest := h.Sum(nil)
	tried := 0
	for _, k := range keys {
		if t.header.Kid != "" && k.Kid != t.header.Kid {
			continue
		}
		if (k.Alg != "" && k.Alg != t.header.Alg) || (k.Use != "" && k.Use != "sig") {
			continue
		}
		if k.Kty != alg.keyType() {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			continue
		}
		tried++
		switch pub := pub.(type) {
		case *rsa.PublicKey:
			if alg.curve == nil && rsa.VerifyPKCS1v15(pub, alg.hash, digest, t.signature) == nil {
				return nil
			}
		case *ecdsa.PublicKey:
			if alg.curve == nil || pub.Curve != alg.curve {
				continue
			}
			size := (alg.curve.Params().BitSize + 7) / 8
			if len(t.signature) != 2*size {
				continue
			}
			r := new(big.Int).SetBytes(t.signature[:size])
			s := new(big.Int).SetBytes(t.signature[size:])
			if ecdsa.Verify(pub, digest, r, s) {
				return nil
			}
		}
	}
	if tried == 0 {
		if t.header.Kid != "" {
			return fmt.Errorf("the identity provider publishes no usable %s key with kid %q", t.header.Alg, t.header.Kid)
		}
		return fmt.Errorf("the identity provider publishes no usable %s key", t.header.Alg)
	}
	return errors.New("the signature does not verify with the identity provider's keys")
}

// checkTimes checks exp, nbf and iat against now, allowing tokenLeeway. A
// token without exp is refused: STS takes no token that never expires.
func (c *tokenClaims) checkTimes(now time.Time) *query.Error {
	if c.Expires == nil {
		return query.InvalidIdentityToken("The web identity token has no exp claim; STS accepts only tokens that expire.")
	}
	if !now.Before(c.Expires.Add(tokenLeeway)) {
		return query.ExpiredIdentityToken(fmt.Sprintf("Token expired: current date/time %d must be before the expiration date/time %d", now.Unix(), c.Expires.Unix()))
	}
	if c.NotBef != nil && now.Add(tokenLeeway).Before(c.NotBef.Time) {
		return query.IDPRejectedClaim(fmt.Sprintf("The web identity token is not valid yet: its nbf is %d and the current date/time is %d", c.NotBef.Unix(), now.Unix()))
	}
	if c.IssuedAt != nil && now.Add(tokenLeeway).Before(c.IssuedAt.Time) {
		return query.IDPRejectedClaim(fmt.Sprintf("The web identity token was issued in the future: its iat is %d and the current date/time is %d", c.IssuedAt.Unix(), now.Unix()))
	}
	return nil
}
