package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

func TestSessionRoundTrip(t *testing.T) {
	s, c := openStore(t)
	var role store.Role
	var created store.Session
	update(t, s, func(tx *store.Tx) error {
		var err error
		role, err = tx.CreateRole(store.Role{Name: "Deployer", Path: "/ci/", AssumeRolePolicyDocument: trust})
		if err != nil {
			return err
		}
		created, err = tx.CreateSession(store.Session{
			RoleName:        "deployer",
			RoleSessionName: "build-42",
			Policy:          doc,
			PolicyARNs:      []string{"arn:aws:iam::aws:policy/ReadOnlyAccess"},
			Tags:            store.Tags{{"project", "x"}},
			SourceIdentity:  "alice",
		}, time.Hour)
		return err
	})
	if created.AssumedRoleARN != "arn:aws:sts::123456789012:assumed-role/Deployer/build-42" {
		t.Errorf("AssumedRoleARN = %s: the role's path is not in it, its spelling is", created.AssumedRoleARN)
	}
	if created.AssumedRoleID != role.RoleID+":build-42" {
		t.Errorf("AssumedRoleID = %s", created.AssumedRoleID)
	}
	if !created.Issued.Equal(c.Now()) || !created.Expiration.Equal(c.Now().Add(time.Hour)) {
		t.Errorf("issued %v, expires %v", created.Issued, created.Expiration)
	}
	view(t, s, func(tx *store.Tx) error {
		got, err := tx.GetSession(created.AccessKeyID)
		if err != nil {
			return err
		}
		if got.SessionToken.Reveal() != created.SessionToken.Reveal() || got.SecretAccessKey.Reveal() != created.SecretAccessKey.Reveal() ||
			got.AssumedRoleARN != created.AssumedRoleARN || got.Policy != doc || got.SourceIdentity != "alice" || len(got.Tags) != 1 || len(got.PolicyARNs) != 1 {
			t.Errorf("GetSession = %+v, want %+v", got, created)
		}
		return nil
	})
}

func TestCreateSessionRefuses(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		return ignore(tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: trust}))
	})
	tests := []struct {
		name    string
		session store.Session
		d       time.Duration
		code    store.Code
	}{
		{"a role that does not exist", store.Session{RoleName: "nope", RoleSessionName: "s1"}, time.Hour, store.NoSuchEntity},
		{"a user that does not exist", store.Session{UserName: "bob"}, time.Hour, store.NoSuchEntity},
		{"both a role and a user", store.Session{RoleName: "r", RoleSessionName: "s1", UserName: "alice"}, time.Hour, store.InvalidInput},
		{"neither a role nor a user", store.Session{}, time.Hour, store.InvalidInput},
		{"a one-character session name", store.Session{RoleName: "r", RoleSessionName: "s"}, time.Hour, store.ValidationError},
		{"a session name with a space", store.Session{RoleName: "r", RoleSessionName: "my session"}, time.Hour, store.ValidationError},
		{"no duration", store.Session{UserName: "alice"}, 0, store.ValidationError},
		{"a session policy ARN of no policy", store.Session{UserName: "alice", PolicyARNs: []string{"arn:aws:iam::123456789012:policy/none"}}, time.Hour, store.NoSuchEntity},
		{"eleven session policy ARNs", store.Session{UserName: "alice", PolicyARNs: make([]string, 11)}, time.Hour, store.LimitExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Update(context.Background(), func(tx *store.Tx) error { return ignore(tx.CreateSession(tt.session, tt.d)) })
			wantCode(t, err, tt.code)
		})
	}
}

func TestExpiredSessionsAreCollected(t *testing.T) {
	s, c := openStore(t)
	ids := map[time.Duration]string{}
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		for _, d := range []time.Duration{15 * time.Minute, time.Hour, 2 * time.Hour} {
			sess, err := tx.CreateSession(store.Session{UserName: "alice"}, d)
			if err != nil {
				return err
			}
			ids[d] = sess.AccessKeyID
		}
		return nil
	})
	tests := []struct {
		name      string
		advance   time.Duration
		collected int
		remaining []time.Duration
	}{
		{"nothing before the first expiry", 14 * time.Minute, 0, []time.Duration{15 * time.Minute, time.Hour, 2 * time.Hour}},
		{"a session is expired at its expiration", time.Minute, 1, []time.Duration{time.Hour, 2 * time.Hour}},
		{"the rest, once all expired", 3 * time.Hour, 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.Advance(tt.advance)
			var n int
			update(t, s, func(tx *store.Tx) error {
				var err error
				n, err = tx.DeleteExpiredSessions()
				return err
			})
			if n != tt.collected {
				t.Errorf("collected %d, want %d", n, tt.collected)
			}
			view(t, s, func(tx *store.Tx) error {
				for d, id := range ids {
					_, err := tx.GetSession(id)
					want := false
					for _, r := range tt.remaining {
						want = want || r == d
					}
					if got := err == nil; got != want {
						t.Errorf("session of %v present = %v, want %v (err %v)", d, got, want, err)
					}
				}
				return nil
			})
		})
	}
}

func TestDeletedSessionIsGoneFromTheExpiryIndexToo(t *testing.T) {
	s, c := openStore(t)
	var id string
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		sess, err := tx.CreateSession(store.Session{UserName: "alice"}, time.Hour)
		id = sess.AccessKeyID
		return err
	})
	update(t, s, func(tx *store.Tx) error { return tx.DeleteSession(id) })
	c.Advance(2 * time.Hour)
	update(t, s, func(tx *store.Tx) error {
		n, err := tx.DeleteExpiredSessions()
		if n != 0 {
			t.Errorf("collected %d sessions, want 0", n)
		}
		return err
	})
	view(t, s, func(tx *store.Tx) error {
		if _, err := tx.LookupCredential(id); !errors.Is(err, store.ErrInvalidClientToken) {
			t.Errorf("LookupCredential of a deleted session: %v", err)
		}
		return nil
	})
}
