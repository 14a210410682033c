package policy_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// A fixture is one request with the policies that bear on it, shaped like
// the requests leash answers in production.
type fixture struct {
	name string
	set  func(testing.TB) policy.Set
	req  func() *policy.Request
	want policy.Decision
}

const (
	alice       = "arn:aws:iam::111122223333:user/alice"
	appSession  = "arn:aws:sts::111122223333:assumed-role/app/i-0abc1234"
	bucket      = "arn:aws:s3:::example-bucket"
	currentTime = "2026-03-01T12:00:00Z"
)

// The documents live in testdata/bench, where bench/cmd/ratio reads the
// ones it times against the peer engine:
//   - statements-1: the smallest useful identity policy;
//   - statements-10-conditions: ten statements over several services, most
//     with conditions, the one that allows the request near the end;
//   - statements-50: fifty statements over ten services, one in five with a
//     condition, only the last allowing the request;
//   - not-action: everything but IAM, and S3 denied outside one bucket;
//   - operators: one condition of each operator family;
//   - app-identity, bucket, boundary, session, full-access-scp, eu-only-scp,
//     org-only-rcp: a role session writing to a bucket of its own account
//     inside an organization.

func mustParse(tb testing.TB, name string, kind policy.Kind) *policy.Document {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "bench", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	d, err := policy.Parse(data, kind)
	if err != nil {
		tb.Fatalf("parse %s: %v", name, err)
	}
	return d
}

func identitySet(name string) func(testing.TB) policy.Set {
	return func(tb testing.TB) policy.Set {
		return policy.Set{Identity: []policy.Named{{Name: name, Document: mustParse(tb, name, policy.Identity)}}}
	}
}

func fullSet(tb testing.TB) policy.Set {
	named := func(name string, kind policy.Kind) policy.Named {
		return policy.Named{Name: name, Document: mustParse(tb, name, kind)}
	}
	bucketPolicy := named("bucket", policy.Resource)
	boundary := named("boundary", policy.Boundary)
	session := named("session", policy.Session)
	return policy.Set{
		Identity:       []policy.Named{named("app-identity", policy.Identity)},
		ResourcePolicy: &bucketPolicy,
		Boundary:       &boundary,
		Session:        &session,
		SCPs: [][]policy.Named{
			{named("full-access-scp", policy.SCP)},
			{named("full-access-scp", policy.SCP), named("eu-only-scp", policy.SCP)},
		},
		RCPs: [][]policy.Named{{named("org-only-rcp", policy.RCP)}},
	}
}

func aliceContext(c *policy.Context) {
	c.Set("aws:username", "alice")
	c.Set("aws:SourceIp", "203.0.113.7")
	c.Set("aws:CurrentTime", currentTime)
	c.Set("aws:SecureTransport", "true")
	c.Set("aws:MultiFactorAuthPresent", "true")
	c.Set("aws:RequestedRegion", "eu-west-1")
	c.SetList("aws:PrincipalOrgPaths", []string{"o-a1b2c3d4e5/r-ab12/ou-ab12-11111111/ou-ab12-22222222/"})
}

func fixtures() []fixture {
	return []fixture{
		{
			name: "statements=1",
			set:  identitySet("statements-1"),
			req: func() *policy.Request {
				return &policy.Request{Principal: alice, Action: "s3:GetObject", Resource: bucket + "/report.csv"}
			},
			want: policy.Allowed,
		},
		{
			name: "statements=10-conditions",
			set:  identitySet("statements-10-conditions"),
			req: func() *policy.Request {
				r := &policy.Request{Principal: alice, Action: "s3:GetObject", Resource: bucket + "/home/alice/2026/report.csv"}
				aliceContext(&r.Context)
				return r
			},
			want: policy.Allowed,
		},
		{
			name: "statements=50",
			set:  identitySet("statements-50"),
			req: func() *policy.Request {
				r := &policy.Request{Principal: alice, Action: "s3:GetObject", Resource: bucket + "/reports/2026/q1.csv"}
				r.Context.Set("aws:RequestedRegion", "eu-west-1")
				return r
			},
			want: policy.Allowed,
		},
		{
			name: "operators",
			set:  identitySet("operators"),
			req: func() *policy.Request {
				r := &policy.Request{Principal: appSession, Action: "sqs:SendMessage", Resource: "arn:aws:sqs:eu-west-1:111122223333:orders-eu"}
				r.Context.Set("aws:PrincipalTag/team", "payments")
				r.Context.Set("aws:userid", "AROAEXAMPLE:i-0abc1234")
				r.Context.Set("aws:MultiFactorAuthAge", "120")
				r.Context.Set("aws:EpochTime", "1772366400")
				r.Context.Set("aws:PrincipalTag/fingerprint", "c2hhMjU2OmU0Y2I2YzU3ZWI5ZTc2YjFhZmY0YzA1ZjI1NjNmYjYx")
				r.Context.Set("aws:SourceArn", "arn:aws:sns:eu-west-1:111122223333:orders-topic")
				r.Context.Set("aws:SourceIp", "2001:db8::1")
				r.Context.Set("aws:TokenIssueTime", currentTime)
				r.Context.SetList("aws:TagKeys", []string{"team", "env"})
				return r
			},
			want: policy.Allowed,
		},
		{
			name: "NotAction-NotResource",
			set:  identitySet("not-action"),
			req: func() *policy.Request {
				return &policy.Request{Principal: alice, Action: "s3:PutObject", Resource: "arn:aws:s3:::other-bucket/x"}
			},
			want: policy.ExplicitDeny,
		},
		{
			name: "resource+boundary+session+SCP",
			set:  fullSet,
			req: func() *policy.Request {
				r := &policy.Request{Principal: appSession, Action: "s3:PutObject", Resource: bucket + "/uploads/2026/03/01/a.json"}
				r.Context.Set("aws:SecureTransport", "true")
				r.Context.Set("aws:RequestedRegion", "eu-west-1")
				r.Context.Set("aws:PrincipalOrgID", "o-a1b2c3d4e5")
				r.Context.Set("aws:PrincipalIsAWSService", "false")
				r.Context.Set("aws:CurrentTime", currentTime)
				return r
			},
			want: policy.Allowed,
		},
	}
}

func compileFixture(tb testing.TB, f fixture) *policy.Policies {
	tb.Helper()
	p, err := policy.Compile(f.set(tb))
	if err != nil {
		tb.Fatalf("%s: compile: %v", f.name, err)
	}
	return p
}

func TestFixturesDecideAsDesigned(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			p := compileFixture(t, f)
			if got := p.Decide(f.req()); got != f.want {
				t.Errorf("Decide = %v, want %v; explanation: %+v", got, f.want, p.Explain(f.req()))
			}
			if got := p.Explain(f.req()).Decision; got != f.want {
				t.Errorf("Explain decision = %v, want %v", got, f.want)
			}
		})
	}
}

// TestDecideDoesNotAllocate pins Decide's promise: answering a request
// against compiled policies allocates nothing, whatever operators and policy
// types the request goes through.
func TestDecideDoesNotAllocate(t *testing.T) {
	for _, f := range fixtures() {
		t.Run(f.name, func(t *testing.T) {
			p, r := compileFixture(t, f), f.req()
			if n := testing.AllocsPerRun(100, func() { p.Decide(r) }); n != 0 {
				t.Errorf("Decide allocates %v times per request, want 0", n)
			}
		})
	}
}

// TestDecideDoesNotAllocateOnAnyContextValue pins the same promise for
// context values in every form the operators read, well-formed or not: a
// request's context comes from outside and must not make Decide allocate.
func TestDecideDoesNotAllocateOnAnyContextValue(t *testing.T) {
	long := strings.Repeat("QUJD", 100) // 400 base64 characters, 300 bytes decoded
	tests := []struct {
		name, operator, policyValue string
		values                      []string
	}{
		{"date in each ISO 8601 form and epoch seconds", "DateLessThan", "2030-01-01T00:00:00Z",
			[]string{"1772366400", "2026-03-01T12:00:00Z", "2026-03-01T12:00:00.123Z", "2026-03-01T13:00:00+01:00", "2026-03-01T12:00:00", "2026-03-01T12:00Z", "2026-03-01"}},
		{"malformed date", "DateLessThan", "2030-01-01T00:00:00Z", []string{"yesterday", "2026-13-45", ""}},
		{"numbers", "NumericLessThan", "3600", []string{"120", " 120 ", "1.5e3", "-7"}},
		{"malformed number", "NumericLessThan", "3600", []string{"many", "0x10", ""}},
		{"IPv4, IPv6 and mapped addresses", "IpAddress", "203.0.113.0/24", []string{"203.0.113.7", "2001:db8::1", "::ffff:203.0.113.7"}},
		{"malformed address", "IpAddress", "203.0.113.0/24", []string{"not-an-ip", "203.0.113.0/24", ""}},
		{"booleans", "Bool", "true", []string{"true", "FALSE", "maybe"}},
		{"base64 values", "BinaryEquals", "QUJD", []string{"QUJD", long}},
		{"malformed base64", "BinaryEquals", "QUJD", []string{"QU!D", long + "!"}},
		{"ARNs", "ArnLike", "arn:aws:sns:*:111122223333:*", []string{"arn:aws:sns:eu-west-1:111122223333:topic", "not-an-arn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := fmt.Sprintf(`{"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*",
				"Condition": {%q: {"aws:ProbeKey": %q}}}}`, tt.operator, tt.policyValue)
			d, err := policy.Parse([]byte(doc), policy.Identity)
			if err != nil {
				t.Fatal(err)
			}
			p, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "probe", Document: d}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tt.values {
				r := &policy.Request{Principal: alice, Action: "sqs:SendMessage", Resource: "arn:aws:sqs:eu-west-1:111122223333:q"}
				r.Context.Set("aws:ProbeKey", v)
				if n := testing.AllocsPerRun(20, func() { p.Decide(r) }); n != 0 {
					t.Errorf("%s with context value %q: Decide allocates %v times, want 0", tt.operator, v, n)
				}
			}
		})
	}
}

func BenchmarkDecide(b *testing.B) {
	for _, f := range fixtures() {
		b.Run(f.name, func(b *testing.B) {
			p, r := compileFixture(b, f), f.req()
			b.ReportAllocs()
			for b.Loop() {
				p.Decide(r)
			}
		})
	}
}

func BenchmarkExplain(b *testing.B) {
	for _, f := range fixtures() {
		b.Run(f.name, func(b *testing.B) {
			p, r := compileFixture(b, f), f.req()
			b.ReportAllocs()
			for b.Loop() {
				p.Explain(r)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	docs := []struct {
		name string
		kind policy.Kind
	}{
		{"statements-1", policy.Identity},
		{"statements-10-conditions", policy.Identity},
		{"statements-50", policy.Identity},
		{"bucket", policy.Resource},
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join("testdata", "bench", d.name+".json"))
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := policy.Parse(data, d.kind); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, f := range fixtures() {
		b.Run(f.name, func(b *testing.B) {
			set := f.set(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := policy.Compile(set); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
