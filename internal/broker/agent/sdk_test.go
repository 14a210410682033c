package agent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"leash.dev/leash/internal/broker"
)

// TestTheAWSSDKReadsCredentialsThroughTheAgent runs the AWS SDK's own
// default credential chain with the variables admission wires: the SDK
// reads the token file, sends it as Authorization to
// AWS_CONTAINER_CREDENTIALS_FULL_URI (plain HTTP, which it allows to
// loopback), and takes the documented JSON the broker answers.
// https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html
func TestTheAWSSDKReadsCredentialsThroughTheAgent(t *testing.T) {
	const token = "eyJhbGciOiJSUzI1NiJ9.projected-token.signature"
	expiration := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != broker.CredentialsPath || r.Header.Get("Authorization") != token {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"code":"Unauthorized","message":"not the pod's token"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"AccessKeyId":"AKIAIOSFODNN7EXAMPLE","SecretAccessKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY","Token":"session-token","Expiration":"` + expiration.Format(time.RFC3339) + `"}`))
	}))
	defer upstream.Close()
	agentURL := serve(t, upstream, Options{})

	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil {
		t.Fatal(err)
	}
	// Only the container provider may answer: no other source is set, and
	// IMDS is off as admission leaves it.
	for k, v := range map[string]string{
		broker.EnvFullURI: agentURL + broker.CredentialsPath, broker.EnvTokenFile: tokenFile,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "eu-west-1",
		"AWS_CONFIG_FILE": filepath.Join(dir, "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_ROLE_ARN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN": "",
	} {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		t.Fatal(err)
	}
	creds, err := cfg.Credentials.Retrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if creds.AccessKeyID != "AKIAIOSFODNN7EXAMPLE" || creds.SecretAccessKey != "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" || creds.SessionToken != "session-token" {
		t.Errorf("the SDK read key %s (and a secret and token that differ from the broker's answer)", creds.AccessKeyID)
	}
	// The SDK's cache renews ahead of the broker's Expiration (its expiry
	// window), never after it.
	if !creds.CanExpire || creds.Expires.After(expiration) || !creds.Expires.After(time.Now()) {
		t.Errorf("expires %v (can expire %v), want by %v", creds.Expires, creds.CanExpire, expiration)
	}
	if creds.Source != "CredentialsEndpointProvider" {
		t.Errorf("credentials from %s, want the SDK's container credentials provider", creds.Source)
	}
}
