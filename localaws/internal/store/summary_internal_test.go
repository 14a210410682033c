package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestCountsReadKeysNotRecords pins that Counts walks bucket keys and
// decodes no record: a record that cannot be decoded is still counted,
// where any read of it fails.
func TestCountsReadKeysNotRecords(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "leash.db"), Options{AccountID: "123456789012"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	var before Counts
	if err := s.View(ctx, func(tx *Tx) error { before = tx.Counts(); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{bucketUsers, bucketGroups, bucketRoles, bucketPolicies, bucketInstanceProfiles, bucketOIDCProviders} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.bucket(b).Put([]byte("undecodable"), []byte{0xff, 0x00}) }); err != nil {
			t.Fatal(err)
		}
	}
	err = s.View(ctx, func(tx *Tx) error {
		if _, err := tx.GetUser("undecodable"); err == nil {
			t.Fatal("the undecodable user was read: the test's record must not decode")
		}
		after := tx.Counts()
		want := Counts{
			Users: before.Users + 1, Groups: before.Groups + 1, Roles: before.Roles + 1, Policies: before.Policies + 1,
			InstanceProfiles: before.InstanceProfiles + 1, OIDCProviders: before.OIDCProviders + 1,
		}
		if after != want {
			t.Errorf("Counts = %+v, want %+v: each undecodable record counted", after, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
