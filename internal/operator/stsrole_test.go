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
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/revoke"
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
			arrange: func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest) {
				cr.Spec.ServiceAccountNames = nil
			}},
		{name: "no provider for the issuer is OIDCProviderNotFound", noProvider: true, reason: "OIDCProviderNotFound"},
		{name: "no issuer configured is OIDCIssuerMissing naming the flag", reason: "OIDCIssuerMissing",
			arrange: func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest) {
				e.p = e.provisioner(t, Config{Mode: leashv1.ModeSTS})
			}},
		{name: "a token the API server refuses is TokenRequestForbidden", reason: "TokenRequestForbidden",
			arrange: func(t *testing.T, e *env, iss *testIssuerKey, cr *leashv1.CredentialsRequest) {
				e.cluster.SignToken = func(string, string, string, time.Duration) (string, error) { return "", ErrTokenForbidden }
			}},
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
			for reason, names := range map[string]string{"InvalidRequest": "spec.serviceAccountNames", "OIDCIssuerMissing": "--oidc-issuer"} {
				if c.reason == reason && !strings.Contains(out.Failure.Message, names) {
					t.Errorf("message %q does not name %s", out.Failure.Message, names)
				}
			}
			if s, _ := e.cluster.Secret(e.ctx, "apps", "ccm-creds"); s != nil {
				t.Errorf("Secret written although the role was not proven")
			}
		})
	}
}

// TestSTSRoleLifecycle follows one request: a statement change rewrites
// the role's policy, a serviceAccountNames change its trust, Remove deletes
// the role and its policies, and a role whose request is gone is swept.
func TestSTSRoleLifecycle(t *testing.T) {
	e, _ := stsEnv(t, false)
	cr := stsRequest(t, "ccm", []string{"cloud-controller"}, allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	name := userName("unit", "apps", "ccm", "uid-ccm")

	setEntries(t, cr, allow("*", "ec2:DescribeInstances", "ec2:CreateTags"))
	e.ready(t, cr)
	doc, err := e.admin.RolePolicy(e.ctx, name, policyName(name))
	if err != nil {
		t.Fatal(err)
	}
	equivalent(t, "updated policy", doc, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["ec2:DescribeInstances","ec2:CreateTags"],"Resource":"*"}]}`, policy.Identity)

	cr.Spec.ServiceAccountNames = []string{"cloud-controller", "other"}
	e.ready(t, cr)
	role, err := e.admin.GetRole(e.ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(role.Trust, "system:serviceaccount:apps:other") {
		t.Errorf("trust after the change = %s; want it to name apps:other", role.Trust)
	}
	if !slices.Contains(e.events.reasons("Normal"), "RoleUpdated") {
		t.Errorf("events %v lack RoleUpdated", e.events.reasons("Normal"))
	}

	// A policy over the inline quota goes to managed policies attached to
	// the role, as a minted user's does.
	var big []leashv1.StatementEntry
	for i := range 40 {
		big = append(big, allow("arn:aws:s3:::bucket-with-a-rather-long-name-"+strings.Repeat("x", 10)+"-"+string(rune('a'+i%26))+"/*", "s3:GetObject"))
	}
	setEntries(t, cr, big...)
	e.ready(t, cr)
	attached, err := e.admin.AttachedRolePolicies(e.ctx, name)
	if err != nil || len(attached) == 0 {
		t.Fatalf("attached = %v, %v; want the managed policy", attached, err)
	}
	if names, _ := e.admin.RolePolicyNames(e.ctx, name); len(names) != 0 {
		t.Errorf("inline policies %v stay beside the managed ones", names)
	}

	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if _, err := e.admin.GetRole(e.ctx, name); !iamclient.IsNotFound(err) {
		t.Errorf("GetRole after Remove: %v; want NoSuchEntity", err)
	}
	for _, arn := range attached {
		if _, err := e.admin.ManagedPolicyDocument(e.ctx, arn); !iamclient.IsNotFound(err) {
			t.Errorf("policy %s after Remove: %v; want NoSuchEntity", arn, err)
		}
	}
	if s, _ := e.cluster.Secret(e.ctx, "apps", "ccm-creds"); s != nil {
		t.Errorf("Secret stays after Remove")
	}

	// The sweep: a made role whose request is gone goes; a live one stays.
	gone := stsRequest(t, "gone", []string{"sa"}, allow("*", "ec2:DescribeInstances"))
	live := stsRequest(t, "live", []string{"sa"}, allow("*", "ec2:DescribeInstances"))
	e.ready(t, gone)
	e.ready(t, live)
	e.clock.advance(2 * time.Minute)
	deleted, err := e.p.Sweep(e.ctx, map[string]bool{"uid-live": true}, time.Minute, "")
	if err != nil {
		t.Fatal(err)
	}
	goneName, liveName := userName("unit", "apps", "gone", "uid-gone"), userName("unit", "apps", "live", "uid-live")
	if !slices.Contains(deleted, goneName) || slices.Contains(deleted, liveName) {
		t.Errorf("swept %v; want %s and not %s", deleted, goneName, liveName)
	}
	if _, err := e.admin.GetRole(e.ctx, goneName); !iamclient.IsNotFound(err) {
		t.Errorf("swept role: %v; want NoSuchEntity", err)
	}
	if _, err := e.admin.GetRole(e.ctx, liveName); err != nil {
		t.Errorf("live role: %v", err)
	}
}

// TestSTSRoleModeSwitch: a request turned from STS to Mint gets its user
// and loses its role once the Secret holds the user's key; turned back, it
// gets a role and loses the user. Over the inline quota the role and the
// user share their managed policies' names, and neither switch may delete
// the other's.
func TestSTSRoleModeSwitch(t *testing.T) {
	small := []leashv1.StatementEntry{allow("*", "ec2:DescribeInstances")}
	var big []leashv1.StatementEntry
	for i := range 40 {
		big = append(big, allow("arn:aws:s3:::bucket-with-a-rather-long-name-xxxxxxxxxx-"+string(rune('a'+i%26))+"/*", "s3:GetObject"))
	}
	for _, c := range []struct {
		name    string
		entries []leashv1.StatementEntry
	}{{"inline policy", small}, {"managed policy", big}} {
		t.Run(c.name, func(t *testing.T) {
			e, _ := stsEnv(t, false)
			cr := stsRequest(t, "ccm", []string{"cloud-controller"}, c.entries...)
			name := userName("unit", "apps", "ccm", "uid-ccm")
			e.ready(t, cr)
			cr.Annotations = map[string]string{AnnotationMode: string(leashv1.ModeMint)}
			out := e.ready(t, cr)
			if _, err := e.admin.GetRole(e.ctx, name); !iamclient.IsNotFound(err) {
				t.Errorf("role after the switch to Mint: %v; want NoSuchEntity", err)
			}
			if out.Principal != e.userARN(name) {
				t.Errorf("principal %q; want the user", out.Principal)
			}
			e.actsAs(t, e.publishedKey(t, cr), e.userARN(name))
			cr.Annotations = map[string]string{AnnotationMode: string(leashv1.ModeSTS)}
			out = e.ready(t, cr)
			if !strings.Contains(out.Principal, ":role/") {
				t.Errorf("principal %q after the switch back; want the role", out.Principal)
			}
			if _, err := e.admin.GetUser(e.ctx, name); !iamclient.IsNotFound(err) {
				t.Errorf("user after the switch to STS: %v; want NoSuchEntity", err)
			}
			if c.name == "managed policy" {
				attached, err := e.admin.AttachedRolePolicies(e.ctx, name)
				if err != nil || len(attached) == 0 {
					t.Errorf("role's managed policies %v, %v; want them attached", attached, err)
				}
				for _, arn := range attached {
					if _, err := e.admin.ManagedPolicyDocument(e.ctx, arn); err != nil {
						t.Errorf("role's policy %s: %v", arn, err)
					}
				}
			}
		})
	}
}

// TestSTSRoleRevoke: leash.dev/revoke on a request whose role leash made
// puts the session deny on that role, as on a role the request names.
func TestSTSRoleRevoke(t *testing.T) {
	e, _ := stsEnv(t, false)
	cr := stsRequest(t, "ccm", []string{"cloud-controller"}, allow("*", "ec2:DescribeInstances"))
	e.ready(t, cr)
	name := userName("unit", "apps", "ccm", "uid-ccm")
	e.clock.advance(time.Minute)
	cutoff := e.clock.Now().Truncate(time.Second)
	annotateRevoke(cr, formatTime(cutoff))
	e.clock.advance(time.Minute)
	e.ready(t, cr)
	doc, err := e.admin.RolePolicy(e.ctx, name, revoke.PolicyName)
	if err != nil {
		t.Fatalf("the made role has no %s after the revocation: %v", revoke.PolicyName, err)
	}
	if got, err := denyCutoff(doc); err != nil || !got.Equal(cutoff) {
		t.Errorf("the deny cuts off at %v (%v), want %v", got, err, cutoff)
	}
	if cr.Status.RevokedAt == nil || !cr.Status.RevokedAt.Time.Equal(cutoff) || !strings.Contains(cr.Status.Revocation, name) {
		t.Errorf("status.revokedAt %v, revocation %q; want %v and the role", cr.Status.RevokedAt, cr.Status.Revocation, cutoff)
	}
}
