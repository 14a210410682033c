package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

func TestOpenCreatesPrivateFileAndAccount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "leash.db")
	s, err := store.Open(path, store.Options{AccountID: testAccount})
	if err != nil {
		t.Fatal(err)
	}
	created := s.Account()
	if created.ID != testAccount || created.CreateDate.IsZero() {
		t.Errorf("account = %+v", created)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := info.Mode().Perm(); mode != 0o600 {
		t.Errorf("file mode = %o, want 600: the file holds secrets", mode)
	}

	reopened, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore(t, reopened)
	if got := reopened.Account(); got != created {
		t.Errorf("reopened account = %+v, want %+v", got, created)
	}
}

func TestOpenMakesAnExistingFileReadableByOthersPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leash.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeStore(t, s)
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closeStore(t, s)
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode after reopening = %v, %v; want 600", info.Mode().Perm(), err)
	}
}

func TestOpenPicksRandomAccountWhenNoneGiven(t *testing.T) {
	s, err := store.Open(filepath.Join(t.TempDir(), "leash.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore(t, s)
	if id := s.Account().ID; len(id) != 12 || strings.Trim(id, "0123456789") != "" {
		t.Errorf("account ID = %q, want 12 digits", id)
	}
}

func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.db")
	s, err := store.Open(existing, store.Options{AccountID: testAccount})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	notBolt := filepath.Join(dir, "notbolt.db")
	if err := os.WriteFile(notBolt, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		opts    store.Options
		wantErr string
	}{
		{"an account ID that is not 12 digits", filepath.Join(dir, "new.db"), store.Options{AccountID: "12345"}, "must be 12 digits"},
		{"another account than the one the file holds", existing, store.Options{AccountID: "999999999999"}, "holds account 123456789012, not 999999999999"},
		{"a file that is not a store", notBolt, store.Options{}, notBolt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := store.Open(tt.path, tt.opts)
			if err == nil {
				closeStore(t, s)
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %q, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestSecondOpenOfAStoreInUseFailsClearly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leash.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore(t, s)
	start := time.Now()
	second, err := store.Open(path, store.Options{LockTimeout: 100 * time.Millisecond})
	if err == nil {
		closeStore(t, second)
		t.Fatal("second Open succeeded while the first holds the file")
	}
	if !errors.Is(err, store.ErrInUse) || !strings.Contains(err.Error(), path+" is in use by another leash local") {
		t.Errorf("error = %q, want ErrInUse naming the path", err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("waited %v for the lock, want about LockTimeout", waited)
	}
}

func TestFailedUpdateLeavesNothing(t *testing.T) {
	tests := []struct {
		name string
		fail func(tx *store.Tx) error
	}{
		{"function returns an error", func(*store.Tx) error { return errors.New("handler gave up") }},
		{"a later step is refused", func(tx *store.Tx) error {
			_, err := tx.CreateUser(store.User{Name: "invalid name with spaces"})
			return err
		}},
		{"function panics", func(*store.Tx) error { panic("handler bug") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openStore(t)
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = errors.New("panicked")
					}
				}()
				return s.Update(context.Background(), func(tx *store.Tx) error {
					if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
						return err
					}
					if _, err := tx.PutUserPolicy("alice", "p", `{"Version":"2012-10-17","Statement":[]}`); err != nil {
						return err
					}
					if _, err := tx.CreateAccessKey("alice"); err != nil {
						return err
					}
					if _, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, `{}`); err != nil {
						return err
					}
					return tt.fail(tx)
				})
			}()
			if err == nil {
				t.Fatal("Update succeeded")
			}
			view(t, s, func(tx *store.Tx) error {
				if _, err := tx.GetUser("alice"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("user after rollback: err = %v, want NoSuchEntity", err)
				}
				if _, err := tx.GetPolicy("arn:aws:iam::" + testAccount + ":policy/mp"); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("policy after rollback: err = %v, want NoSuchEntity", err)
				}
				return nil
			})
			// The store still works, and the name is free.
			update(t, s, func(tx *store.Tx) error { return ignore(tx.CreateUser(store.User{Name: "alice"})) })
			view(t, s, func(tx *store.Tx) error {
				keys, err := tx.ListAccessKeys("alice")
				if len(keys) != 0 {
					t.Errorf("keys after rollback = %d, want 0", len(keys))
				}
				return err
			})
		})
	}
}

func TestWritesInAViewAreRefused(t *testing.T) {
	s, _ := openStore(t)
	err := s.View(context.Background(), func(tx *store.Tx) error {
		return ignore(tx.CreateUser(store.User{Name: "alice"}))
	})
	if err == nil {
		t.Fatal("CreateUser in a View succeeded")
	}
}

func TestCancelledContextStartsNoTransaction(t *testing.T) {
	s, _ := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := s.Update(ctx, func(*store.Tx) error { ran = true; return nil })
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("Update with a cancelled context: err = %v, ran = %v", err, ran)
	}
}

func TestTransactionTimeIsTheClock(t *testing.T) {
	s, c := openStore(t)
	view(t, s, func(tx *store.Tx) error {
		if !tx.Now().Equal(c.Now()) {
			t.Errorf("tx.Now() = %v, want %v", tx.Now(), c.Now())
		}
		if tx.Account().ID != testAccount {
			t.Errorf("tx.Account() = %+v", tx.Account())
		}
		return nil
	})
}

func TestPermissionsRevisionMovesOnlyWithPermissions(t *testing.T) {
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
		if _, err := tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		return ignore(tx.CreatePolicy(store.ManagedPolicy{Name: "mp"}, doc))
	})
	const mp = "arn:aws:iam::123456789012:policy/mp"
	tests := []struct {
		name  string
		write func(tx *store.Tx) error
		moves bool
	}{
		{"an inline policy put", func(tx *store.Tx) error { return ignore(tx.PutUserPolicy("alice", "p", doc)) }, true},
		{"an attachment", func(tx *store.Tx) error { return ignore(tx.AttachRolePolicy("r", mp)) }, true},
		{"a new default version of an attached policy", func(tx *store.Tx) error { return ignore(tx.CreatePolicyVersion(mp, doc, true)) }, true},
		{"a user tag", func(tx *store.Tx) error { return ignore(tx.Tag(store.TaggedUser, "alice", store.Tags{{"k", "v"}})) }, true},
		{"an access key", func(tx *store.Tx) error { return ignore(tx.CreateAccessKey("alice")) }, false},
		{"a session", func(tx *store.Tx) error {
			return ignore(tx.CreateSession(store.Session{RoleName: "r", RoleSessionName: "s1"}, time.Hour))
		}, false},
		{"an OIDC provider", func(tx *store.Tx) error {
			return ignore(tx.CreateOIDCProvider(store.OIDCProvider{URL: "https://issuer.example.com"}))
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := revision()
			update(t, s, tt.write)
			if moved := revision() != before; moved != tt.moves {
				t.Errorf("revision moved = %v, want %v", moved, tt.moves)
			}
		})
	}
	t.Run("a refused write", func(t *testing.T) {
		before := revision()
		_ = s.Update(context.Background(), func(tx *store.Tx) error {
			if _, err := tx.PutUserPolicy("alice", "q", doc); err != nil {
				return err
			}
			return errors.New("give up")
		})
		if revision() != before {
			t.Error("a rolled-back write moved the revision")
		}
	})
}
