package store_test

import (
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

// TestSessionRecordsItsEntityID pins that every session records the unique
// ID of the role or user it was issued for, that the record survives a
// reopen, and that a session without one (written before IDs were
// recorded) is issued to no one.
func TestSessionRecordsItsEntityID(t *testing.T) {
	s, _ := openStore(t)
	var role store.Role
	var user store.User
	var roleSession, userSession store.Session
	update(t, s, func(tx *store.Tx) error {
		var err error
		if role, err = tx.CreateRole(store.Role{Name: "app", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		if user, err = tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		if roleSession, err = tx.CreateSession(store.Session{RoleName: "APP", RoleSessionName: "s1"}, time.Hour); err != nil {
			return err
		}
		userSession, err = tx.CreateSession(store.Session{UserName: "alice"}, time.Hour)
		return err
	})
	tests := []struct {
		name    string
		session store.Session
		id      string
		want    bool
	}{
		{"a role session is issued to the role's ID", roleSession, role.RoleID, true},
		{"a user session is issued to the user's ID", userSession, user.UserID, true},
		{"a role session is not issued to another entity's ID", roleSession, user.UserID, false},
		{"a session without a recorded ID is issued to no one", store.Session{RoleName: "app"}, role.RoleID, false},
		{"a session without a recorded ID is not issued to an empty ID", store.Session{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.session.IssuedTo(tt.id); got != tt.want {
				t.Errorf("IssuedTo(%s) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
	view(t, s, func(tx *store.Tx) error {
		got, err := tx.GetSession(roleSession.AccessKeyID)
		if err != nil {
			return err
		}
		if got.EntityID != role.RoleID {
			t.Errorf("stored EntityID = %q, want the role's ID %q", got.EntityID, role.RoleID)
		}
		return nil
	})
}
