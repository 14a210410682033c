package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"leash.dev/leash/localaws/internal/store"
)

// A handler does its reads and writes in one Update, and sends a refusal's
// Code and Message to the client as they are.
func ExampleStore_Update() {
	dir, _ := os.MkdirTemp("", "leash")
	defer func() { _ = os.RemoveAll(dir) }()
	s, err := store.Open(filepath.Join(dir, "leash.db"), store.Options{AccountID: "123456789012"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = s.Close() }()

	createUser := func(name string) error {
		return s.Update(context.Background(), func(tx *store.Tx) error {
			u, err := tx.CreateUser(store.User{Name: name, Path: "/controllers/"})
			if err != nil {
				return err
			}
			if _, err := tx.PutUserPolicy(u.Name, u.Name+"-policy", `{"Version":"2012-10-17","Statement":[]}`); err != nil {
				return err // nothing of this call is kept, not even the user
			}
			k, err := tx.CreateAccessKey(u.Name)
			fmt.Println(u.ARN, len(k.AccessKeyID), k.SecretAccessKey)
			return err
		})
	}
	_ = createUser("ccm")
	var refusal *store.Error
	if err := createUser("CCM"); errors.As(err, &refusal) {
		fmt.Println(refusal.Code, refusal.Message)
	}
	// Output:
	// arn:aws:iam::123456789012:user/controllers/ccm 20 [REDACTED]
	// EntityAlreadyExists User with name CCM already exists.
}

// The SigV4 verifier resolves the request's access key ID and checks the
// credential before it checks the signature with the secret.
func ExampleTx_LookupCredential() {
	dir, _ := os.MkdirTemp("", "leash")
	defer func() { _ = os.RemoveAll(dir) }()
	s, err := store.Open(filepath.Join(dir, "leash.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = s.Close() }()

	verify := func(accessKeyID, sessionToken string) error {
		return s.View(context.Background(), func(tx *store.Tx) error {
			c, err := tx.LookupCredential(accessKeyID)
			if err != nil {
				return err
			}
			if err := c.Verify(tx.Now(), sessionToken); err != nil {
				return err
			}
			_ = c.SecretAccessKey.Reveal() // derive the signing key, compare signatures
			return nil
		})
	}
	fmt.Println(verify("AKIAIOSFODNN7EXAMPLE", ""))
	// Output:
	// InvalidClientTokenId: The security token included in the request is invalid.
}
