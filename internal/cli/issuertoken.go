package cli

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"time"

	"leash.dev/leash/internal/oidcissuer"
)

// issuerSigner signs service-account tokens with an issuer folder's
// signing key, as kube-apiserver would: where there is no API server
// (leash apply), the proof of a made role uses one.
type issuerSigner struct {
	url string
	kid string
	key *rsa.PrivateKey
	now func() time.Time
}

// loadIssuerSigner reads the issuer folder dir (leash sts create-issuer
// --out DIR) and its current signing key.
func loadIssuerSigner(dir string) (*issuerSigner, error) {
	is, err := oidcissuer.Load(dir)
	if err != nil {
		return nil, err
	}
	kid := is.SigningKey().ID
	data, err := os.ReadFile(oidcissuer.PrivateKeyFile(dir, kid))
	if err != nil {
		return nil, fmt.Errorf("the signing key of issuer %s: %w", dir, err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%s is not a PEM private key", oidcissuer.PrivateKeyFile(dir, kid))
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", oidcissuer.PrivateKeyFile(dir, kid), err)
	}
	return &issuerSigner{url: is.URL, kid: kid, key: key, now: time.Now}, nil
}

// sign is a token of the ServiceAccount for audience, with the claims STS
// reads (iss, sub, aud, exp, iat, nbf) and the kid of the key.
func (s *issuerSigner) sign(namespace, name, audience string, expiry time.Duration) (string, error) {
	now := s.now()
	head, err := json.Marshal(map[string]string{"alg": "RS256", "kid": s.kid, "typ": "JWT"})
	if err != nil {
		return "", err
	}
	claims, err := json.Marshal(map[string]any{
		"iss": s.url, "sub": "system:serviceaccount:" + namespace + ":" + name, "aud": []string{audience},
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(expiry).Unix(),
		"kubernetes.io": map[string]any{"namespace": namespace, "serviceaccount": map[string]string{"name": name}},
	})
	if err != nil {
		return "", err
	}
	signed := base64.RawURLEncoding.EncodeToString(head) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}
