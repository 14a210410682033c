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
	doc, err := policy.Parse([]byte(SessionDeny(Deny{Cutoff: cutoff})), policy.Identity)
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

func TestReadDenyReadsBackWhatSessionDenyWrote(t *testing.T) {
	cutoff := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, d := range []Deny{{Cutoff: cutoff}, {Cutoff: cutoff, LongestSession: 12 * time.Hour}} {
		got, err := ReadDeny(SessionDeny(d))
		if err != nil || got != d {
			t.Errorf("ReadDeny(SessionDeny(%+v)) = %+v, %v", d, got, err)
		}
	}
	// The AWS console's "Revoke active sessions" writes strings, not lists,
	// and no Sid: read, with no record of the longest session.
	console := `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*","Condition":{"DateLessThan":{"aws:TokenIssueTime":"2026-12-01T10:00:00Z"}}}]}`
	if got, err := ReadDeny(console); err != nil || !got.Cutoff.Equal(cutoff) || got.LongestSession != 0 {
		t.Errorf("ReadDeny(console) = %+v, %v", got, err)
	}
}

// The decoys a holder of the principal's own session puts under the
// deny's name before a revocation: each refuses nothing, so none is taken
// for a deny, and the engine's proof fails on each too.
func TestDecoyDeniesAreNotDenies(t *testing.T) {
	const principal = "arn:aws:iam::111122223333:role/ci"
	stmt := func(s string) string { return `{"Version":"2012-10-17","Statement":[` + s + `]}` }
	const cond = `"Condition":{"DateLessThan":{"aws:TokenIssueTime":"2099-01-01T00:00:00Z"}`
	d := Deny{Cutoff: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	for _, tt := range []struct {
		name, doc string
		// readable: ReadDeny takes the shape (the cutoff check is the
		// revocation's); the engine's proof must refute it.
		readable bool
	}{
		{"a condition that never matches beside the time", stmt(`{"Effect":"Deny","Action":"*","Resource":"*",` + cond + `,"StringEquals":{"aws:username":"nobody-at-all"}}}`), false},
		{"an action that does not exist", stmt(`{"Effect":"Deny","Action":"iam:NoSuchAction","Resource":"*",` + cond + `}}`), false},
		{"Allow instead of Deny", stmt(`{"Effect":"Allow","Action":"*","Resource":"*",` + cond + `}}`), false},
		{"a resource that matches nothing", stmt(`{"Effect":"Deny","Action":"*","Resource":"arn:aws:s3:::nothing-at-all",` + cond + `}}`), false},
		{"NotAction of everything", stmt(`{"Effect":"Deny","NotAction":"*","Resource":"*",` + cond + `}}`), false},
		{"a second statement allowing what the first denies", stmt(`{"Effect":"Deny","Action":"*","Resource":"*",` + cond + `}},{"Effect":"Allow","Action":"*","Resource":"*"}`), false},
		{"the effect written twice, Deny last", stmt(`{"Effect":"Allow","Action":"*","Resource":"*",` + cond + `},"Effect":"Deny"}`), false},
		{"the effect written twice in another case", stmt(`{"effect":"Allow","Effect":"Deny","Action":"*","Resource":"*",` + cond + `}}`), false},
		{"a Sid leash does not write", stmt(`{"Sid":"LeashLongestSession0","Effect":"Deny","Action":"*","Resource":"*",` + cond + `}}`), false},
		{"two times for the one key", stmt(`{"Effect":"Deny","Action":"*","Resource":"*","Condition":{"DateLessThan":{"aws:TokenIssueTime":["2026-01-01T00:00:00Z","2099-01-01T00:00:00Z"]}}}`), false},
		{"no condition: it refuses new keys too", stmt(`{"Effect":"Deny","Action":"*","Resource":"*"}`), false},
		{"a cutoff so late it refuses new sessions too", stmt(`{"Effect":"Deny","Action":"*","Resource":"*",` + cond + `}}`), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := ReadDeny(tt.doc); (err == nil) != tt.readable {
				t.Errorf("ReadDeny = %+v, %v; want readable %v", got, err, tt.readable)
			}
			if _, err := policy.ParseString(tt.doc, policy.Identity); err == nil {
				if err := ProveDeny(tt.doc, principal, d, time.Hour); err == nil {
					t.Errorf("ProveDeny proved a decoy")
				}
			}
		})
	}
	d.LongestSession = time.Hour
	for _, p := range []string{principal, "arn:aws:iam::111122223333:user/alice"} {
		if err := ProveDeny(SessionDeny(d), p, d, time.Hour); err != nil {
			t.Errorf("ProveDeny of the real deny for %s: %v", p, err)
		}
	}
}

func TestProveLockout(t *testing.T) {
	const alice = "arn:aws:iam::111122223333:user/alice"
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	if err := ProveLockout(Lockout(), alice, now); err != nil {
		t.Errorf("the lockout: %v", err)
	}
	if err := ProveLockout(SessionDeny(Deny{Cutoff: now}), alice, now); err == nil {
		t.Errorf("a session deny proved as a lockout: it lets long-term keys through")
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
