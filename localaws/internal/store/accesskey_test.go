package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

func TestAUserHasAtMostTwoKeys(t *testing.T) {
	s, _ := openStore(t)
	var first, second store.AccessKey
	update(t, s, func(tx *store.Tx) error {
		for _, n := range []string{"alice", "bob"} {
			if _, err := tx.CreateUser(store.User{Name: n}); err != nil {
				return err
			}
		}
		var err error
		if first, err = tx.CreateAccessKey("alice"); err != nil {
			return err
		}
		second, err = tx.CreateAccessKey("ALICE")
		return err
	})
	tests := []struct {
		name string
		op   func(tx *store.Tx) error
		want store.Code // "" for success
	}{
		{"a third key is LimitExceeded", func(tx *store.Tx) error { return ignore(tx.CreateAccessKey("alice")) }, store.LimitExceeded},
		{"an inactive key still counts", func(tx *store.Tx) error {
			if _, err := tx.UpdateAccessKey("alice", first.AccessKeyID, store.Inactive); err != nil {
				return err
			}
			return ignore(tx.CreateAccessKey("alice"))
		}, store.LimitExceeded},
		{"another user's quota is their own", func(tx *store.Tx) error { return ignore(tx.CreateAccessKey("bob")) }, ""},
		{"a key of another user cannot be deleted through this one", func(tx *store.Tx) error {
			return tx.DeleteAccessKey("bob", first.AccessKeyID)
		}, store.NoSuchEntity},
		{"after a delete there is room for one more", func(tx *store.Tx) error {
			if err := tx.DeleteAccessKey("alice", first.AccessKeyID); err != nil {
				return err
			}
			return ignore(tx.CreateAccessKey("alice"))
		}, ""},
		{"keys of a user that does not exist", func(tx *store.Tx) error { return ignore(tx.CreateAccessKey("carol")) }, store.NoSuchEntity},
		{"a status other than Active or Inactive", func(tx *store.Tx) error {
			return ignore(tx.UpdateAccessKey("alice", second.AccessKeyID, "Disabled"))
		}, store.ValidationError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Update(context.Background(), tt.op)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, tt.want)
		})
	}
	view(t, s, func(tx *store.Tx) error {
		keys, err := tx.ListAccessKeys("alice")
		ids := map[string]bool{}
		for _, k := range keys {
			ids[k.AccessKeyID] = true
		}
		if len(keys) != 2 || !ids[second.AccessKeyID] || ids[first.AccessKeyID] {
			t.Errorf("alice's keys = %v, want the second key and a new one", keys)
		}
		return err
	})
}

func TestAccessKeyRoundTrip(t *testing.T) {
	c := newClock()
	s, err := store.Open(t.TempDir()+"/leash.db", store.Options{Now: c.Now, KeyPropagationDelay: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore(t, s)
	var created store.AccessKey
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		created, err = tx.CreateAccessKey("alice")
		return err
	})
	if created.Status != store.Active || !created.NotBefore.Equal(c.Now().Add(10*time.Second)) || len(created.SecretAccessKey.Reveal()) != 40 {
		t.Errorf("created = %+v (secret length %d)", created, len(created.SecretAccessKey.Reveal()))
	}
	used := store.LastUsed{Date: c.Now().Add(time.Minute), ServiceName: "iam", Region: "us-east-1"}
	update(t, s, func(tx *store.Tx) error { return tx.RecordAccessKeyUse(created.AccessKeyID, used) })
	view(t, s, func(tx *store.Tx) error {
		got, err := tx.GetAccessKey(created.AccessKeyID)
		if err != nil {
			return err
		}
		want := created
		want.LastUsed = used
		if !reflect.DeepEqual(got, want) || got.SecretAccessKey.Reveal() != created.SecretAccessKey.Reveal() {
			t.Errorf("GetAccessKey = %+v, want %+v", got, want)
		}
		return nil
	})
}

func TestRecordAccessKeyUseWritesOncePerInterval(t *testing.T) {
	s, c := openStore(t)
	var k store.AccessKey
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		var err error
		k, err = tx.CreateAccessKey("alice")
		return err
	})
	lastUsed := func() store.LastUsed {
		var got store.AccessKey
		view(t, s, func(tx *store.Tx) error {
			var err error
			got, err = tx.GetAccessKey(k.AccessKeyID)
			return err
		})
		return got.LastUsed
	}
	ctx := context.Background()
	record := func(service string) {
		t.Helper()
		if err := s.RecordAccessKeyUse(ctx, k.AccessKeyID, store.LastUsed{Date: c.Now(), ServiceName: service, Region: "us-east-1"}); err != nil {
			t.Fatal(err)
		}
	}
	record("iam")
	first := c.Now()
	c.Advance(30 * time.Second)
	record("iam")
	if got := lastUsed(); !got.Date.Equal(first) {
		t.Errorf("a use 30 s later was written: %v", got.Date)
	}
	record("sts")
	if got := lastUsed(); got.ServiceName != "sts" {
		t.Errorf("a use of another service within the interval was not written: %+v", got)
	}
	c.Advance(31 * time.Second)
	record("iam")
	if got := lastUsed(); !got.Date.Equal(c.Now()) || got.ServiceName != "iam" {
		t.Errorf("a use after the interval was not written: %+v", got)
	}
	if err := s.RecordAccessKeyUse(ctx, "ASIAIOSFODNN7EXAMPLE", store.LastUsed{Date: c.Now()}); err != nil {
		t.Errorf("session keys are ignored, got %v", err)
	}
}
