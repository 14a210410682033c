package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

// TestGroupChangesMovePermissionsRevision pins that every change to what a
// group gives its members, and to who its members are, moves the revision
// the authorizer caches compiled policies by; reads do not.
func TestGroupChangesMovePermissionsRevision(t *testing.T) {
	s, _ := openStore(t)
	revision := func() uint64 {
		var r uint64
		view(t, s, func(tx *store.Tx) error { r = tx.PermissionsRevision(); return nil })
		return r
	}
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		return ignore(tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc))
	})
	const mp = "arn:aws:iam::123456789012:policy/mp"
	tests := []struct {
		name  string
		write func(tx *store.Tx) error
	}{
		{"CreateGroup", func(tx *store.Tx) error { return ignore(tx.CreateGroup(store.Group{Name: "devs"})) }},
		{"AddUserToGroup", func(tx *store.Tx) error { return tx.AddUserToGroup("devs", "alice") }},
		{"PutGroupPolicy", func(tx *store.Tx) error { return ignore(tx.PutGroupPolicy("devs", "p", doc)) }},
		{"AttachGroupPolicy", func(tx *store.Tx) error { return ignore(tx.AttachGroupPolicy("devs", mp)) }},
		{"UpdateGroup", func(tx *store.Tx) error { return ignore(tx.UpdateGroup("devs", "builders", "")) }},
		{"UpdateUser of a member", func(tx *store.Tx) error { return ignore(tx.UpdateUser("alice", "alicia", "")) }},
		{"DetachGroupPolicy", func(tx *store.Tx) error { return ignore(tx.DetachGroupPolicy("builders", mp)) }},
		{"DeleteGroupPolicy", func(tx *store.Tx) error { return ignore(tx.DeleteGroupPolicy("builders", "p")) }},
		{"RemoveUserFromGroup", func(tx *store.Tx) error { return tx.RemoveUserFromGroup("builders", "alicia") }},
		{"DeleteGroup", func(tx *store.Tx) error { return tx.DeleteGroup("builders") }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" moves it", func(t *testing.T) {
			before := revision()
			update(t, s, tt.write)
			if revision() == before {
				t.Errorf("revision did not move")
			}
		})
	}
	t.Run("reading groups does not move it", func(t *testing.T) {
		before := revision()
		update(t, s, func(tx *store.Tx) error {
			_, err := tx.ListGroups("", store.Page{})
			return err
		})
		if revision() != before {
			t.Errorf("revision moved on a read")
		}
	})
}

// TestGroupMembershipFollowsRenames pins that both sides of a membership
// move with a renamed user or group, so each side's listing agrees.
func TestGroupMembershipFollowsRenames(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		for _, u := range []string{"alice", "bob"} {
			if _, err := tx.CreateUser(store.User{Name: u}); err != nil {
				return err
			}
		}
		for _, g := range []string{"devs", "ops"} {
			if _, err := tx.CreateGroup(store.Group{Name: g}); err != nil {
				return err
			}
		}
		for _, m := range [][2]string{{"devs", "alice"}, {"devs", "bob"}, {"ops", "alice"}} {
			if err := tx.AddUserToGroup(m[0], m[1]); err != nil {
				return err
			}
		}
		if _, err := tx.UpdateUser("alice", "Alicia", ""); err != nil {
			return err
		}
		return ignore(tx.UpdateGroup("devs", "Builders", "/b/"))
	})
	view(t, s, func(tx *store.Tx) error {
		users, err := tx.GroupUsers("builders")
		if err != nil {
			return err
		}
		var names []string
		for _, u := range users {
			names = append(names, u.Name)
		}
		if !slices.Equal(names, []string{"Alicia", "bob"}) {
			t.Errorf("Builders' users = %v", names)
		}
		groups, err := tx.UserGroups("alicia")
		if err != nil {
			return err
		}
		names = nil
		for _, g := range groups {
			names = append(names, g.Name+" "+g.ARN)
		}
		if want := []string{"Builders arn:aws:iam::123456789012:group/b/Builders", "ops arn:aws:iam::123456789012:group/ops"}; !slices.Equal(names, want) {
			t.Errorf("Alicia's groups = %v, want %v", names, want)
		}
		if _, err := tx.GetGroup("devs"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("GetGroup of the old name: %v, want NoSuchEntity", err)
		}
		return nil
	})
}

// TestRefusedGroupWriteLeavesNothing pins that a membership refused half-way
// through a transaction leaves neither side behind.
func TestRefusedGroupWriteLeavesNothing(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		return ignore(tx.CreateGroup(store.Group{Name: "devs"}))
	})
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		if err := tx.AddUserToGroup("devs", "alice"); err != nil {
			return err
		}
		return tx.AddUserToGroup("devs", "nobody")
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("adding a missing user: %v, want NoSuchEntity", err)
	}
	view(t, s, func(tx *store.Tx) error {
		users, err := tx.GroupUsers("devs")
		if err != nil {
			return err
		}
		groups, err := tx.UserGroups("alice")
		if err != nil {
			return err
		}
		if len(users) != 0 || len(groups) != 0 {
			t.Errorf("after a refused transaction: devs has %d users, alice is in %d groups", len(users), len(groups))
		}
		blockers, err := tx.UserBlockers("alice")
		if err != nil {
			return err
		}
		if len(blockers) != 0 {
			t.Errorf("alice's blockers = %v, want none", blockers)
		}
		return nil
	})
}
