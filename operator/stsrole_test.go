package operator

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/credfile"
	"leash.dev/leash/iamclient"
	"leash.dev/leash/policy"
)

const testIssuer = "https://issuer.unit.example/cluster"

// testIssuerKey is a service-account issuer made for the test: its key
// signs tokens as kube-apiserver does (RS256, kid the base64url SHA-256 of
// the public key's PKIX DER), and its key set is written for leash local.
type testIssuerKey struct {
	key *rsa.PrivateKey
	kid string
	now func() time.Time
}

func newTestIssuer(t *testing.T, now func() time.Time) (*testIssuerKey, string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	kid := base64.RawURLEncoding.EncodeToString(sum[:])
	set := map[string]any{"keys": []any{map[string]any{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes())}}}
	data, _ := json.Marshal(set)
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return &testIssuerKey{key: key, kid: kid, now: now}, path
}

// sign is a FolderCluster's SignToken: a token of the service account.
func (k *testIssuerKey) sign(namespace, name, audience string, expiry time.Duration) (string, error) {
	now := k.now()
	head, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": k.kid, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": testIssuer, "sub": "system:serviceaccount:" + namespace + ":" + name,
		"aud": []string{audience}, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(expiry).Unix()})
	signed := base64.RawURLEncoding.EncodeToString(head) + "." + base64.RawURLEncoding.EncodeToString(claims)
	sum := sha256.Sum256([]byte(signed))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k.key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// stsEnv is an env in STS mode trusting the test's issuer, with the IAM
// OIDC provider made unless noProvider.
func stsEnv(t *testing.T, noProvider bool) (*env, *testIssuerKey) {
	t.Helper()
	var iss *testIssuerKey
	clk := &clock{}
	iss, jwks := newTestIssuer(t, clk.Now)
	e := newEnv(t, envOptions{jwks: map[string]string{testIssuer: jwks},
		cfg: Config{Mode: leashv1.ModeSTS, OIDCIssuer: testIssuer, ProofTimeout: 2 * time.Second}})
	iss.now = e.clock.Now
	e.cluster.SignToken = iss.sign
	e.p = e.provisioner(t, Config{Mode: leashv1.ModeSTS, OIDCIssuer: testIssuer, ProofTimeout: 2 * time.Second})
	if !noProvider {
		_, err := e.sdk(t).CreateOpenIDConnectProvider(e.ctx, &iam.CreateOpenIDConnectProviderInput{
			Url: aws.String(testIssuer), ClientIDList: []string{DefaultAudience}, ThumbprintList: []string{strings.Repeat("a", 40)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return e, iss
}

func stsRequest(t *testing.T, name string, sas []string, entries ...leashv1.StatementEntry) *leashv1.CredentialsRequest {
	cr := mintRequest(t, name, entries...)
	cr.Spec.ServiceAccountNames = sas
	return cr
}

func TestSTSRoleMade(t *testing.T) {
	e, _ := stsEnv(t, false)
	cr := stsRequest(t, "ccm", []string{"cloud-controller", "node-ctl"}, allow("*", "ec2:DescribeInstances"))
	out := e.ready(t, cr)
	name := userName("unit", "apps", "ccm", "uid-ccm")
	arn := "arn:aws:iam::" + e.account + ":role/leash/unit/" + name
	if out.Principal != arn {
		t.Fatalf("principal = %q; want %q", out.Principal, arn)
	}
	role, err := e.admin.GetRole(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	wantTrust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Federated":"arn:aws:iam::` + e.account +
		`:oidc-provider/issuer.unit.example/cluster"},"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{` +
		`"issuer.unit.example/cluster:sub":["system:serviceaccount:apps:cloud-controller","system:serviceaccount:apps:node-ctl"],` +
		`"issuer.unit.example/cluster:aud":"sts.amazonaws.com"}}}]}`
	equivalent(t, "trust", role.Trust, wantTrust, policy.Trust)
	if role.MaxSessionDuration != time.Hour {
		t.Errorf("MaxSessionDuration = %v; want 1h", role.MaxSessionDuration)
	}
	if role.Tags[TagRequestUID] != "uid-ccm" || role.Tags[TagCluster] != "unit" {
		t.Errorf("tags = %v; want the request's UID and the cluster", role.Tags)
	}
	doc, err := e.admin.RolePolicy(e.ctx, name, policyName(name))
	if err != nil {
		t.Fatal(err)
	}
	equivalent(t, "policy", doc, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:DescribeInstances"],"Resource":"*"}]}`, policy.Identity)
	s := e.secret(t, cr)
	if got, want := string(s.Data[SecretKeyCredentials]), credfile.WebIdentity(arn, leashv1.DefaultCloudTokenPath); got != want {
		t.Errorf("Secret credentials = %q; want %q", got, want)
	}
	if !slices.Contains(e.events.reasons("Normal"), "RoleCreated") {
		t.Errorf("events %v lack RoleCreated", e.events.reasons("Normal"))
	}
}

func equivalent(t *testing.T, what, have, want string, kind policy.Kind) {
	t.Helper()
	h, err := policy.Parse([]byte(have), kind)
	if err != nil {
		t.Fatalf("%s %s: %v", what, have, err)
	}
	w, err := policy.Parse([]byte(want), kind)
	if err != nil {
		t.Fatalf("want %s: %v", what, err)
	}
	if !policy.Equivalent(h, w) {
		t.Errorf("%s = %s\nwant %s", what, have, want)
	}
}

func TestSTSRoleRefusals(t *testing.T) {
	cases := []struct {
		name       string
		noProvider bool
		arrange    func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest)
		reason     string
	}{
		{name: "no serviceAccountNames is an input error naming the field", reason: "InvalidRequest",
			arrange: func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest) { cr.Spec.ServiceAccountNames = nil }},
		{name: "no provider for the issuer is OIDCProviderNotFound", noProvider: true, reason: "OIDCProviderNotFound"},
		{name: "a trust that refuses the token is TrustRefused", reason: "TrustRefused",
			arrange: func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest) {
				// The proof signs for the first service account; the trust
				// names another.
				e.cluster.SignToken = func(ns, _, aud string, d time.Duration) (string, error) {
					return iss.sign(ns, "intruder", aud, d)
				}
			}},
		{name: "a role of that name not leash's is RoleNameTaken", reason: "RoleNameTaken",
			arrange: func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest) {
				name := userName("unit", "apps", "ccm", "uid-ccm")
				_, err := e.admin.CreateRole(e.ctx, iamclient.NewRole{Name: name, Path: "/leash/unit/",
					Trust: `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + e.account + `:root"},"Action":"sts:AssumeRole"}]}`})
				if err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, iss := stsEnv(t, c.noProvider)
			cr := stsRequest(t, "ccm", []string{"cloud-controller"}, allow("*", "ec2:DescribeInstances"))
			if c.arrange != nil {
				c.arrange(t, e, iss, cr)
				e.p.cluster = e.cluster
			}
			out, err := e.sync(t, e.p, cr)
			if out.Failure == nil || out.Failure.Reason != c.reason {
				t.Fatalf("failure = %+v (err %v); want %s", out.Failure, err, c.reason)
			}
			if c.reason == "InvalidRequest" && !strings.Contains(out.Failure.Message, "spec.serviceAccountNames") {
				t.Errorf("message %q does not name spec.serviceAccountNames", out.Failure.Message)
			}
			if s, _ := e.cluster.Secret(e.ctx, "apps", "ccm-creds"); s != nil {
				t.Errorf("Secret written although the role was not proven")
			}
		})
	}
}
