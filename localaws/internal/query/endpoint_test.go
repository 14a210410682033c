package query_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws/internal/query"
)

// AWS's documented example keys.
const (
	exampleAccessKeyID = "AKIAIOSFODNN7EXAMPLE"
	exampleSecretKey   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// endpoint is a stand-in for leash's IAM and STS endpoint: it answers each
// action with a canned result or error through this package, and keeps
// what it parsed for the test to inspect.
type endpoint struct {
	t   *testing.T
	srv *httptest.Server

	mu        sync.Mutex
	answers   map[string]answer
	requests  []*query.Request
	requestID string
}

type answer struct {
	result any
	err    *query.Error
}

func newEndpoint(t *testing.T) *endpoint {
	e := &endpoint{t: t, answers: map[string]answer{}}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

// answer makes the endpoint answer action with result (nil for none).
func (e *endpoint) answer(action string, result any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answers[action] = answer{result: result}
}

// fail makes the endpoint answer action with err.
func (e *endpoint) fail(action string, err *query.Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.answers[action] = answer{err: err}
}

// last returns the request the endpoint parsed last, and the request ID it
// gave it.
func (e *endpoint) last() (*query.Request, string) {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.requests) == 0 {
		e.t.Fatal("the endpoint parsed no request")
	}
	return e.requests[len(e.requests)-1], e.requestID
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request) {
	id := query.NewRequestID()
	e.mu.Lock()
	e.requestID = id
	e.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		e.t.Errorf("read body: %v", err)
	}
	req, perr := query.Parse(r, body)
	if perr != nil {
		e.t.Errorf("Parse refused what the SDK sent (%s): %v", body, perr)
		query.WriteError(w, query.IAMNamespace, perr, id)
		return
	}
	// The SDK signs every call but the two STS takes from callers with
	// no credentials yet.
	anonymous := req.Action == "AssumeRoleWithWebIdentity" || req.Action == "AssumeRoleWithSAML"
	if auth := r.Header.Get("Authorization"); !anonymous && !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+exampleAccessKeyID+"/") {
		e.t.Errorf("%s is not SigV4-signed with the example key: Authorization = %q", req.Action, auth)
	}
	namespace := map[string]string{"2010-05-08": query.IAMNamespace, "2011-06-15": query.STSNamespace}[req.Version]
	e.mu.Lock()
	e.requests = append(e.requests, req)
	a, ok := e.answers[req.Action]
	e.mu.Unlock()
	switch {
	case namespace == "" || !ok:
		query.WriteError(w, query.IAMNamespace, query.InvalidAction(req.Action, req.Version), id)
	case a.err != nil:
		query.WriteError(w, namespace, a.err, id)
	default:
		query.WriteResult(w, namespace, req.Action, a.result, id)
	}
}

// The SDK clients, as a user would configure them for leash local: the
// endpoint's URL, a region, static keys. Retries are off so that an error
// reaches the test as the endpoint wrote it.

func (e *endpoint) iam() *iam.Client {
	return iam.New(iam.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(exampleAccessKeyID, exampleSecretKey, ""),
		BaseEndpoint: aws.String(e.srv.URL),
		HTTPClient:   e.srv.Client(),
		Retryer:      aws.NopRetryer{},
	})
}

func (e *endpoint) sts() *sts.Client {
	return sts.New(sts.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider(exampleAccessKeyID, exampleSecretKey, ""),
		BaseEndpoint: aws.String(e.srv.URL),
		HTTPClient:   e.srv.Client(),
		Retryer:      aws.NopRetryer{},
	})
}
