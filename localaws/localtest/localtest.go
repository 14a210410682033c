// Package localtest starts leash local in a test's own process, with its
// administrator's key and clients, so that the packages that talk to IAM
// and STS are tested against the real endpoint rather than a fake.
package localtest

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/iamclient"
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
// administrator's when nil; it does not retry, so a test sees each answer.
func (e *Endpoint) IAM(creds aws.CredentialsProvider) *iam.Client {
	return iam.New(iam.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL), Credentials: e.creds(creds), RetryMaxAttempts: 1})
}

// STS is an STS client of the endpoint, like IAM.
func (e *Endpoint) STS(creds aws.CredentialsProvider) *sts.Client {
	return sts.New(sts.Options{Region: "us-east-1", BaseEndpoint: aws.String(e.URL), Credentials: e.creds(creds), RetryMaxAttempts: 1})
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
