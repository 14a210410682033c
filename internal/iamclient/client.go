// Package iamclient is the handful of IAM and STS operations leash performs,
// over aws-sdk-go-v2, against AWS or leash local. It retries throttling and
// server errors with backoff, maps AWS's error codes to predicates, reports
// every attempt to an observer (for metrics and tests), and never returns or
// formats a secret in an error. It holds no decisions: the operator decides.
package iamclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
)

// Config says where IAM is and who calls it.
type Config struct {
	// Endpoint is leash local's URL; empty means AWS.
	Endpoint string
	// Region signs the requests; IAM is global, STS is called regionally.
	Region string
	// Credentials sign every request.
	Credentials aws.CredentialsProvider
	// MaxAttempts bounds the attempts of one call (throttling and 5xx are
	// retried with jittered exponential backoff); 0 means 10.
	MaxAttempts int
	// MaxBackoff bounds the wait between attempts; 0 means 20 s.
	MaxBackoff time.Duration
	// Observe, when set, is told of every attempt: the operation (such as
	// "CreateUser") and its result code ("OK", an AWS error code, or
	// "NetworkError").
	Observe func(operation, code string)
	// HTTPClient sends the requests; nil means the SDK's.
	HTTPClient *http.Client
}

// Client performs leash's IAM and STS calls.
type Client struct {
	cfg Config
	iam *iam.Client
	sts *sts.Client
}

// New returns a client for cfg.
func New(cfg Config) *Client {
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if cfg.MaxAttempts == 0 {
		cfg.MaxAttempts = 10
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 20 * time.Second
	}
	retryer := func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = cfg.MaxAttempts
			o.MaxBackoff = cfg.MaxBackoff
			// The SDK's retry quota fails calls outright once many retries
			// were spent; the operator's work queue already limits its rate,
			// and a failed reconcile costs more calls than a retried one.
			o.RateLimiter = ratelimit.None
		})
	}
	apiOptions := []func(*middleware.Stack) error{}
	if cfg.Observe != nil {
		apiOptions = append(apiOptions, observeAttempts(cfg.Observe))
	}
	var endpoint *string
	if cfg.Endpoint != "" {
		endpoint = aws.String(cfg.Endpoint)
	}
	var httpClient aws.HTTPClient
	if cfg.HTTPClient != nil {
		httpClient = cfg.HTTPClient
	}
	return &Client{
		cfg: cfg,
		iam: iam.New(iam.Options{Region: cfg.Region, BaseEndpoint: endpoint, Credentials: cfg.Credentials,
			Retryer: retryer(), APIOptions: apiOptions, HTTPClient: httpClient}),
		sts: sts.New(sts.Options{Region: cfg.Region, BaseEndpoint: endpoint, Credentials: cfg.Credentials,
			Retryer: retryer(), APIOptions: apiOptions, HTTPClient: httpClient}),
	}
}

// NewHTTPClient is one connection pool for every client a process builds,
// keeping up to maxIdle idle connections. Without it, each client (and one is
// built for every new key, to prove it works) gets a pool of its own that
// keeps a connection and its buffers open for 90 s. Requests are signed one
// by one, so clients of different keys can share connections.
func NewHTTPClient(maxIdle int) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = max(maxIdle, 10)
	return &http.Client{Transport: tr}
}

// WithKey returns a client that signs with key instead, for proving a new
// key or reading who a Secret's key belongs to. It makes one attempt per
// call, so that the caller controls how long it waits for propagation.
func (c *Client) WithKey(key AccessKey) *Client {
	cfg := c.cfg
	cfg.Credentials = key.Provider()
	cfg.MaxAttempts = 1
	return New(cfg)
}

// observeAttempts reports each attempt; it sits after the retry middleware,
// so it runs once per attempt, not once per call.
func observeAttempts(observe func(operation, code string)) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("leashObserveAttempt",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleFinalize(ctx, in)
				observe(awsmiddleware.GetOperationName(ctx), ResultCode(err))
				return out, md, err
			}), middleware.After)
	}
}

// ResultCode is "OK" for nil, AWS's error code for an API error, else
// "NetworkError".
func ResultCode(err error) string {
	if err == nil {
		return "OK"
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return "NetworkError"
}

// Code predicates over AWS's error codes.
func hasCode(err error, codes ...string) bool {
	code := ResultCode(err)
	for _, c := range codes {
		if code == c {
			return true
		}
	}
	return false
}

// IsNotFound is IAM's NoSuchEntity.
func IsNotFound(err error) bool { return hasCode(err, "NoSuchEntity") }

// IsAlreadyExists is IAM's EntityAlreadyExists.
func IsAlreadyExists(err error) bool { return hasCode(err, "EntityAlreadyExists") }

// IsLimitExceeded is IAM's LimitExceeded, such as a third access key.
func IsLimitExceeded(err error) bool { return hasCode(err, "LimitExceeded") }

// IsAccessDenied is AccessDenied in either of its spellings.
func IsAccessDenied(err error) bool {
	return hasCode(err, "AccessDenied", "AccessDeniedException")
}

// IsInvalidKey means the key is unknown to AWS, or not yet: IAM takes a few
// seconds to make a new key usable everywhere.
func IsInvalidKey(err error) bool {
	return hasCode(err, "InvalidClientTokenId", "InvalidAccessKeyId", "SignatureDoesNotMatch", "UnrecognizedClientException")
}

// AccessKey is an access key pair. Its secret half never formats.
type AccessKey struct {
	ID     string
	Secret Secret
	// SessionToken is set for temporary credentials.
	SessionToken Secret
}

// Provider signs with the key.
func (k AccessKey) Provider() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(k.ID, k.Secret.Reveal(), k.SessionToken.Reveal())
}

// Secret is a secret string: it formats as "[redacted]" in every verb, in
// JSON and in logs, and is read only through Reveal.
type Secret struct{ value string }

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{value: s} }

// Reveal returns the secret, for the one place that must write it.
func (s Secret) Reveal() string { return s.value }

// Empty says whether there is no secret.
func (s Secret) Empty() bool { return s.value == "" }

// String redacts.
func (s Secret) String() string { return "[redacted]" }

// GoString redacts.
func (s Secret) GoString() string { return "[redacted]" }

// Format redacts in every verb.
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("[redacted]")) }

// MarshalJSON redacts.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"[redacted]"`), nil }
