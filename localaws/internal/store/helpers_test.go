package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

// clock is a settable clock for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

const testAccount = "123456789012"

// openStore opens a new store in a temporary directory, with a settable
// clock, closed at the end of the test.
func openStore(t testing.TB) (*store.Store, *clock) {
	t.Helper()
	c := newClock()
	s, err := store.Open(filepath.Join(t.TempDir(), "leash.db"), store.Options{AccountID: testAccount, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeStore(t, s) })
	return s, c
}

// update runs fn in an Update and fails the test on an error.
func update(t testing.TB, s *store.Store, fn func(*store.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// view runs fn in a View and fails the test on an error.
func view(t testing.TB, s *store.Store, fn func(*store.Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// wantCode fails the test unless err is a store.Error of that code, and
// returns the refusal for further checks.
func wantCode(t testing.TB, err error, code store.Code) store.Error {
	t.Helper()
	var e *store.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
	return *e
}

// closeStore closes s and fails the test on an error.
func closeStore(t testing.TB, s *store.Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// ignore drops the record an operation returns, for tests that need only its error.
func ignore[T any](_ T, err error) error { return err }
