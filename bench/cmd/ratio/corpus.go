package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Corpus is what both engines are timed on: cases of identity policies, each
// with requests and the decision each request was designed to get.
type Corpus struct {
	Cases []Case `json:"cases"`
}

// Case is one set of identity policies and the requests made against it.
type Case struct {
	Name             string          `json:"name"`
	IdentityPolicies []NamedDocument `json:"identityPolicies"`
	Requests         []Request       `json:"requests"`
}

// NamedDocument is a policy with its name, as in leash's simulate contract.
type NamedDocument struct {
	Name     string          `json:"name"`
	Document json.RawMessage `json:"document"`
}

// Request is one request of a case. AccountID is the resource's account,
// which the peer needs spelled out.
type Request struct {
	Principal string                     `json:"principal"`
	Action    string                     `json:"action"`
	Resource  string                     `json:"resource"`
	AccountID string                     `json:"accountId"`
	Context   map[string]json.RawMessage `json:"context,omitempty"`
	Want      string                     `json:"want"`
}

const (
	account = "111122223333"
	alice   = "arn:aws:iam::111122223333:user/alice"
	bucket  = "arn:aws:s3:::example-bucket"
)

// aliceContext is the context of alice's requests: global keys only, which
// apply to every action, so that the peer's strict mode drops none of them.
func aliceContext(overrides map[string]any) map[string]json.RawMessage {
	ctx := map[string]any{
		"aws:username":               "alice",
		"aws:SourceIp":               "203.0.113.7",
		"aws:CurrentTime":            "2026-03-01T12:00:00Z",
		"aws:SecureTransport":        "true",
		"aws:MultiFactorAuthPresent": "true",
		"aws:RequestedRegion":        "eu-west-1",
		"aws:PrincipalOrgPaths":      []string{"o-a1b2c3d4e5/r-ab12/ou-ab12-11111111/ou-ab12-22222222/"},
	}
	for k, v := range overrides {
		ctx[k] = v
	}
	out := make(map[string]json.RawMessage, len(ctx))
	for k, v := range ctx {
		raw, err := json.Marshal(v)
		if err != nil {
			panic(err) // strings and string lists always marshal
		}
		out[k] = raw
	}
	return out
}

// buildCorpus reads the benchmark documents from docs (policy/testdata/bench)
// and pairs each with requests that reach every outcome.
func buildCorpus(docs string) (*Corpus, error) {
	read := func(name string) ([]NamedDocument, error) {
		data, err := os.ReadFile(filepath.Join(docs, name+".json"))
		if err != nil {
			return nil, fmt.Errorf("read benchmark policy: %w", err)
		}
		var compact json.RawMessage
		if err := json.Unmarshal(data, &compact); err != nil {
			return nil, fmt.Errorf("benchmark policy %s: %w", name, err)
		}
		return []NamedDocument{{Name: name, Document: compact}}, nil
	}
	req := func(action, resource, want string, ctx map[string]json.RawMessage) Request {
		return Request{Principal: alice, Action: action, Resource: resource, AccountID: account, Context: ctx, Want: want}
	}
	c := &Corpus{}
	add := func(name string, reqs ...Request) error {
		policies, err := read(name)
		if err != nil {
			return err
		}
		c.Cases = append(c.Cases, Case{Name: name, IdentityPolicies: policies, Requests: reqs})
		return nil
	}
	if err := add("statements-1",
		req("s3:GetObject", bucket+"/report.csv", "Allowed", aliceContext(nil)),
		req("s3:GetObject", "arn:aws:s3:::other-bucket/report.csv", "ImplicitDeny", aliceContext(nil)),
		req("s3:PutObject", bucket+"/report.csv", "ImplicitDeny", aliceContext(nil)),
	); err != nil {
		return nil, err
	}
	if err := add("statements-10-conditions",
		req("s3:GetObject", bucket+"/home/alice/2026/report.csv", "Allowed", aliceContext(nil)),
		req("s3:GetObject", bucket+"/home/alice/2026/report.csv", "ImplicitDeny", aliceContext(map[string]any{"aws:SourceIp": "198.51.100.7"})),
		req("s3:GetObject", bucket+"/home/bob/2026/report.csv", "ImplicitDeny", aliceContext(nil)),
		req("s3:GetObject", bucket+"/home/alice/2026/report.csv", "ExplicitDeny", aliceContext(map[string]any{"aws:SecureTransport": "false"})),
		req("ec2:DescribeInstances", "*", "Allowed", aliceContext(nil)),
		req("iam:CreateUser", "arn:aws:iam::111122223333:user/mallory", "ExplicitDeny", aliceContext(map[string]any{"aws:MultiFactorAuthPresent": "false"})),
	); err != nil {
		return nil, err
	}
	if err := add("statements-50",
		req("s3:GetObject", bucket+"/reports/2026/q1.csv", "Allowed", aliceContext(nil)),
		req("sqs:SendMessage", "arn:aws:sqs:eu-west-1:111122223333:app-1-orders", "Allowed", aliceContext(nil)),
		req("ec2:StartInstances", "arn:aws:ec2:eu-west-1:111122223333:instance/i-0abc1234", "ImplicitDeny", aliceContext(map[string]any{"aws:RequestedRegion": "us-east-1"})),
		req("s3:PutObject", bucket+"/reports/2026/q1.csv", "ImplicitDeny", aliceContext(nil)),
	); err != nil {
		return nil, err
	}
	return c, nil
}
