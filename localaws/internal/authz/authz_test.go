package authz

import (
	"strings"
	"testing"
	"time"

	"leash.dev/leash/policy"
)

const acct = "111122223333"

func compile(t *testing.T, set policy.Set) *policy.Policies {
	t.Helper()
	p, err := policy.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func named(t *testing.T, kind policy.Kind, name, doc string) policy.Named {
	t.Helper()
	d, err := policy.Parse([]byte(doc), kind)
	if err != nil {
		t.Fatal(err)
	}
	return policy.Named{Name: name, Document: d}
}

func TestContextCarriesWhatAWSProvides(t *testing.T) {
	issued := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	r := &Request{
		Caller: &Caller{ARN: "arn:aws:sts::" + acct + ":assumed-role/ci/run-1", Account: acct, UserID: "AROAEXAMPLEID:run-1",
			Tags: map[string]string{"team": "platform"}, TokenIssueTime: issued},
		Action: "iam:GetRole", Resource: "arn:aws:iam::" + acct + ":role/ci", Region: "us-east-1",
		SourceIP: "127.0.0.1", Now: issued.Add(time.Hour),
		Keys: map[string][]string{"aws:TagKeys": {"env"}, "iam:PassedToService": {"ec2.amazonaws.com"}},
	}
	ctx := r.Context()
	want := map[string]string{
		"aws:PrincipalArn":      "arn:aws:iam::" + acct + ":role/ci",
		"aws:PrincipalAccount":  acct,
		"aws:PrincipalType":     "AssumedRole",
		"aws:userid":            "AROAEXAMPLEID:run-1",
		"aws:PrincipalTag/team": "platform",
		"aws:CurrentTime":       "2026-11-29T11:00:00Z",
		"aws:EpochTime":         "1795950000",
		"aws:TokenIssueTime":    "2026-11-29T10:00:00Z",
		"aws:SourceIp":          "127.0.0.1",
		"aws:SecureTransport":   "false",
		"aws:RequestedRegion":   "us-east-1",
		"iam:PassedToService":   "ec2.amazonaws.com",
	}
	for k, v := range want {
		got, ok := ctx.Get(k)
		if !ok || len(got) != 1 || got[0] != v {
			t.Errorf("%s = %v, want %q", k, got, v)
		}
	}
	if !ctx.IsMultivalued("aws:TagKeys") {
		t.Errorf("aws:TagKeys should be multivalued")
	}
	if _, ok := ctx.Get("aws:username"); ok {
		t.Errorf("a role session has no aws:username")
	}
}

func TestAuthorizeAndAWSMessages(t *testing.T) {
	alice := "arn:aws:iam::" + acct + ":user/alice"
	getSelf := named(t, policy.Identity, "self", `{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Action":"iam:GetUser","Resource":"arn:aws:iam::*:user/${aws:username}"},
		{"Effect":"Deny","Action":"iam:DeleteUser","Resource":"*"}]}`)
	caller := &Caller{ARN: alice, Account: acct, UserID: "AIDAEXAMPLE"}
	p := compile(t, policy.Set{Identity: []policy.Named{getSelf}})
	tests := []struct {
		name, action, resource string
		allowed                bool
		message                string
	}{
		{"GetUser on itself is allowed", "iam:GetUser", alice, true, ""},
		{"GetUser on another user", "iam:GetUser", "arn:aws:iam::" + acct + ":user/bob", false,
			"User: " + alice + " is not authorized to perform: iam:GetUser on resource: arn:aws:iam::" + acct + ":user/bob because no identity-based policy allows the iam:GetUser action"},
		{"ListUsers", "iam:ListUsers", "arn:aws:iam::" + acct + ":user/", false,
			"User: " + alice + " is not authorized to perform: iam:ListUsers on resource: arn:aws:iam::" + acct + ":user/ because no identity-based policy allows the iam:ListUsers action"},
		{"explicit deny", "iam:DeleteUser", alice, false,
			"User: " + alice + " is not authorized to perform: iam:DeleteUser on resource: " + alice + " with an explicit deny in an identity-based policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Authorize(p, &Request{Caller: caller, Action: tt.action, Resource: tt.resource, Now: time.Now()})
			if (d == nil) != tt.allowed {
				t.Fatalf("denial = %+v, want allowed=%v", d, tt.allowed)
			}
			if d != nil && d.Message != tt.message {
				t.Errorf("message\n got: %s\nwant: %s", d.Message, tt.message)
			}
		})
	}
}

func TestMessageNamesThePolicyTypeThatDidNotAllow(t *testing.T) {
	alice := "arn:aws:iam::" + acct + ":user/alice"
	allowAll := named(t, policy.Identity, "all", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}`)
	ec2Only := `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*"}}`
	tests := []struct {
		name string
		set  policy.Set
		want string
	}{
		{"boundary", policy.Set{Identity: []policy.Named{allowAll}, Boundary: ptr(named(t, policy.Boundary, "b", ec2Only))}, "because no permissions boundary allows the iam:ListUsers action"},
		{"session policy", policy.Set{Identity: []policy.Named{allowAll}, Session: ptr(named(t, policy.Session, "s", ec2Only))}, "because no session policy allows the iam:ListUsers action"},
		{"SCP", policy.Set{Identity: []policy.Named{allowAll}, SCPs: [][]policy.Named{{named(t, policy.SCP, "scp", ec2Only)}}}, "because no service control policy allows the iam:ListUsers action"},
		{"SCP deny", policy.Set{Identity: []policy.Named{allowAll}, SCPs: [][]policy.Named{{named(t, policy.SCP, "scp", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`)}}}, "with an explicit deny in a service control policy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Authorize(compile(t, tt.set), &Request{Caller: &Caller{ARN: alice, Account: acct}, Action: "iam:ListUsers", Resource: "*", Now: time.Now()})
			if d == nil || !strings.HasSuffix(d.Message, tt.want) {
				t.Errorf("got %+v, want a message ending %q", d, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestCacheCompilesOncePerKey(t *testing.T) {
	c := NewCache(2)
	builds := 0
	build := func() (*policy.Policies, error) { builds++; return policy.Compile(policy.Set{}) }
	for _, k := range []string{"a", "a", "b", "a", "c", "a"} {
		if _, err := c.Get(k, build); err != nil {
			t.Fatal(err)
		}
	}
	// a, b: two builds; c fills past the limit and starts over; a again.
	if builds != 4 {
		t.Errorf("builds = %d, want 4", builds)
	}
}
