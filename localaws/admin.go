package localaws

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"leash.dev/leash/credfile"
	"leash.dev/leash/internal/atomicfile"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/localaws/internal/store"
)

// AdminUser is the administrator created on first start.
const AdminUser = "admin"

const adminPolicy = `{"Version":"2012-10-17","Statement":[{"Sid":"AdministratorAccess","Effect":"Allow","Action":"*","Resource":"*"}]}`

// AdminCredentialsPath is where the administrator's key is written.
func (s *Server) AdminCredentialsPath() string {
	return filepath.Join(s.cfg.DataDir, AdminCredentialsFile)
}

// bootstrapAdmin makes sure an account's administrator exists and its key is in the
// credentials file. The file is written before the key's transaction
// commits, so a failure leaves either both or neither; a file whose key is
// not in the store (a crash between the two) is replaced.
func bootstrapAdmin(ctx context.Context, st *store.Store, path string) error {
	if key, err := iamclient.KeyFromFile(path); err == nil {
		known := st.View(ctx, func(tx *store.Tx) error {
			_, err := tx.LookupCredential(key.ID)
			return err
		})
		if known == nil {
			return nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return st.Update(ctx, func(tx *store.Tx) error {
		if _, err := tx.GetUser(AdminUser); errors.Is(err, store.ErrNotFound) {
			if _, err := tx.CreateUser(store.User{Name: AdminUser}); err != nil {
				return err
			}
			if _, err := tx.PutUserPolicy(AdminUser, "AdministratorAccess", adminPolicy); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		// Keep within IAM's two keys: drop the keys no file holds any more.
		keys, err := tx.ListAccessKeys(AdminUser)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.DeleteAccessKey(AdminUser, k.AccessKeyID); err != nil {
				return err
			}
		}
		key, err := tx.CreateAccessKey(AdminUser)
		if err != nil {
			return err
		}
		return writeCredentials(path, key.AccessKeyID, key.SecretAccessKey.Reveal())
	})
}

// writeCredentials writes a shared-credentials file with mode 0600,
// atomically.
func writeCredentials(path, id, secret string) error {
	if err := atomicfile.Write(path, []byte(credfile.Static(id, secret, "")), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
