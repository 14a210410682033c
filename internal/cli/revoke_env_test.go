package cli

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/localtest"
)

// The runbook's account, so examples/ci-role/trust.json applies unchanged.
const (
	incidentAccount = "120392301094"
	githubIssuer    = "https://token.actions.githubusercontent.com"
	mainRef         = "repo:polarsquad/krops:ref:refs/heads/main"
)

// incident is leash local with the runbook's CI role, trusted through
// GitHub's OIDC provider (whose keys are generated here and served to
// leash local from a file), and an administrator to revoke with.
type incident struct {
	l         *localaws.Loopback
	cfg       localaws.Config
	adminFile string
	admin     *iam.Client
	ghKey     *rsa.PrivateKey
}

func startIncident(t *testing.T) *incident {
	t.Helper()
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "gh", "use": "sig", "alg": "RS256",
		"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
	jwksFile := filepath.Join(dir, "github-jwks.json")
	if err := os.WriteFile(jwksFile, jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	in := &incident{ghKey: key, cfg: localaws.Config{DataDir: filepath.Join(dir, "data"), AccountID: incidentAccount,
		JWKSFiles: map[string]string{githubIssuer: jwksFile}}}
	in.start(t)
	t.Cleanup(func() { _ = in.l.Stop() })
	ctx := context.Background()
	if _, err := in.admin.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(githubIssuer), ClientIDList: []string{"sts.amazonaws.com"}}); err != nil {
		t.Fatal(err)
	}
	return in
}

// start starts leash local on the incident's data folder with its
// configuration (the clock offset included).
func (in *incident) start(t *testing.T) {
	t.Helper()
	l, err := localaws.StartLoopback(in.cfg)
	if err != nil {
		t.Fatal(err)
	}
	adminKey, err := iamclient.KeyFromFile(l.AdminCredentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	in.l, in.adminFile = l, l.AdminCredentialsPath()
	in.admin = iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(l.URL), Credentials: adminKey.Provider(), Retryer: localtest.Retryer()})
}

// restartAt stops leash local and starts it again on the same folder with
// its clock set so that the endpoint's time is at (give or take the
// seconds the restart takes).
func (in *incident) restartAt(t *testing.T, at time.Time) {
	t.Helper()
	if err := in.l.Stop(); err != nil {
		t.Fatal(err)
	}
	in.cfg.ClockOffset = time.Until(at)
	in.start(t)
}

// ciRole creates a role trusted as examples/ci-role/trust.json trusts
// krops-ci-e2e (trust given: that file's), allowed iam:ListUsers.
func (in *incident) ciRole(t *testing.T, name, trust string) {
	t.Helper()
	ctx := context.Background()
	if trust == "" {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "ci-role", "trust.json"))
		if err != nil {
			t.Fatal(err)
		}
		trust = string(b)
	}
	if _, err := in.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust),
		MaxSessionDuration: aws.Int32(4 * 3600)}); err != nil {
		t.Fatal(err)
	}
	in.allow(t, "role", name, "iam:ListUsers", "*")
}

// allow puts an inline policy allowing action on resource.
func (in *incident) allow(t *testing.T, kind, name, action, resource string) {
	t.Helper()
	doc := aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"` + action + `","Resource":"` + resource + `"}]}`)
	var err error
	if kind == "role" {
		_, err = in.admin.PutRolePolicy(context.Background(), &iam.PutRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String("work"), PolicyDocument: doc})
	} else {
		_, err = in.admin.PutUserPolicy(context.Background(), &iam.PutUserPolicyInput{UserName: aws.String(name), PolicyName: aws.String("work"), PolicyDocument: doc})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// user creates a user allowed action on resource, with a key.
func (in *incident) user(t *testing.T, name, action, resource string) aws.CredentialsProvider {
	t.Helper()
	ctx := context.Background()
	if _, err := in.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	in.allow(t, "user", name, action, resource)
	k, err := in.admin.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	return credentials.NewStaticCredentialsProvider(*k.AccessKey.AccessKeyId, *k.AccessKey.SecretAccessKey, "")
}

// credentialsFile writes creds as a shared-credentials file with profile.
func credentialsFile(t *testing.T, profile string, creds aws.CredentialsProvider) string {
	t.Helper()
	c, err := creds.Retrieve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "credentials")
	text := "[" + profile + "]\naws_access_key_id = " + c.AccessKeyID + "\naws_secret_access_key = " + c.SecretAccessKey + "\n"
	if c.SessionToken != "" {
		text += "aws_session_token = " + c.SessionToken + "\n"
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// githubToken is a token GitHub's OIDC issuer would give a workflow run of sub.
func (in *incident) githubToken(t *testing.T, sub string) string {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	now := time.Now()
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": "gh", "typ": "JWT"})
	payload, _ := json.Marshal(map[string]any{"iss": githubIssuer, "sub": sub, "aud": "sts.amazonaws.com",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()})
	input := b64(header) + "." + b64(payload)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, in.ghKey, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

// ciSession assumes role with a token of sub, as
// aws-actions/configure-aws-credentials does; the error is the exchange's.
func (in *incident) ciSession(role, token string) (aws.CredentialsProvider, error) {
	anon := sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(in.l.URL), Retryer: localtest.Retryer()})
	out, err := anon.AssumeRoleWithWebIdentity(context.Background(), &sts.AssumeRoleWithWebIdentityInput{
		RoleArn: aws.String("arn:aws:iam::" + incidentAccount + ":role/" + role), RoleSessionName: aws.String("gha"), WebIdentityToken: aws.String(token)})
	if err != nil {
		return nil, err
	}
	c := out.Credentials
	return credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken), nil
}

// userSession is a GetSessionToken session of a user's key.
func (in *incident) userSession(t *testing.T, key aws.CredentialsProvider) aws.CredentialsProvider {
	t.Helper()
	out, err := in.sts(key).GetSessionToken(context.Background(), &sts.GetSessionTokenInput{})
	if err != nil {
		t.Fatal(err)
	}
	c := out.Credentials
	return credentials.NewStaticCredentialsProvider(*c.AccessKeyId, *c.SecretAccessKey, *c.SessionToken)
}

func (in *incident) iam(creds aws.CredentialsProvider) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(in.l.URL), Credentials: creds, Retryer: localtest.Retryer()})
}

func (in *incident) sts(creds aws.CredentialsProvider) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(in.l.URL), Credentials: creds, Retryer: localtest.Retryer()})
}

// listUsers is the call a role session makes, with its error code ("OK").
func (in *incident) listUsers(creds aws.CredentialsProvider) string {
	_, err := in.iam(creds).ListUsers(context.Background(), &iam.ListUsersInput{})
	return iamclient.ResultCode(err)
}

// assumeTarget is the call a user's session makes: GetSessionToken
// sessions may call sts:AssumeRole (and not IAM without MFA).
func (in *incident) assumeTarget(creds aws.CredentialsProvider) string {
	_, err := in.sts(creds).AssumeRole(context.Background(), &sts.AssumeRoleInput{
		RoleArn: aws.String("arn:aws:iam::" + incidentAccount + ":role/target"), RoleSessionName: aws.String("alice-session")})
	return iamclient.ResultCode(err)
}

// revoke runs leash revoke as the administrator against leash local.
func (in *incident) revoke(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return run(t, append([]string{"revoke", "--endpoint", in.l.URL, "--credentials-file", in.adminFile}, args...)...)
}

// state is everything a revocation may change, to compare a dry run's
// before and after.
func (in *incident) state(t *testing.T, users, roles []string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	for _, u := range users {
		keys, _ := in.admin.ListAccessKeys(ctx, &iam.ListAccessKeysInput{UserName: aws.String(u)})
		for _, k := range keys.AccessKeyMetadata {
			b.WriteString(u + " key " + *k.AccessKeyId + " " + string(k.Status) + "\n")
		}
		_, err := in.admin.GetLoginProfile(ctx, &iam.GetLoginProfileInput{UserName: aws.String(u)})
		b.WriteString(u + " login " + iamclient.ResultCode(err) + "\n")
		p, _ := in.admin.ListUserPolicies(ctx, &iam.ListUserPoliciesInput{UserName: aws.String(u)})
		b.WriteString(u + " policies " + strings.Join(p.PolicyNames, ",") + "\n")
	}
	for _, r := range roles {
		role, _ := in.admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(r)})
		b.WriteString(r + " trust " + aws.ToString(role.Role.AssumeRolePolicyDocument) + "\n")
		p, _ := in.admin.ListRolePolicies(ctx, &iam.ListRolePoliciesInput{RoleName: aws.String(r)})
		b.WriteString(r + " policies " + strings.Join(p.PolicyNames, ",") + "\n")
	}
	return b.String()
}

// waitPast sleeps until the wall clock (leash local's) is past t.
func waitPast(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d + 50*time.Millisecond)
	}
}
