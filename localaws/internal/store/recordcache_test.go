package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"leash.dev/leash/localaws/internal/store"
)

// readUser reads a user in its own View, as a request does.
func readUser(t testing.TB, s *store.Store, name string) store.User {
	t.Helper()
	var u store.User
	view(t, s, func(tx *store.Tx) error {
		var err error
		u, err = tx.GetUser(name)
		return err
	})
	return u
}

func readKey(t testing.TB, s *store.Store, id string) store.AccessKey {
	t.Helper()
	var k store.AccessKey
	view(t, s, func(tx *store.Tx) error {
		var err error
		k, err = tx.GetAccessKey(id)
		return err
	})
	return k
}

// TestReadAfterWriteSeesTheWrite pins that a record read (and so cached)
// before a write is never served after it: every kind of write to a user
// and a key, each read once before and once after.
func TestReadAfterWriteSeesTheWrite(t *testing.T) {
	s, _ := openStore(t)
	var keyID string
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice", Tags: store.Tags{{"team", "a"}}}); err != nil {
			return err
		}
		k, err := tx.CreateAccessKey("alice")
		keyID = k.AccessKeyID
		return err
	})
	for _, c := range []struct {
		name  string
		write func(*store.Tx) error
		check func(t *testing.T)
	}{
		{"a new inline policy is read", func(tx *store.Tx) error {
			return ignore(tx.PutUserPolicy("alice", "p", `{"Version":"2012-10-17","Statement":[]}`))
		}, func(t *testing.T) {
			if _, ok := readUser(t, s, "alice").InlinePolicy("p"); !ok {
				t.Error("the inline policy put after the last read is missing")
			}
		}},
		{"a changed inline policy is read", func(tx *store.Tx) error {
			return ignore(tx.PutUserPolicy("alice", "p", `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`))
		}, func(t *testing.T) {
			p, _ := readUser(t, s, "alice").InlinePolicy("p")
			if p.Document != `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}` {
				t.Errorf("document = %s, want the one put last", p.Document)
			}
		}},
		{"a changed tag is read", func(tx *store.Tx) error {
			return ignore(tx.Tag(store.TaggedUser, "alice", store.Tags{{"team", "b"}}))
		}, func(t *testing.T) {
			if v, _ := readUser(t, s, "alice").Tags.Get("team"); v != "b" {
				t.Errorf("tag team = %q, want b", v)
			}
		}},
		{"a deleted inline policy is gone", func(tx *store.Tx) error {
			return ignore(tx.DeleteUserPolicy("alice", "p"))
		}, func(t *testing.T) {
			if _, ok := readUser(t, s, "alice").InlinePolicy("p"); ok {
				t.Error("the deleted inline policy is still read")
			}
		}},
		{"a deactivated key is read inactive", func(tx *store.Tx) error {
			return ignore(tx.UpdateAccessKey("alice", keyID, store.Inactive))
		}, func(t *testing.T) {
			if k := readKey(t, s, keyID); k.Status != store.Inactive {
				t.Errorf("key status = %s, want Inactive", k.Status)
			}
		}},
		{"a deleted key is gone", func(tx *store.Tx) error {
			return tx.DeleteAccessKey("alice", keyID)
		}, func(t *testing.T) {
			err := s.View(context.Background(), func(tx *store.Tx) error { return ignore(tx.GetAccessKey(keyID)) })
			wantCode(t, err, store.NoSuchEntity)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			readUser(t, s, "alice") // cached
			readUser(t, s, "alice") // served from the cache
			if keyID != "" {
				_ = s.View(context.Background(), func(tx *store.Tx) error { return ignore(tx.GetAccessKey(keyID)) })
			}
			update(t, s, c.write)
			c.check(t)
		})
	}
}

// TestReadInsideTheWritingUpdateSeesItsWrite pins that an Update reads its
// own writes even when the record was cached before it.
func TestReadInsideTheWritingUpdateSeesItsWrite(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "bob"})) })
	readUser(t, s, "bob")
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.Tag(store.TaggedUser, "bob", store.Tags{{"k", "v"}}); err != nil {
			return err
		}
		u, err := tx.GetUser("bob")
		if err != nil {
			return err
		}
		if v, _ := u.Tags.Get("k"); v != "v" {
			t.Errorf("inside the Update, tag k = %q, want v", v)
		}
		return nil
	})
}

// TestRolledBackWriteIsNeverRead pins that a write undone by a failed
// Update is not read afterwards, though the Update read it.
func TestRolledBackWriteIsNeverRead(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "carol"})) })
	readUser(t, s, "carol")
	refused := errors.New("refused")
	err := s.Update(context.Background(), func(tx *store.Tx) error {
		if _, err := tx.Tag(store.TaggedUser, "carol", store.Tags{{"k", "rolled-back"}}); err != nil {
			return err
		}
		if _, err := tx.GetUser("carol"); err != nil {
			return err
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("Update = %v, want the refusal", err)
	}
	if v, ok := readUser(t, s, "carol").Tags.Get("k"); ok {
		t.Errorf("tag k = %q after the Update rolled back, want none", v)
	}
}

// TestReadAfterRestartSeesWritesOfTheLastRun pins that reads after a
// restart see what the last run wrote after it had read (and cached) the
// same records, including a write by another process in between.
func TestReadAfterRestartSeesWritesOfTheLastRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leash.db")
	open := func() *store.Store {
		s, err := store.Open(path, store.Options{AccountID: testAccount})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	update(t, s, func(tx *store.Tx) error {
		return ignore(tx.CreateUser(store.User{Name: "dave", Tags: store.Tags{{"run", "1"}}}))
	})
	readUser(t, s, "dave")
	update(t, s, func(tx *store.Tx) error { return ignore(tx.Tag(store.TaggedUser, "dave", store.Tags{{"run", "2"}})) })
	closeStore(t, s)

	s = open()
	if v, _ := readUser(t, s, "dave").Tags.Get("run"); v != "2" {
		t.Errorf("after a restart, tag run = %q, want 2", v)
	}
	closeStore(t, s)

	// The store file written by another process while this one is stopped.
	other := open()
	update(t, other, func(tx *store.Tx) error { return ignore(tx.Tag(store.TaggedUser, "dave", store.Tags{{"run", "3"}})) })
	closeStore(t, other)
	s = open()
	defer closeStore(t, s)
	if v, _ := readUser(t, s, "dave").Tags.Get("run"); v != "3" {
		t.Errorf("after another process wrote, tag run = %q, want 3", v)
	}
}

// TestChangingAReadRecordChangesNoOtherRead pins that a caller may change
// what it read (updateUser does, before writing it back) without changing
// what any later reader gets: slices, their elements and pointers are the
// caller's own.
func TestChangingAReadRecordChangesNoOtherRead(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "erin", Tags: store.Tags{{"team", "a"}}}); err != nil {
			return err
		}
		if _, err := tx.PutUserPolicy("erin", "p", `{"Version":"2012-10-17","Statement":[]}`); err != nil {
			return err
		}
		return ignore(tx.CreateLoginProfile("erin", false))
	})
	for range 3 { // the first read may decode, the later ones are from the cache
		u := readUser(t, s, "erin")
		if len(u.Tags) != 1 || u.Tags[0].Value != "a" || len(u.InlinePolicies) != 1 || u.InlinePolicies[0].Document != `{"Version":"2012-10-17","Statement":[]}` ||
			u.LoginProfile == nil || u.LoginProfile.PasswordResetRequired || len(u.AttachedPolicies) != 0 {
			t.Fatalf("a read after another caller changed its copy gives tags %v, inline policies %v, login profile %+v, attached %v; want what was written",
				u.Tags, u.InlinePolicies, u.LoginProfile, u.AttachedPolicies)
		}
		u.Tags[0].Value = "changed"
		u.Tags = append(u.Tags, store.Tag{Key: "added", Value: "x"})
		u.InlinePolicies[0].Document = "changed"
		u.LoginProfile.PasswordResetRequired = true
		u.AttachedPolicies = append(u.AttachedPolicies, "arn:aws:iam::aws:policy/ReadOnlyAccess")
	}
}

// TestConcurrentReadsFollowWrites pins, under the race detector, that
// readers running beside a writer never see a value older than one they
// have already seen, and see the last write at the end.
func TestConcurrentReadsFollowWrites(t *testing.T) {
	s, _ := openStore(t)
	update(t, s, func(tx *store.Tx) error {
		return ignore(tx.CreateUser(store.User{Name: "frank", Tags: store.Tags{{"n", "0"}}}))
	})
	const writes = 200
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			seen := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				var u store.User
				if err := s.View(context.Background(), func(tx *store.Tx) error {
					var err error
					u, err = tx.GetUser("frank")
					return err
				}); err != nil {
					t.Error(err)
					return
				}
				v, _ := u.Tags.Get("n")
				n, _ := strconv.Atoi(v)
				if n < seen {
					t.Errorf("read n = %d after having read %d", n, seen)
					return
				}
				seen = n
				u.Tags[0].Value = "-1" // a reader's change must not leak to the others
			}
		})
	}
	for i := 1; i <= writes; i++ {
		if err := s.Update(context.Background(), func(tx *store.Tx) error {
			return ignore(tx.Tag(store.TaggedUser, "frank", store.Tags{{"n", strconv.Itoa(i)}}))
		}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if v, _ := readUser(t, s, "frank").Tags.Get("n"); v != strconv.Itoa(writes) {
		t.Errorf("after the writes, n = %s, want %d", v, writes)
	}
}
