// Package store is the state of leash local's IAM and STS: one AWS account,
// its users, roles, managed policies, OIDC providers, access keys and STS
// sessions, kept in a bbolt file so that it survives restarts and kill -9.
//
// Every read and write happens in a transaction: View for reads, Update for
// writes. A function given to Update that returns an error or panics leaves
// nothing behind, so a handler can check, create and link records in any
// order without a crash or a refusal half-way leaving a half-made user.
//
// Refusals a client caused (no such user, name taken, quota reached, entity
// still in use, bad input) are *Error values whose Code is the IAM error code
// and whose Message is in IAM's words. Secret access keys and session tokens
// are held in Secret, which never prints its value.
package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"leash.dev/leash/policy"
)

// ErrInUse is returned by Open when another process holds the store file.
var ErrInUse = errors.New("in use by another leash local")

// Options configure Open. The zero value is ready to use.
type Options struct {
	// AccountID is the 12-digit account the store holds. On first open an
	// empty AccountID picks a random one; on later opens a non-empty AccountID
	// must match the stored one, so that ARNs written for one account are
	// never silently read against another.
	AccountID string

	// LockTimeout is how long Open waits for another process to release the
	// file before it returns ErrInUse. Zero means one second.
	LockTimeout time.Duration

	// KeyPropagationDelay is how long after creation an access key starts to
	// work (AccessKey.NotBefore), to let tests meet IAM's eventual consistency
	// the way they will in AWS. Zero means keys work at once.
	KeyPropagationDelay time.Duration

	// LastUsedInterval is how often Store.RecordAccessKeyUse writes the same
	// key, service and region. IAM reports last use coarsely too; writing on
	// every request would cost a disk sync each. Zero means one minute.
	LastUsedInterval time.Duration

	// Now is the clock; nil means time.Now. Tests set it to move time.
	Now func() time.Time
}

// Store is an open store file. It is safe for concurrent use: any number of
// View transactions run in parallel with at most one Update.
type Store struct {
	db      *bolt.DB
	account Account
	opts    Options

	lastUseMu sync.Mutex
	lastUse   map[lastUseKey]time.Time

	records *recordCache
}

// Account is the one AWS account a store holds.
type Account struct {
	ID         string
	CreateDate time.Time
}

// schemaVersion is the layout of the buckets and records. A store written by a
// newer layout is refused rather than misread.
const schemaVersion = 1

// Open opens the store file at path, creating it, its directory and the
// account on first use. The file holds secrets: it is made 0600, and so is an
// existing one that others can read. Only one process can hold a store: a
// second one gets ErrInUse after Options.LockTimeout.
func Open(path string, opts Options) (*Store, error) {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = time.Second
	}
	if opts.LastUsedInterval == 0 {
		opts.LastUsedInterval = time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AccountID != "" && !policy.IsAccountID(opts.AccountID) {
		return nil, fmt.Errorf("open store: account ID %q must be 12 digits", opts.AccountID)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: opts.LockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open store: %s is %w", path, ErrInUse)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// A file made by hand or by an older tool may be readable by others.
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("open store: make %s private: %w", path, err)
		}
	}
	s := &Store{db: db, opts: opts, lastUse: map[lastUseKey]time.Time{}, records: newRecordCache(maxCachedBytes)}
	if err := db.Update(s.initialize); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return s, nil
}

// initialize creates the buckets and the account on first open, and checks
// the layout and account of an existing store.
func (s *Store) initialize(btx *bolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := btx.CreateBucketIfNotExists([]byte(name)); err != nil {
			return err
		}
	}
	meta := btx.Bucket([]byte(bucketMeta))
	if v := meta.Get([]byte(metaSchema)); v != nil {
		var version int
		if err := decode(v, &version); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if version > schemaVersion {
			return fmt.Errorf("written by a newer leash (layout %d, this one reads up to %d)", version, schemaVersion)
		}
	} else if err := meta.Put([]byte(metaSchema), []byte(fmt.Sprint(schemaVersion))); err != nil {
		return err
	}
	if v := meta.Get([]byte(metaAccount)); v != nil {
		if err := decode(v, &s.account); err != nil {
			return fmt.Errorf("read account: %w", err)
		}
		if s.opts.AccountID != "" && s.opts.AccountID != s.account.ID {
			return fmt.Errorf("it holds account %s, not %s; use another data directory for another account", s.account.ID, s.opts.AccountID)
		}
		return nil
	}
	s.account = Account{ID: s.opts.AccountID, CreateDate: timestamp(s.opts.Now())}
	if s.account.ID == "" {
		s.account.ID = newAccountID()
	}
	v, err := encode(s.account)
	if err != nil {
		return err
	}
	return meta.Put([]byte(metaAccount), v)
}

// Close releases the file. Transactions must have ended.
func (s *Store) Close() error { return s.db.Close() }

// Path is the store file's path.
func (s *Store) Path() string { return s.db.Path() }

// Account is the account the store holds.
func (s *Store) Account() Account { return s.account }

// View runs fn in a read-only transaction that sees one consistent state.
// ctx is checked before the transaction starts; bbolt cannot abandon one that
// has.
func (s *Store) View(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.View(func(btx *bolt.Tx) error { return fn(s.newTx(btx)) })
}

// Update runs fn in a read-write transaction and commits what it did when fn
// returns nil, durably (synced to disk) before Update returns. When fn returns
// an error or panics, nothing it did is kept. ctx is checked before the
// transaction starts.
func (s *Store) Update(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.Update(func(btx *bolt.Tx) error {
		tx := s.newTx(btx)
		if err := fn(tx); err != nil {
			return err
		}
		if tx.permissionsChanged {
			meta := btx.Bucket([]byte(bucketMeta))
			return meta.SetSequence(meta.Sequence() + 1)
		}
		return nil
	})
}

func (s *Store) newTx(btx *bolt.Tx) *Tx {
	return &Tx{btx: btx, account: s.account, now: timestamp(s.opts.Now()), opts: &s.opts, records: s.records}
}

// Check reads every page of the file and reports the first inconsistency
// bbolt finds, or nil.
func (s *Store) Check() error {
	return s.db.View(func(btx *bolt.Tx) error {
		var first error
		for err := range btx.Check() { // drained: the checker reads pages until it closes the channel
			if first == nil {
				first = err
			}
		}
		return first
	})
}

// timestamp is how the store keeps times: UTC, without the monotonic reading,
// so that a time read back equals the one written.
func timestamp(t time.Time) time.Time { return t.UTC().Round(0) }
