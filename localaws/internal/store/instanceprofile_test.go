package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

// TestInstanceProfileHoldsItsRole pins the link between a profile and its
// role: written with the profile, read back from either side, blocking the
// role's delete, and left whole by a refused change.
func TestInstanceProfileHoldsItsRole(t *testing.T) {
	s, _ := openStore(t)
	var created store.InstanceProfile
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateRole(store.Role{Name: "Web", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		var err error
		created, err = tx.CreateInstanceProfile(store.InstanceProfile{Name: "Web", Path: "/app/", Tags: store.Tags{{"team", "blue"}}})
		if err != nil {
			return err
		}
		return ignore(tx.AddRoleToInstanceProfile("web", "WEB"))
	})
	if created.ARN != "arn:aws:iam::123456789012:instance-profile/app/Web" || !regexp.MustCompile(`^AIPA[A-Z2-7]{17}$`).MatchString(created.InstanceProfileID) {
		t.Errorf("ARN, ID = %s, %s", created.ARN, created.InstanceProfileID)
	}

	var revision uint64
	view(t, s, func(tx *store.Tx) error {
		revision = tx.PermissionsRevision()
		p, err := tx.GetInstanceProfile("WEB")
		if err != nil {
			return err
		}
		want := created
		want.RoleNames = []string{"Web"}
		if !reflect.DeepEqual(p, want) {
			t.Errorf("GetInstanceProfile =\n%+v\nwant\n%+v", p, want)
		}
		profiles, err := tx.ListInstanceProfilesForRole("web")
		if err != nil || len(profiles) != 1 || profiles[0].Name != "Web" {
			t.Errorf("ListInstanceProfilesForRole = %+v, %v", profiles, err)
		}
		blockers, err := tx.RoleBlockers("web")
		if err != nil || !slices.Equal(blockers, []store.Blocker{store.BlockerProfileRoles}) {
			t.Errorf("RoleBlockers = %v, %v; want the instance profile", blockers, err)
		}
		return nil
	})

	// A refused change leaves the profile and the role's index as they were.
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		if _, err := tx.CreateRole(store.Role{Name: "other", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		return ignore(tx.AddRoleToInstanceProfile("web", "other"))
	})
	if !errors.Is(err, store.ErrLimitExceeded) {
		t.Errorf("a second role: %v, want LimitExceeded", err)
	}
	err = s.Update(context.Background(), func(tx *store.Tx) error { return tx.DeleteRole("web") })
	if !errors.Is(err, store.ErrDeleteConflict) {
		t.Errorf("DeleteRole of a role in a profile: %v, want DeleteConflict", err)
	}
	view(t, s, func(tx *store.Tx) error {
		if _, err := tx.GetRole("other"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the refused transaction left the role other: %v", err)
		}
		if tx.PermissionsRevision() != revision {
			t.Errorf("instance profiles changed the permissions revision: %d, was %d", tx.PermissionsRevision(), revision)
		}
		return nil
	})

	// Once out of its profile the role can go, and a new role of its name
	// is in no profile.
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.RemoveRoleFromInstanceProfile("web", "web"); err != nil {
			return err
		}
		if err := tx.DeleteRole("web"); err != nil {
			return err
		}
		_, err := tx.CreateRole(store.Role{Name: "web", AssumeRolePolicyDocument: trust})
		return err
	})
	view(t, s, func(tx *store.Tx) error {
		profiles, err := tx.ListInstanceProfilesForRole("web")
		if err != nil || len(profiles) != 0 {
			t.Errorf("a new role of the old name is in %+v, %v", profiles, err)
		}
		p, err := tx.GetInstanceProfile("web")
		if err != nil || len(p.RoleNames) != 0 {
			t.Errorf("the profile after RemoveRoleFromInstanceProfile = %+v, %v", p, err)
		}
		return nil
	})
	update(t, s, func(tx *store.Tx) error { return tx.DeleteInstanceProfile("web") })
}

// TestInstanceProfileQuota pins IAM's InstanceProfilesPerAccount: the
// 1,001st profile is refused, and a deleted one makes room again.
func TestInstanceProfileQuota(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		for i := range 1000 {
			if _, err := tx.CreateInstanceProfile(store.InstanceProfile{Name: fmt.Sprintf("p%04d", i)}); err != nil {
				return err
			}
		}
		return nil
	})
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		return ignore(tx.CreateInstanceProfile(store.InstanceProfile{Name: "one-more"}))
	})
	var e *store.Error
	if !errors.As(err, &e) || e.Code != store.LimitExceeded || e.Message != "Cannot exceed quota for InstanceProfilesPerAccount: 1000" {
		t.Errorf("the 1,001st profile: %v, want LimitExceeded", err)
	}
	update(t, s, func(tx *store.Tx) error {
		if err := tx.DeleteInstanceProfile("p0000"); err != nil {
			return err
		}
		return ignore(tx.CreateInstanceProfile(store.InstanceProfile{Name: "one-more"}))
	})
}
