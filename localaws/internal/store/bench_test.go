package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

// benchFixture is the state an authorized request reads: a user with a
// boundary, two inline policies and three attached managed policies, among
// 1,000 other users, and its access key.
func benchFixture(b testing.TB) (*store.Store, string) {
	s, _ := openStore(b)
	var keyID string
	update(b, s, func(tx *store.Tx) error {
		var arns []string
		for i := range 4 {
			p, err := tx.CreatePolicy(store.ManagedPolicy{Name: "mp" + strconv.Itoa(i)}, doc)
			if err != nil {
				return err
			}
			arns = append(arns, p.ARN)
		}
		for i := range 1000 {
			if _, err := tx.CreateUser(store.User{Name: "other-" + strconv.Itoa(i)}); err != nil {
				return err
			}
		}
		if _, err := tx.CreateUser(store.User{Name: "controller", Tags: store.Tags{{"team", "a"}}, Permissions: store.Permissions{PermissionsBoundary: arns[3]}}); err != nil {
			return err
		}
		for _, n := range []string{"a", "b"} {
			if _, err := tx.PutUserPolicy("controller", n, doc); err != nil {
				return err
			}
		}
		for _, arn := range arns[:3] {
			if _, err := tx.AttachUserPolicy("controller", arn); err != nil {
				return err
			}
		}
		k, err := tx.CreateAccessKey("controller")
		keyID = k.AccessKeyID
		return err
	})
	return s, keyID
}

// authorizeReads is what one authorized request reads: the credential, its
// user, and the documents of the user's managed policies and boundary.
func authorizeReads(tx *store.Tx, keyID string) error {
	c, err := tx.LookupCredential(keyID)
	if err != nil {
		return err
	}
	if err := c.Verify(tx.Now(), ""); err != nil {
		return err
	}
	u, err := tx.GetUser(c.UserName)
	if err != nil {
		return err
	}
	for _, arn := range append(u.AttachedPolicies, u.PermissionsBoundary) {
		if _, err := tx.PolicyDocument(arn); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkLookupCredential(b *testing.B) {
	s, keyID := benchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.View(ctx, func(tx *store.Tx) error { return ignore(tx.LookupCredential(keyID)) }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetUser(b *testing.B) {
	s, _ := benchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.View(ctx, func(tx *store.Tx) error { return ignore(tx.GetUser("controller")) }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuthorizeReads is the read side of one authorized request, in one
// View; the Parallel variant runs it on every core.
func BenchmarkAuthorizeReads(b *testing.B) {
	s, keyID := benchFixture(b)
	ctx := context.Background()
	b.Run("Serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := s.View(ctx, func(tx *store.Tx) error { return authorizeReads(tx, keyID) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := s.View(ctx, func(tx *store.Tx) error { return authorizeReads(tx, keyID) }); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkCommit is one small durable write, such as recording a key's
// last use: the cost RecordAccessKeyUse's interval saves per request.
func BenchmarkCommit(b *testing.B) {
	s, keyID := benchFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		err := s.Update(ctx, func(tx *store.Tx) error {
			return tx.RecordAccessKeyUse(keyID, store.LastUsed{Date: time.Now(), ServiceName: "iam", Region: "us-east-1"})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
