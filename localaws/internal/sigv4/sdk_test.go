package sigv4

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
)

// errCaptured stops the SDK after it has signed and sent its request.
var errCaptured = errors.New("request captured")

// capture is an HTTP client that keeps the request the SDK sends and
// answers nothing, so that the test needs no network.
type capture struct {
	r    *http.Request
	body []byte
}

func (c *capture) Do(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	c.r, c.body = r, body
	return nil, errCaptured
}

func sdkConfig(k key, region string, client *capture) aws.Config {
	return aws.Config{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(k.id, k.secret.SecretAccessKey, k.secret.SessionToken),
		HTTPClient:   client,
		Retryer:      func() aws.Retryer { return aws.NopRetryer{} },
		BaseEndpoint: aws.String("http://127.0.0.1:4566"),
	}
}

// TestVerifyAcceptsServiceClients signs with the IAM and STS clients
// themselves, headers and all, as leash's users will.
func TestVerifyAcceptsServiceClients(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     key
		service string
		call    func(context.Context, aws.Config) error
	}{
		{name: "IAM ListUsers from the IAM client verifies as iam", key: newKey(), service: "iam",
			call: func(ctx context.Context, cfg aws.Config) error {
				_, err := iam.NewFromConfig(cfg).ListUsers(ctx, &iam.ListUsersInput{})
				return err
			}},
		{name: "STS GetCallerIdentity from the STS client verifies as sts", key: newKey(), service: "sts",
			call: func(ctx context.Context, cfg aws.Config) error {
				_, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
				return err
			}},
		{name: "STS with temporary credentials verifies with the session token", key: newTemporaryKey(), service: "sts",
			call: func(ctx context.Context, cfg aws.Config) error {
				_, err := sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
				return err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c capture
			err := tc.call(context.Background(), sdkConfig(tc.key, "eu-central-1", &c))
			if !errors.Is(err, errCaptured) {
				t.Fatalf("the SDK call did not reach the HTTP client: %v", err)
			}
			s := overTheWire(t, c.r, c.body)
			got, verr := Verify(s.r, s.body, time.Now(), lookupOf(tc.key))
			wantCode(t, verr, "")
			if got.Service != tc.service || got.Region != "eu-central-1" || got.AccessKeyID != tc.key.id ||
				got.SessionToken != tc.key.secret.SessionToken {
				t.Errorf("Verify proved %v; want %s in eu-central-1/%s", got, tc.key.id, tc.service)
			}
		})
	}
}

// TestVerifyAcceptsSTSPresignClient presigns GetCallerIdentity with the STS
// presign client, as EKS-style tokens do, and replays the URL.
func TestVerifyAcceptsSTSPresignClient(t *testing.T) {
	k := newTemporaryKey()
	presigner := sts.NewPresignClient(sts.NewFromConfig(sdkConfig(k, "us-east-1", &capture{})))
	p, err := presigner.PresignGetCallerIdentity(context.Background(), &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := http.NewRequest(p.Method, p.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range p.SignedHeader {
		if name != "Host" {
			r.Header[name] = values
		}
	}
	s := overTheWire(t, r, nil)
	got, verr := Verify(s.r, s.body, time.Now(), lookupOf(k))
	wantCode(t, verr, "")
	if !got.Presigned || got.Service != "sts" {
		t.Errorf("Verify proved %v; want a presigned sts request", got)
	}
}
