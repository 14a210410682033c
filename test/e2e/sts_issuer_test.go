package e2e

import (
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/awscreds"
	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/oidcissuer"
	"leash.dev/leash/localaws"
)

const (
	stsIssuer = "https://oidc.e2e.example/cluster"
	stsNS     = "kube-system"
	stsSA     = "cloud-controller-manager"
)

// TestSTSIssuerEndToEnd is the acceptance for the issuer: the
// kube-apiserver runs as the issuer leash sts create-issuer made, with the
// flags it printed; leash local trusts the issuer through its keys.json and
// holds the provider create-provider made and the role create-roles made for
// examples/ccm-sts; a service account's TokenRequest token is exchanged for
// that role through a pod's SDK path (awscreds.Load on the credentials file
// the Secret would hold); the wrong account, audience and issuer are
// refused with STS's errors. Then the key is rotated: old tokens still work,
// new ones carry the new kid, --prune is refused early, and once it is
// forced the old tokens are refused.
func TestSTSIssuerEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "issuer")

	out := leashOK(t, "sts", "create-issuer", "--issuer-url", stsIssuer, "--max-token-lifetime", "1h", "--out", dir)
	api := apiserver.Start(t, apiserver.Options{Flags: printedFlags(t, out)})

	data := t.TempDir()
	local, url := startInProcessLocal(t, localaws.Config{DataDir: data, AccountID: account,
		JWKSFiles: map[string]string{stsIssuer: oidcissuer.JWKSFile(dir)}})
	adminFile := local.AdminCredentialsPath()
	out = leashOK(t, "sts", "create-provider", "--oidc-issuer", stsIssuer, "--endpoint", url, "--credentials-file", adminFile)
	providerARN, err := oidcissuer.ProviderARN(account, stsIssuer)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Made the OIDC provider "+providerARN) {
		t.Fatalf("create-provider said:\n%s", out)
	}
	roleARN := createRoles(t, url, data)

	for _, sa := range []string{stsSA, "other"} {
		if err := api.Client.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: stsNS, Name: sa}}); err != nil {
			t.Fatal(err)
		}
	}
	signedBefore := tokenFor(ctx, t, api, stsSA, "sts.amazonaws.com")
	first, err := oidcissuer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if kid := tokenKid(t, signedBefore); kid != first.SigningKey().ID {
		t.Fatalf("the API server signed with kid %s, the issuer's key is %s", kid, first.SigningKey().ID)
	}
	// The API server caps tokens at --max-token-lifetime: what prune counts on.
	if exp := tokenExpiry(t, tokenRequest(ctx, t, api, stsSA, "sts.amazonaws.com", 48*3600)); time.Until(exp) > time.Hour+time.Minute {
		t.Errorf("a token asked for 48h expires at %v: the 1h max token lifetime is not applied", exp)
	}
	ex := exchanger{dir: t.TempDir(), url: url, roleARN: roleARN, role: roleARN[strings.LastIndex(roleARN, "/")+1:]}
	ex.assumes(ctx, t, "the service account's token", signedBefore)

	// A token of another issuer, signed with that issuer's own key.
	otherDir := filepath.Join(t.TempDir(), "other-issuer")
	if _, _, err := oidcissuer.Create(otherDir, oidcissuer.CreateOptions{URL: "https://other.e2e.example", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	sub := "system:serviceaccount:" + stsNS + ":" + stsSA
	refusals := []struct {
		name, token, code, msgHas string
	}{
		{name: "another service account is AccessDenied", token: tokenFor(ctx, t, api, "other", "sts.amazonaws.com"), code: "AccessDenied"},
		// STS answers a token whose aud is not a client ID of the provider
		// so (InvalidIdentityToken: Incorrect token audience), before any role.
		{name: "the right account with another audience is InvalidIdentityToken", token: tokenFor(ctx, t, api, stsSA, "other"), code: "InvalidIdentityToken", msgHas: "Incorrect token audience"},
		{name: "another issuer is InvalidIdentityToken: no provider", token: signToken(t, otherDir, "https://other.e2e.example", sub), code: "InvalidIdentityToken", msgHas: "No OpenIDConnect provider"},
		{name: "this issuer's claims signed by another issuer's key is InvalidIdentityToken", token: signToken(t, otherDir, stsIssuer, sub), code: "InvalidIdentityToken"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			ex.refused(ctx, t, r.token, r.code, r.msgHas)
		})
	}

	// Rotation: the API server restarts with the flags rotate-key printed.
	out = leashOK(t, "sts", "rotate-key", "--out", dir)
	api.Restart(t, printedFlags(t, out))
	rotated, err := oidcissuer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	oldKid, newKid := first.SigningKey().ID, rotated.SigningKey().ID
	signedAfter := tokenFor(ctx, t, api, stsSA, "sts.amazonaws.com")
	if kid := tokenKid(t, signedAfter); kid != newKid || kid == oldKid {
		t.Fatalf("after rotate-key the token's kid is %s; want the new key %s", kid, newKid)
	}
	ex.assumes(ctx, t, "a token signed by the old key, after rotate-key", signedBefore)
	ex.assumes(ctx, t, "a token signed by the new key", signedAfter)
	if !authenticates(ctx, t, api, signedBefore) {
		t.Errorf("the restarted API server no longer accepts a token signed by the old key")
	}

	code, _, stderr := leash(t, "sts", "rotate-key", "--out", dir, "--prune")
	if code != 1 || !strings.Contains(stderr, oldKid+" may be pruned from "+rotated.PruneAt(rotated.Keys[0]).Format(time.RFC3339)) {
		t.Fatalf("--prune before the lifetime: exit %d, %s; want 1 naming when", code, stderr)
	}
	ex.assumes(ctx, t, "a token signed by the old key, after the refused prune", signedBefore)

	out = leashOK(t, "sts", "rotate-key", "--out", dir, "--prune", "--force")
	api.Restart(t, printedFlags(t, out))
	ex.refused(ctx, t, signedBefore, "InvalidIdentityToken", oldKid)
	ex.assumes(ctx, t, "a token signed by the new key, after the prune", signedAfter)
	ex.assumes(ctx, t, "a new token after the prune and restart", tokenFor(ctx, t, api, stsSA, "sts.amazonaws.com"))
	if authenticates(ctx, t, api, signedBefore) {
		t.Errorf("the API server restarted after the prune still accepts a token signed by the old key")
	}
}

// leash runs the leash binary and returns its exit status and output.
func leash(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, leashBin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("leash %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

func leashOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, stderr := leash(t, args...)
	if code != 0 {
		t.Fatalf("leash %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
	}
	return out
}

// printedFlags are the kube-apiserver flags a leash sts command printed,
// one a line.
func printedFlags(t *testing.T, out string) []string {
	t.Helper()
	var flags []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "--service-account-") || strings.HasPrefix(line, "--api-audiences=") {
			flags = append(flags, line)
		}
	}
	if len(flags) < 4 {
		t.Fatalf("no kube-apiserver flags in:\n%s", out)
	}
	return flags
}

// createRoles makes the role of examples/ccm-sts's request (the cloud
// controller manager's service account in stsNS) with leash sts
// create-roles at leash local, and returns the role ARN its Secret's
// credentials file names.
func createRoles(t *testing.T, url, data string) string {
	t.Helper()
	requests, secrets := t.TempDir(), filepath.Join(t.TempDir(), "secrets")
	manifest, err := os.ReadFile(filepath.Join("..", "..", "examples", "ccm-sts", "credentialsrequest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(requests, "credentialsrequest.yaml"), manifest, 0o600); err != nil {
		t.Fatal(err)
	}
	leashOK(t, "sts", "create-roles", "-f", requests, "--oidc-issuer", stsIssuer, "--endpoint", url, "--data", data, "--out", secrets)
	raw, err := os.ReadFile(filepath.Join(secrets, stsNS, "cloud-controller-manager-sts-credentials.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err := yaml.UnmarshalStrict(raw, secret); err != nil {
		t.Fatal(err)
	}
	creds := string(secret.Data["credentials"])
	if creds == "" {
		creds = secret.StringData["credentials"]
	}
	file, err := credfile.Parse(creds)
	if err != nil {
		t.Fatal(err)
	}
	roleARN := file["default"]["role_arn"]
	if !strings.HasPrefix(roleARN, "arn:aws:iam::"+account+":role/") {
		t.Fatalf("the Secret's credentials file names role_arn %q", roleARN)
	}
	return roleARN
}

// tokenFor asks the API server for an hour's token of a service account in
// stsNS.
func tokenFor(ctx context.Context, t *testing.T, api *apiserver.Server, sa, audience string) string {
	t.Helper()
	return tokenRequest(ctx, t, api, sa, audience, 3600)
}

func tokenRequest(ctx context.Context, t *testing.T, api *apiserver.Server, sa, audience string, seconds int64) string {
	t.Helper()
	acct := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: stsNS, Name: sa}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: []string{audience}, ExpirationSeconds: &seconds}}
	if err := api.Client.SubResource("token").Create(ctx, acct, tr); err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", stsNS, sa, err)
	}
	return tr.Status.Token
}

// authenticates says whether the API server accepts a token (TokenReview
// with the token's audience, sts.amazonaws.com).
func authenticates(ctx context.Context, t *testing.T, api *apiserver.Server, token string) bool {
	t.Helper()
	tr := &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token, Audiences: []string{"sts.amazonaws.com"}}}
	if err := api.Client.Create(ctx, tr); err != nil {
		t.Fatalf("TokenReview: %v", err)
	}
	return tr.Status.Authenticated
}

// tokenExpiry is a token's exp claim.
func tokenExpiry(t *testing.T, token string) time.Time {
	t.Helper()
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		t.Fatal(err)
	}
	return time.Unix(c.Exp, 0)
}

// tokenKid is the kid in a token's header.
func tokenKid(t *testing.T, token string) string {
	t.Helper()
	header, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(header, &h); err != nil {
		t.Fatal(err)
	}
	return h.Kid
}

// signToken signs a token shaped as kube-apiserver's with the signing key
// of the issuer folder dir, naming iss.
func signToken(t *testing.T, dir, iss, sub string) string {
	t.Helper()
	is, err := oidcissuer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(oidcissuer.PrivateKeyFile(dir, is.SigningKey().ID))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	b64 := func(v any) string {
		j, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(j)
	}
	now := time.Now().Unix()
	signing := b64(map[string]string{"alg": "RS256", "kid": is.SigningKey().ID}) + "." +
		b64(map[string]any{"iss": iss, "sub": sub, "aud": []string{"sts.amazonaws.com"}, "iat": now, "nbf": now, "exp": now + 3600})
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// exchanger runs a pod's SDK path: the token in a file, the Secret's
// credentials file naming it and the role, awscreds.Load against leash
// local.
type exchanger struct {
	dir, url, roleARN, role string
	n                       int
}

func (e *exchanger) load(ctx context.Context, t *testing.T, token string) (aws.Config, error) {
	t.Helper()
	e.n++
	tokenFile := filepath.Join(e.dir, fmt.Sprintf("token-%d", e.n))
	credsFile := filepath.Join(e.dir, fmt.Sprintf("credentials-%d", e.n))
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(credsFile, []byte(credfile.WebIdentity(e.roleARN, tokenFile)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := awscreds.Load(ctx, awscreds.WithCredentialsFile(credsFile), awscreds.WithEndpoint(e.url),
		awscreds.WithLoadOptions(config.WithRegion("us-east-1"), config.WithRetryMaxAttempts(1)))
	return cfg, err
}

// assumes checks the token gets a session of the role.
func (e *exchanger) assumes(ctx context.Context, t *testing.T, what, token string) {
	t.Helper()
	cfg, err := e.load(ctx, t, token)
	if err != nil {
		t.Fatalf("%s: awscreds.Load: %v", what, err)
	}
	id, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("%s: GetCallerIdentity: %v", what, err)
	}
	if want := "arn:aws:sts::" + account + ":assumed-role/" + e.role + "/"; !strings.HasPrefix(aws.ToString(id.Arn), want) {
		t.Errorf("%s: caller %s, want %s…", what, aws.ToString(id.Arn), want)
	}
}

// refused checks the exchange fails with STS's error code.
func (e *exchanger) refused(ctx context.Context, t *testing.T, token, code, msgHas string) {
	t.Helper()
	_, err := e.load(ctx, t, token)
	if got := apiCode(err); got != code || !strings.Contains(fmt.Sprint(err), msgHas) {
		t.Errorf("exchange: %v (code %q); want %s naming %q", err, got, code, msgHas)
	}
}
