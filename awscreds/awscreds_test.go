package awscreds

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/credfile"
	"leash.dev/leash/localaws"
)

// Example keys from the AWS documentation, never valid anywhere.
const (
	exampleKeyID  = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// imdsStandIn is an instance metadata service on loopback that counts the
// requests it receives. The SDK is pointed at it through
// AWS_EC2_METADATA_SERVICE_ENDPOINT, so a count of zero proves Load never
// asked instance metadata for anything.
type imdsStandIn struct {
	url      string
	requests atomic.Int64
}

// isolate clears the environment the SDK reads credentials and profiles
// from, points HOME at an empty folder so ~/.aws is not read, and points
// instance metadata at a stand-in.
func isolate(t *testing.T) *imdsStandIn {
	t.Helper()
	for _, name := range []string{
		"AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY", "AWS_SESSION_TOKEN",
		"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_CONFIG_FILE", FileEnv,
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_EC2_METADATA_DISABLED", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_STS",
	} {
		t.Setenv(name, "")
		if err := os.Unsetenv(name); err != nil { // t.Setenv restores it afterwards
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AWS_REGION", "us-east-1")
	s := &imdsStandIn{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		switch {
		case r.Method == http.MethodPut && r.URL.Path == "/latest/api/token":
			_, _ = w.Write([]byte("imds-token"))
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/":
			_, _ = w.Write([]byte("node-role"))
		case r.URL.Path == "/latest/meta-data/iam/security-credentials/node-role":
			_ = json.NewEncoder(w).Encode(map[string]string{"Code": "Success", "AccessKeyId": exampleKeyID,
				"SecretAccessKey": exampleSecret, "Token": "t", "Expiration": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL)
	return s
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadRefusesToStart(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) // writes files, sets the environment
		words string                         // the error names the problem
	}{
		{"no file configured, where the SDK would use instance metadata", func(t *testing.T, dir string) {},
			"AWS_SHARED_CREDENTIALS_FILE is not set"},
		{"missing file", func(t *testing.T, dir string) { t.Setenv(FileEnv, filepath.Join(dir, "credentials")) },
			"/credentials (from AWS_SHARED_CREDENTIALS_FILE or WithCredentialsFile) does not exist"},
		// Tests run as root here, and root reads a mode-000 file, so the
		// unreadable file is a folder at the path: reading it fails with
		// EISDIR, as a permission error would.
		{"unreadable file", func(t *testing.T, dir string) {
			path := filepath.Join(dir, "credentials")
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			t.Setenv(FileEnv, path)
		}, "cannot read credentials file"},
		{"empty file", func(t *testing.T, dir string) { t.Setenv(FileEnv, writeFile(t, dir, "credentials", "\n  \n")) },
			"/credentials is empty"},
		{"keyless file", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", "[default]\nregion = us-east-1\n"))
		}, "profile [default] has neither a key pair (aws_access_key_id, aws_secret_access_key) nor role_arn with web_identity_token_file"},
		{"half a key pair", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", "[default]\naws_access_key_id = "+exampleKeyID+"\n"))
		}, "has aws_access_key_id but no aws_secret_access_key"},
		{"role without a token file", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", "[default]\nrole_arn = arn:aws:iam::111122223333:role/ccm\n"))
		}, "has role_arn but no web_identity_token_file"},
		{"role assumed from instance metadata", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", "[default]\nrole_arn = arn:aws:iam::111122223333:role/ccm\ncredential_source = Ec2InstanceMetadata\n"))
		}, "sets credential_source"},
		{"profile named by AWS_PROFILE is absent", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", credfile.Static(exampleKeyID, exampleSecret, "")))
			t.Setenv("AWS_PROFILE", "ccm")
		}, "has no [ccm] profile"},
		{"environment key that would win over the file", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", credfile.Static(exampleKeyID, exampleSecret, "")))
			t.Setenv("AWS_ACCESS_KEY_ID", exampleKeyID)
		}, "AWS_ACCESS_KEY_ID is set"},
		{"unparsable file", func(t *testing.T, dir string) {
			t.Setenv(FileEnv, writeFile(t, dir, "credentials", "[default\n"))
		}, "line 1: a profile header must end with ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			imds := isolate(t)
			tt.setup(t, t.TempDir())
			_, _, err := Load(context.Background())
			if err == nil || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("Load: %v; want an error with %q", err, tt.words)
			}
			if err != nil && strings.Contains(err.Error(), exampleSecret) {
				t.Errorf("the error holds the secret key")
			}
			if n := imds.requests.Load(); n != 0 {
				t.Errorf("instance metadata got %d requests, want 0", n)
			}
		})
	}
}

// TestInstanceMetadataIsDisabled skips the file checks and hands the SDK a
// keyless profile, with which it falls back to instance metadata: the
// stand-in answers with credentials when the SDK is left alone, and gets
// no request at all through resolve.
func TestInstanceMetadataIsDisabled(t *testing.T) {
	imds := isolate(t)
	path := writeFile(t, t.TempDir(), "credentials", "[default]\nregion = us-east-1\n")
	ctx := context.Background()

	plain, err := config.LoadDefaultConfig(ctx, config.WithSharedCredentialsFiles([]string{path}), config.WithSharedConfigFiles([]string{path}))
	if err != nil {
		t.Fatal(err)
	}
	creds, err := plain.Credentials.Retrieve(ctx)
	if err != nil || imds.requests.Load() == 0 {
		t.Fatalf("the SDK without awscreds did not reach the stand-in: %v, %d requests", err, imds.requests.Load())
	}
	if err := checkSource(creds.Source, Source{Kind: StaticFile, File: path}); err == nil || !strings.Contains(err.Error(), `"EC2RoleProvider"`) {
		t.Errorf("credentials from instance metadata pass the source check: %v", err)
	}

	imds.requests.Store(0)
	_, err = resolve(ctx, options{file: path, profile: "default"}, Source{Kind: StaticFile, File: path, Profile: "default"})
	if err == nil {
		t.Error("resolve accepted a keyless profile")
	}
	if n := imds.requests.Load(); n != 0 {
		t.Errorf("instance metadata got %d requests through resolve, want 0", n)
	}
}

func TestCheckSourceRefusesOtherProviders(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want Kind
		ok   bool
	}{
		{"key pair from the file", "SharedConfigCredentials: /etc/aws-credentials/credentials", StaticFile, true},
		{"web identity", "WebIdentityCredentials", WebIdentity, true},
		{"instance metadata", "EC2RoleProvider", StaticFile, false},
		{"environment keys", "EnvConfigCredentials", StaticFile, false},
		{"web identity where the file holds keys", "WebIdentityCredentials", StaticFile, false},
		{"key pair where the file names a role", "SharedConfigCredentials: /f", WebIdentity, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkSource(tt.got, Source{Kind: tt.want, File: "/f"})
			if (err == nil) != tt.ok {
				t.Errorf("checkSource(%q, %s) = %v", tt.got, tt.want, err)
			}
		})
	}
}

func startLeashLocal(t *testing.T) *localaws.Loopback {
	t.Helper()
	return startLeashLocalWith(t, localaws.Config{})
}

// startLeashLocalWith starts leash local with cfg, in a data folder of the
// test's.
func startLeashLocalWith(t *testing.T, cfg localaws.Config) *localaws.Loopback {
	t.Helper()
	cfg.DataDir = t.TempDir()
	l, err := localaws.StartLoopback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("stopping leash local: %v", err)
		}
	})
	return l
}

func callerARN(t *testing.T, cfg aws.Config) string {
	t.Helper()
	out, err := sts.NewFromConfig(cfg).GetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatalf("GetCallerIdentity: %v", err)
	}
	return aws.ToString(out.Arn)
}

func TestLoadStaticFileAgainstLeashLocal(t *testing.T) {
	imds := isolate(t)
	l := startLeashLocal(t)
	t.Setenv(FileEnv, l.AdminCredentialsPath())
	cfg, src, err := Load(context.Background(), WithEndpoint(l.URL))
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != StaticFile || src.File != l.AdminCredentialsPath() || src.Profile != "default" {
		t.Errorf("source %+v", src)
	}
	if got, want := callerARN(t, cfg), "arn:aws:iam::"+l.AccountID()+":user/admin"; got != want {
		t.Errorf("caller %s, want %s", got, want)
	}
	if n := imds.requests.Load(); n != 0 {
		t.Errorf("instance metadata got %d requests, want 0", n)
	}
}

const serviceAccount = "system:serviceaccount:openshift-cloud-controller-manager:cloud-controller-manager"

// issuer is an OIDC issuer on loopback, served over https, with one RSA
// key; the client trusts its certificate (leash local fetches keys over
// https only).
func issuer(t *testing.T) (string, *rsa.PrivateKey, *http.Client) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	var url string
	b64 := base64.RawURLEncoding.EncodeToString
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": url, "jwks_uri": url + "/keys"})
		case "/keys":
			_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256",
				"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	url = srv.URL
	return url, key, srv.Client()
}

// token is a service-account token from the issuer, signed with RS256.
func token(t *testing.T, iss string, key *rsa.PrivateKey) string {
	t.Helper()
	b64 := base64.RawURLEncoding.EncodeToString
	now := time.Now()
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "kid": "k1", "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": iss, "sub": serviceAccount, "aud": "sts.amazonaws.com",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()})
	input := b64(header) + "." + b64(claims)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

func TestLoadWebIdentityFileAgainstLeashLocal(t *testing.T) {
	imds := isolate(t)
	iss, key, client := issuer(t)
	l := startLeashLocalWith(t, localaws.Config{HTTPClient: client})
	ctx := context.Background()
	admin, _, err := Load(ctx, WithCredentialsFile(l.AdminCredentialsPath()), WithEndpoint(l.URL))
	if err != nil {
		t.Fatal(err)
	}
	adminIAM := iam.NewFromConfig(admin)

	host := strings.TrimPrefix(iss, "https://")
	provider, err := adminIAM.CreateOpenIDConnectProvider(ctx, &iam.CreateOpenIDConnectProviderInput{
		Url: aws.String(iss), ClientIDList: []string{"sts.amazonaws.com"},
	})
	if err != nil {
		t.Fatalf("CreateOpenIDConnectProvider: %v", err)
	}
	trust := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"Federated":"` + aws.ToString(provider.OpenIDConnectProviderArn) + `"},
		"Action":"sts:AssumeRoleWithWebIdentity","Condition":{"StringEquals":{"` + host + `:sub":"` + serviceAccount + `"}}}}`
	role, err := adminIAM.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String("ccm"), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		t.Fatalf("CreateRole: %v", err)
	}
	roleARN := aws.ToString(role.Role.Arn)

	dir := t.TempDir()
	tokenFile := writeFile(t, dir, "token", token(t, iss, key))
	t.Setenv(FileEnv, writeFile(t, dir, "credentials", credfile.WebIdentity(roleARN, tokenFile)))
	cfg, src, err := Load(ctx, WithEndpoint(l.URL))
	if err != nil {
		t.Fatal(err)
	}
	if src.Kind != WebIdentity || src.RoleARN != roleARN {
		t.Errorf("source %+v", src)
	}
	if got, want := callerARN(t, cfg), "arn:aws:sts::"+l.AccountID()+":assumed-role/ccm/"; !strings.HasPrefix(got, want) {
		t.Errorf("caller %s, want %s...", got, want)
	}
	if n := imds.requests.Load(); n != 0 {
		t.Errorf("instance metadata got %d requests, want 0", n)
	}
}
