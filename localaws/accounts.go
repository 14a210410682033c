package localaws

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// AccountsDir is the folder, in the data folder, of the other accounts'
// state: one folder per account ID, each with its own state and
// administrator's credentials file.
const AccountsDir = "accounts"

// openOtherAccounts opens (or creates) the state of each of
// cfg.OtherAccounts, and its administrator.
func (s *Server) openOtherAccounts(ctx context.Context) error {
	s.others = map[string]*store.Store{}
	for _, id := range s.cfg.OtherAccounts {
		if id == s.store.Account().ID || s.others[id] != nil {
			return fmt.Errorf("other account %s: given twice (or is the main account); give each account once", id)
		}
		dir := filepath.Join(s.cfg.DataDir, AccountsDir, id)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("account folder %s: %w", dir, err)
		}
		st, err := store.Open(filepath.Join(dir, StateFile), store.Options{
			AccountID: id, KeyPropagationDelay: s.cfg.Faults.PropagationDelay, Now: s.cfg.Now,
		})
		if err != nil {
			return fmt.Errorf("other account %s: %w", id, err)
		}
		s.others[id] = st
		if err := bootstrapAdmin(ctx, st, s.AccountAdminCredentialsPath(id)); err != nil {
			return err
		}
	}
	return nil
}

// AccountAdminCredentialsPath is where the administrator's key of account
// id is written: the main account's credentials file, or its own folder's
// for another account.
func (s *Server) AccountAdminCredentialsPath(id string) string {
	if id == s.AccountID() {
		return s.AdminCredentialsPath()
	}
	return filepath.Join(s.cfg.DataDir, AccountsDir, id, AdminCredentialsFile)
}

// closeOtherAccounts closes the other accounts' stores.
func (s *Server) closeOtherAccounts() error {
	var errs []error
	for _, st := range s.others {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}

// storeForKey is the state of the account that issued an access key: the
// account a signed request acts in. An unknown key is the main account's,
// which refuses it.
func (s *Server) storeForKey(id string) *store.Store {
	for _, st := range s.others {
		err := st.View(context.Background(), func(tx *store.Tx) error {
			_, err := tx.LookupCredential(id)
			return err
		})
		if err == nil {
			return st
		}
	}
	return s.store
}

// roleStore is the state that holds a role ARN's account when the server
// holds it and it is not the call's own, nil otherwise: the store in which
// a cross-account AssumeRole reads the role and issues its session.
func (c *call) roleStore(arn string) *store.Store {
	a, ok := policy.ParseARN(arn)
	if !ok || a.Account == c.tx.Account().ID {
		return nil
	}
	return c.srv.others[a.Account]
}
