// Package localtest starts leash local in a test's own process, with its
// administrator's key and clients, so that the packages that talk to IAM
// and STS are tested against the real endpoint rather than a fake.
package localtest

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws"
)

// Endpoint is leash local on a loopback port, stopped when the test ends.
type Endpoint struct {
	*localaws.Loopback
	// Admin is the administrator's key, as its credentials file holds it.
	Admin iamclient.AccessKey
}

// Start serves cfg (a data folder in t.TempDir() when cfg.DataDir is empty)
// until the test ends, and reports an error stopping it.
func Start(t testing.TB, cfg localaws.Config) *Endpoint {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	l, err := localaws.StartLoopback(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Stop(); err != nil {
			t.Errorf("stopping leash local: %v", err)
		}
	})
	key, err := iamclient.KeyFromFile(l.AdminCredentialsPath())
	if err != nil {
		t.Fatal(err)
	}
	return &Endpoint{Loopback: l, Admin: key}
}

// IAM is an IAM client of the endpoint signing with creds, the
// administrator's when nil. It retries only the SDK's own closed-connection
// race (see Retryer), so a test sees each answer leash local gives.
func (e *Endpoint) IAM(creds aws.CredentialsProvider) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL), Credentials: e.creds(creds), Retryer: Retryer()})
}

// STS is an STS client of the endpoint, like IAM.
func (e *Endpoint) STS(creds aws.CredentialsProvider) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL), Credentials: e.creds(creds), Retryer: Retryer()})
}

// Retryer retries a call only when the SDK's HTTP transport closed the
// connection under an answer ("use of closed network connection" after a
// 200: the SDK's own race over loopback, aws/aws-sdk-go-v2#2737, which its
// default retryer retries too), up to three attempts and without delay.
// Every answer leash local gives, refusals and throttling included, reaches
// the test as it was given.
func Retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "use of closed network connection") {
				return aws.TrueTernary
			}
			return aws.FalseTernary
		})}
	})
}

// Client is leash's own IAM client of the endpoint, as the administrator.
func (e *Endpoint) Client() *iamclient.Client {
	return iamclient.New(iamclient.Config{Endpoint: e.URL, Credentials: e.Admin.Provider(), MaxAttempts: 1})
}

func (e *Endpoint) creds(c aws.CredentialsProvider) aws.CredentialsProvider {
	if c == nil {
		return e.Admin.Provider()
	}
	return c
}

// AccountAdmin is the administrator's key of account id, one of the
// Config's OtherAccounts (or the main one).
func (e *Endpoint) AccountAdmin(t testing.TB, id string) iamclient.AccessKey {
	t.Helper()
	key, err := iamclient.KeyFromFile(e.AccountAdminCredentialsPath(id))
	if err != nil {
		t.Fatal(err)
	}
	return key
}
