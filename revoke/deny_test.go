package revoke

import (
	"testing"
	"time"

	"leash.dev/leash/policy"
)

// The deny refuses sessions issued before the cutoff and nothing else:
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
func TestSessionDenyEndsOlderSessionsOnly(t *testing.T) {
	cutoff := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	doc, err := policy.Parse([]byte(SessionDeny(cutoff)), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	allowAll, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`), policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "all", Document: allowAll}, {Name: PolicyName, Document: doc}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		issued string // "" for a long-term key
		want   policy.Decision
	}{
		{"a session issued a second before the cutoff is denied", "2026-12-01T09:59:59Z", policy.ExplicitDeny},
		{"a session issued at the cutoff is allowed", "2026-12-01T10:00:00Z", policy.Allowed},
		{"a session issued after the cutoff is allowed", "2026-12-01T11:00:00Z", policy.Allowed},
		{"a long-term key has no issue time and is allowed", "", policy.Allowed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &policy.Request{Principal: "arn:aws:iam::111122223333:user/alice", Action: "s3:GetObject", Resource: "arn:aws:s3:::b/k"}
			if tt.issued != "" {
				r.Context.Set("aws:TokenIssueTime", tt.issued)
			}
			if got := ps.Decide(r); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCutoffReadsBackWhatSessionDenyWrote(t *testing.T) {
	cutoff := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	got, err := Cutoff(SessionDeny(cutoff))
	if err != nil || !got.Equal(cutoff) {
		t.Fatalf("Cutoff = %v, %v; want %v", got, err, cutoff)
	}
	for _, doc := range []string{
		`not json`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["*"],"Resource":["*"]}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":["*"],"Resource":["*"],"Condition":{"DateLessThan":{"aws:TokenIssueTime":"yesterday"}}}]}`,
	} {
		if _, err := Cutoff(doc); err == nil {
			t.Errorf("Cutoff(%s) accepted a policy leash did not write", doc)
		}
	}
}

func TestLiftTime(t *testing.T) {
	cutoff := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name    string
		longest time.Duration
		want    string
	}{
		{"a user's sessions last up to 36 hours", UserSessionMax, "2026-12-02T22:00:00Z"},
		{"a role with the default one-hour maximum", RoleLongestSession(time.Hour), "2026-12-01T11:00:00Z"},
		{"a role allowing twelve hours", RoleLongestSession(12 * time.Hour), "2026-12-01T22:00:00Z"},
		{"chained sessions keep the floor at an hour", RoleLongestSession(0), "2026-12-01T11:00:00Z"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := LiftTime(cutoff, tt.longest).Format(time.RFC3339); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
