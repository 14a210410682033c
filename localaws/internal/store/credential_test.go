package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

func TestLookupCredentialFindsKeysAndSessions(t *testing.T) {
	s, _ := openStore(t)
	var key store.AccessKey
	var roleSession, userSession store.Session
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		if _, err := tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		var err error
		if key, err = tx.CreateAccessKey("alice"); err != nil {
			return err
		}
		if roleSession, err = tx.CreateSession(store.Session{RoleName: "r", RoleSessionName: "s1"}, time.Hour); err != nil {
			return err
		}
		userSession, err = tx.CreateSession(store.Session{UserName: "alice"}, time.Hour)
		return err
	})
	view(t, s, func(tx *store.Tx) error {
		c, err := tx.LookupCredential(key.AccessKeyID)
		if err != nil {
			return err
		}
		if c.SecretAccessKey.Reveal() != key.SecretAccessKey.Reveal() || !c.SessionToken.IsZero() || c.UserName != "alice" || c.Session != nil || c.Status != store.Active {
			t.Errorf("long-term credential = %+v", c)
		}
		c, err = tx.LookupCredential(roleSession.AccessKeyID)
		if err != nil {
			return err
		}
		if c.SessionToken.Reveal() != roleSession.SessionToken.Reveal() || c.UserName != "" || c.Session == nil ||
			c.Session.AssumedRoleARN != roleSession.AssumedRoleARN || !c.Expiration.Equal(roleSession.Expiration) {
			t.Errorf("role session credential = %+v", c)
		}
		c, err = tx.LookupCredential(userSession.AccessKeyID)
		if err != nil {
			return err
		}
		if c.UserName != "alice" || c.Session == nil {
			t.Errorf("GetSessionToken credential = %+v", c)
		}
		for _, unknown := range []string{"AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", ""} {
			if _, err := tx.LookupCredential(unknown); !errors.Is(err, store.ErrInvalidClientToken) {
				t.Errorf("LookupCredential(%q) = %v, want InvalidClientTokenId", unknown, err)
			}
		}
		return nil
	})
}

func TestVerifyCredential(t *testing.T) {
	s, c := openStore(t)
	now := c.Now()
	var key store.AccessKey
	var sess store.Session
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		var err error
		if key, err = tx.CreateAccessKey("alice"); err != nil {
			return err
		}
		sess, err = tx.CreateSession(store.Session{UserName: "alice"}, time.Hour)
		return err
	})
	lookup := func(id string) store.Credential {
		var cred store.Credential
		view(t, s, func(tx *store.Tx) error {
			var err error
			cred, err = tx.LookupCredential(id)
			return err
		})
		return cred
	}
	longTerm, temporary := lookup(key.AccessKeyID), lookup(sess.AccessKeyID)
	inactive := longTerm
	inactive.Status = store.Inactive
	unpropagated := longTerm
	unpropagated.NotBefore = now.Add(time.Second)
	token := sess.SessionToken.Reveal()
	tests := []struct {
		name  string
		cred  store.Credential
		at    time.Time
		token string
		want  store.Code // "" to accept
	}{
		{"an active long-term key without a token is accepted", longTerm, now, "", ""},
		{"a long-term key with a token is refused", longTerm, now, token, store.InvalidClientTokenID},
		{"an inactive key is refused", inactive, now, "", store.InvalidClientTokenID},
		{"a key before its NotBefore is refused", unpropagated, now, "", store.InvalidClientTokenID},
		{"a key at its NotBefore is accepted", unpropagated, now.Add(time.Second), "", ""},
		{"a session with its token is accepted", temporary, now, token, ""},
		{"a session without a token is refused", temporary, now, "", store.InvalidClientTokenID},
		{"a session with another token is refused", temporary, now, otherToken(token), store.InvalidClientTokenID},
		{"a session one second before expiry is accepted", temporary, sess.Expiration.Add(-time.Second), token, ""},
		{"a session at its expiration is ExpiredToken", temporary, sess.Expiration, token, store.ExpiredToken},
		{"an expired session with a wrong token is InvalidClientTokenId", temporary, sess.Expiration.Add(time.Hour), "wrong", store.InvalidClientTokenID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cred.Verify(tt.at, tt.token)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			wantCode(t, err, tt.want)
		})
	}
}

func TestDeletedOrDeactivatedKeyStopsWorking(t *testing.T) {
	s, _ := openStore(t)
	var k store.AccessKey
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		var err error
		k, err = tx.CreateAccessKey("alice")
		return err
	})
	verify := func() error {
		return s.View(context.Background(), func(tx *store.Tx) error {
			c, err := tx.LookupCredential(k.AccessKeyID)
			if err != nil {
				return err
			}
			return c.Verify(tx.Now(), "")
		})
	}
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx *store.Tx) error { return ignore(tx.UpdateAccessKey("alice", k.AccessKeyID, store.Inactive)) })
	wantCode(t, verify(), store.InvalidClientTokenID)
	update(t, s, func(tx *store.Tx) error { return ignore(tx.UpdateAccessKey("alice", k.AccessKeyID, store.Active)) })
	if err := verify(); err != nil {
		t.Fatal(err)
	}
	update(t, s, func(tx *store.Tx) error { return tx.DeleteAccessKey("alice", k.AccessKeyID) })
	wantCode(t, verify(), store.InvalidClientTokenID)
}

// otherToken is token with its last character changed: always a different
// token, whatever that character was.
func otherToken(token string) string {
	last := "x"
	if strings.HasSuffix(token, last) {
		last = "y"
	}
	return token[:len(token)-1] + last
}
