package apiserver_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"leash.dev/leash/internal/apiserver"
)

// TestIssuerSignsServiceAccountTokens starts the API server as an issuer
// whose key the test made, asks the TokenRequest API for a token of a
// service account with the audience STS expects, and checks the token is
// that issuer's, for that account and audience, signed by that key.
// https://kubernetes.io/docs/reference/kubernetes-api/authentication-resources/token-request-v1/
func TestIssuerSignsServiceAccountTokens(t *testing.T) {
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	priv, pub := filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(priv, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	const issuer = "https://oidc.leash.example/cluster-a"
	api := apiserver.Start(t, apiserver.Options{Issuer: &apiserver.Issuer{URL: issuer, SigningKeyFile: priv, PublicKeyFiles: []string{pub}}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "ccm"}}
	if err := api.Client.Create(ctx, sa); err != nil {
		t.Fatal(err)
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{"sts.amazonaws.com"}, ExpirationSeconds: new(int64(3600))}}
	if err := api.Client.SubResource("token").Create(ctx, sa, tr); err != nil {
		t.Fatalf("TokenRequest: %v", err)
	}
	parts := strings.Split(tr.Status.Token, ".")
	if len(parts) != 3 {
		t.Fatalf("the token is not a JWT: %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Iss string   `json:"iss"`
		Sub string   `json:"sub"`
		Aud []string `json:"aud"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if claims.Iss != issuer || claims.Sub != "system:serviceaccount:default:ccm" || !slices.Equal(claims.Aud, []string{"sts.amazonaws.com"}) {
		t.Errorf("claims = %+v", claims)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, digest[:], sig); err != nil {
		t.Errorf("the token is not signed by the issuer's key: %v", err)
	}
}
