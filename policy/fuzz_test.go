package policy_test

import (
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/policy"
)

// parseSeeds are documents in every shape AWS accepts and many it rejects,
// including the quirks of its JSON: single values for lists, numbers and
// booleans in conditions, Statement as an object, escapes, duplicates.
var parseSeeds = []string{
	// Accepted shapes.
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":[{"Sid":"A","Effect":"Allow","Action":["s3:Get*","s3:List?ucket"],"Resource":["arn:aws:s3:::b","arn:aws:s3:::b/*"]}]}`,
	`{"Version":"2008-10-17","Id":"old","Statement":[{"Effect":"Deny","NotAction":"iam:*","NotResource":"arn:aws:s3:::b/${aws:username}"}]}`,
	`{"Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"arn:aws:s3:::b/home/${aws:username}/*",
	  "Condition":{"StringLike":{"s3:prefix":["home/${aws:username}/*","${aws:PrincipalTag/team, 'none'}/*","${*}${?}${$}"]}}}]}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:RunInstances","Resource":"*","Condition":{
	  "NumericLessThanEquals":{"ec2:VolumeSize":100,"aws:MultiFactorAuthAge":"3600.5"},
	  "Bool":{"aws:SecureTransport":true,"aws:ViaAWSService":"False"},
	  "DateGreaterThan":{"aws:CurrentTime":"2026-01-01T00:00:00Z","aws:EpochTime":1700000000},
	  "IpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32","192.0.2.1"]},
	  "ForAnyValue:StringEquals":{"aws:TagKeys":["a","b"]},
	  "ForAllValues:StringLikeIfExists":{"aws:TagKeys":"*"},
	  "Null":{"aws:TokenIssueTime":"true"},
	  "BinaryEquals":{"aws:Sig":"QUJD"},
	  "ArnLike":{"aws:SourceArn":"arn:aws:sns:*:111122223333:*"},
	  "stringequalsignorecase":{"aws:username":"Alice"}}}}`,
	`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"},
	  {"Effect":"Deny","NotPrincipal":{"AWS":["arn:aws:iam::111122223333:root","111122223333"]},"Action":"s3:*","Resource":"*"},
	  {"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com","Federated":["accounts.google.com"],"CanonicalUser":"79a59df900b949e55d96a1e698fbaced"},"Action":"s3:PutObject","Resource":"*"}]}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"sts:AssumeRole"}}`,
	`{"\u0056ersion":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::caf\u00e9/*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Deny","Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`,
	"  \n\t{\"Version\":\"2012-10-17\",\"Statement\":{\"Effect\":\"Allow\",\"Action\":\"s3:GetObject\",\"Resource\":\"*\"}}\n  ",
	// Rejected documents.
	``,
	`null`,
	`[]`,
	`"policy"`,
	`{}`,
	`{"Version":"2012-10-17"}`,
	`{"Version":"2012-10-18","Statement":[]}`,
	`{"Version":"2012-10-17","Statement":[]}`,
	`{"Version":"2012-10-17","Statement":null}`,
	`{"Version":"2012-10-17","Statement":[null,1,"x",[]]}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"allow","Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":[],"Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","NotAction":"s3:PutObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"bucket"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${, 'x'}"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/${aws:username, x}"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEqualz":{"k":"v"}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"NullIfExists":{"k":"true"}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"k":[]}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"k":null}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"StringEquals":{"k":{"nested":1}}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"NumericEquals":{"k":"NaN"}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"NumericEquals":{"k":1e400}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"IpAddress":{"k":"10.0.0.0/33"}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"DateEquals":{"k":"2026-02-30"}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":{"BinaryEquals":{"k":"not base64"}}}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*","Condition":"StringEquals"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{},"Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":{"AWS":""},"Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Principal":"arn:aws:iam::111122223333:root","Action":"s3:GetObject","Resource":"*"}}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"},"Extra":1}`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}} trailing`,
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*",}}`,
	`{"Version":"2012-10-17", // comment
	  "Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}}`,
	"\xef\xbb\xbf{\"Version\":\"2012-10-17\",\"Statement\":{\"Effect\":\"Allow\",\"Action\":\"s3:GetObject\",\"Resource\":\"*\"}}",
	"{\"Version\":\"2012-10-17\",\"Statement\":{\"Effect\":\"Allow\",\"Action\":\"s3:Get\xffObject\",\"Resource\":\"*\"}}",
	`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"`,
	`{"Version":"2012-10-17","Statement":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
}

// fuzzRequests are fixed requests every parsed document is decided against:
// an IAM user with a rich context, a role session, a service and a caller
// from another account.
func fuzzRequests() []*policy.Request {
	user := &policy.Request{Principal: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::b/home/alice/x"}
	aliceContext(&user.Context)
	user.Context.SetList("aws:TagKeys", []string{"a", "b"})
	user.Context.Set("aws:EpochTime", "1772366400")
	user.Context.Set("aws:Sig", "QUJD")
	sess := &policy.Request{Principal: appSession, Action: "sts:AssumeRole", Resource: "arn:aws:iam::111122223333:role/app"}
	sess.Context.Set("aws:SourceArn", "arn:aws:sns:eu-west-1:111122223333:t")
	svc := &policy.Request{Principal: "ec2.amazonaws.com", Action: "s3:PutObject", Resource: "arn:aws:s3:::b/k"}
	other := &policy.Request{Principal: "arn:aws:iam::444455556666:user/bob", Action: "ec2:RunInstances", Resource: "*"}
	other.Context.Set("ec2:VolumeSize", "8")
	return []*policy.Request{user, sess, svc, other}
}

// setOf places a document where a document of its kind goes.
func setOf(d *policy.Document, kind policy.Kind) policy.Set {
	var s policy.Set
	s.Add(kind, policy.Named{Name: "fuzz", Document: d})
	return s
}

const numKinds = 7 // Identity through RCP

// FuzzParse checks that no input makes Parse panic, and that what Parse
// accepts compiles and decides without panicking, with Explain agreeing with
// Decide.
func FuzzParse(f *testing.F) {
	for _, s := range parseSeeds {
		for k := uint8(0); k < numKinds; k++ {
			f.Add([]byte(s), k)
		}
	}
	reqs := fuzzRequests()
	f.Fuzz(func(t *testing.T, data []byte, k uint8) {
		kind := policy.Kind(k % numKinds)
		d, err := policy.Parse(data, kind)
		if err != nil {
			if d != nil {
				t.Fatalf("Parse returned a document and an error: %v", err)
			}
			return
		}
		p, err := policy.Compile(setOf(d, kind))
		if err != nil {
			return
		}
		for _, r := range reqs {
			got := p.Decide(r)
			if ex := p.Explain(r).Decision; ex != got {
				t.Fatalf("%s %s: Decide = %v, Explain = %v", r.Principal, r.Action, got, ex)
			}
		}
	})
}

// negations pairs each positive operator with its negation.
var negations = map[string]string{
	"StringEquals":           "StringNotEquals",
	"StringEqualsIgnoreCase": "StringNotEqualsIgnoreCase",
	"StringLike":             "StringNotLike",
	"NumericEquals":          "NumericNotEquals",
	"DateEquals":             "DateNotEquals",
	"IpAddress":              "NotIpAddress",
	"ArnEquals":              "ArnNotEquals",
	"ArnLike":                "ArnNotLike",
}

// positiveOf is negations reversed.
var positiveOf = func() map[string]string {
	m := make(map[string]string, len(negations))
	for pos, neg := range negations {
		m[neg] = pos
	}
	return m
}()

// conditionDecision decides a request with the given context against a
// one-statement identity policy holding one condition; ok is false when the
// condition does not compile.
func conditionDecision(t *testing.T, op, key string, policyValues, contextValues []string, present, multi bool) (d policy.Decision, ok bool) {
	t.Helper()
	doc := &policy.Document{Version: policy.Version2012, Statements: []policy.Statement{{
		Effect: policy.Allow, Action: []string{"s3:GetObject"}, Resource: []string{"*"},
		Conditions: []policy.Condition{{Operator: op, Key: key, Values: policyValues}},
	}}}
	p, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "fuzz", Document: doc}}})
	if err != nil {
		return 0, false
	}
	r := &policy.Request{Principal: alice, Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k"}
	r.Context.Set("aws:username", "alice")
	if present {
		switch {
		case multi:
			r.Context.SetList(key, contextValues)
		case len(contextValues) > 0:
			r.Context.Set(key, contextValues[0])
		default:
			r.Context.Set(key, "")
		}
	}
	got := p.Decide(r)
	if ex := p.Explain(r).Decision; ex != got {
		t.Fatalf("%s: Decide = %v, Explain = %v", op, got, ex)
	}
	return got, true
}

// parsesFor reports whether a context value is, beyond doubt, a well-formed
// operand of the operator's family: values that are not never satisfy a
// condition, negated or not. It errs towards false, which only skips a check.
func parsesFor(op, v string) bool {
	v = strings.TrimSpace(v)
	switch {
	case strings.HasPrefix(op, "Numeric"):
		return plainNumber.MatchString(v)
	case strings.HasPrefix(op, "Date"):
		if len(v) <= 10 && plainNumber.MatchString(v) && !strings.ContainsAny(v, "+-.eE") {
			return true
		}
		_, err := time.Parse(time.RFC3339, v)
		return err == nil
	case strings.Contains(op, "IpAddress"):
		a, err := netip.ParseAddr(v)
		return err == nil && a.Zone() == ""
	}
	return true
}

var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,3})?$`)

// FuzzCondition checks that no condition makes Compile, Decide or Explain
// panic, and the rules that tie operators together: a negated operator is the
// opposite of its positive form for a present single-valued key, the set
// prefixes agree with the plain operator on a single value, IfExists,
// negated operators and ForAllValues hold when the key is absent, and
// ForAnyValue does not, even with IfExists.
func FuzzCondition(f *testing.F) {
	seeds := []struct {
		op, key, pv, cv string
		present, multi  bool
	}{
		{"StringEquals", "aws:PrincipalTag/team", "payments", "payments", true, false},
		{"StringLike", "s3:prefix", "home/${aws:username}/*\nshared/*", "home/alice/x", true, false},
		{"StringEqualsIgnoreCase", "aws:username", "ALICE", "alice", true, false},
		{"StringNotEqualsIfExists", "aws:PrincipalOrgID", "o-a1b2c3d4e5", "", false, false},
		{"ForAnyValue:StringEquals", "aws:TagKeys", "a\nb", "b\nc", true, true},
		{"ForAllValues:StringLike", "aws:TagKeys", "team-*", "", true, true},
		{"NumericLessThan", "aws:MultiFactorAuthAge", "3600", "120", true, false},
		{"NumericGreaterThanEqualsIfExists", "ec2:VolumeSize", "1.5e2", "150", true, false},
		{"DateLessThan", "aws:CurrentTime", "2030-01-01T00:00:00Z", "2026-03-01T12:00:00Z", true, false},
		{"DateGreaterThan", "aws:EpochTime", "1700000000", "2026-03-01", true, false},
		{"Bool", "aws:SecureTransport", "true", "TRUE", true, false},
		{"BinaryEquals", "aws:Sig", "QUJD", "QUJD", true, false},
		{"IpAddress", "aws:SourceIp", "203.0.113.0/24\n2001:db8::/32", "::ffff:203.0.113.9", true, false},
		{"NotIpAddress", "aws:SourceIp", "10.0.0.0/8", "not-an-ip", true, false},
		{"ArnLike", "aws:SourceArn", "arn:aws:sns:*:111122223333:*", "arn:aws:sns:eu-west-1:111122223333:t", true, false},
		{"ArnNotEquals", "aws:SourceArn", "arn:aws:sns:eu-west-1:111122223333:t", "t", true, false},
		{"Null", "aws:TokenIssueTime", "true", "", false, false},
		{"stringlikeifexists", "k", "a?c", "abc", true, false},
		{"ForAnyValue:StringLikeIfExists", "aws:TagKeys", "team-*", "", false, true},
		{"StringNotLike", "aws:userid", "AIDA*", "", false, false},
	}
	for _, s := range seeds {
		f.Add(s.op, s.key, s.pv, s.cv, s.present, s.multi)
	}
	f.Fuzz(func(t *testing.T, op, key, pv, cv string, present, multi bool) {
		pvals := strings.Split(pv, "\n")
		cvals := strings.Split(cv, "\n")
		if cv == "" {
			cvals = nil
		}
		got, ok := conditionDecision(t, op, key, pvals, cvals, present, multi)
		if !ok {
			return
		}
		if strings.Contains(pv, "${") || strings.EqualFold(key, "aws:username") {
			// Variables make the policy value depend on the context.
			return
		}
		base, prefix := op, ""
		if i := strings.IndexByte(op, ':'); i >= 0 {
			prefix, base = strings.ToLower(op[:i+1]), op[i+1:]
		}
		ifExists := strings.HasSuffix(strings.ToLower(base), "ifexists")
		_, negated := positiveOf[base]
		if !present {
			switch {
			case prefix == "foranyvalue:":
				// Even with IfExists: AWS (and the peer) deny
				// ForAnyValue:StringEqualsIfExists on a missing key.
				if got == policy.Allowed {
					t.Errorf("%s with the key absent: Allowed, want ImplicitDeny", op)
				}
			case prefix == "forallvalues:", ifExists:
				if got != policy.Allowed {
					t.Errorf("%s with the key absent: %v, want Allowed", op, got)
				}
			case negated:
				if got != policy.Allowed {
					t.Errorf("%s with the key absent: %v, want Allowed", op, got)
				}
			}
			return
		}
		if multi || len(cvals) != 1 || definedMultivalued(key) {
			// AWS defines some keys (aws:TagKeys) as multivalued: a plain
			// operator matches none of their values, negated or not.
			return
		}
		single := func(o string) policy.Decision {
			d, ok := conditionDecision(t, o, key, pvals, cvals, true, false)
			if !ok {
				t.Fatalf("%s compiles but %s does not", op, o)
			}
			return d
		}
		if prefix != "" {
			if plain := single(base); plain != got {
				t.Errorf("%s on the single value %q: %v, but %s: %v", op, cvals[0], got, base, plain)
			}
			return
		}
		if neg, ok := negations[base]; ok && parsesFor(base, cvals[0]) {
			if n := single(neg); (n == policy.Allowed) == (got == policy.Allowed) {
				t.Errorf("%s %q vs %q: %v, and %s: %v; want opposite decisions", op, pvals, cvals[0], got, neg, n)
			}
		}
	})
}

// definedMultivalued reports whether the context makes key multivalued even
// when it is given one value.
func definedMultivalued(key string) bool {
	var c policy.Context
	c.Set(key, "x")
	return c.IsMultivalued(key)
}
