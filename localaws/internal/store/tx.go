package store

import (
	"encoding/json"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Buckets, one per kind of record, plus indexes. Keys are lower-cased names
// (IAM names are unique regardless of case) or IDs.
const (
	bucketMeta           = "meta"
	bucketUsers          = "users"          // lower(user name) → User
	bucketRoles          = "roles"          // lower(role name) → Role
	bucketPolicies       = "policies"       // lower(policy name) → ManagedPolicy
	bucketPolicyVersions = "policyVersions" // lower(policy name)/vN → PolicyVersion
	bucketAccessKeys     = "accessKeys"     // AKIA… → AccessKey
	bucketUserKeys       = "userKeys"       // lower(user name)/AKIA… → nothing: the keys of each user
	bucketSessions       = "sessions"       // ASIA… → Session
	bucketSessionExpiry  = "sessionExpiry"  // expiration (big-endian Unix ns) + ASIA… → nothing
	bucketOIDCProviders  = "oidcProviders"  // lower(host/path) → OIDCProvider

	bucketInstanceProfiles     = "instanceProfiles"     // lower(profile name) → InstanceProfile
	bucketRoleInstanceProfiles = "roleInstanceProfiles" // lower(role name)/lower(profile name) → nothing: the profiles of each role

	metaSchema  = "schema"
	metaAccount = "account"
)

var allBuckets = [...]string{
	bucketMeta, bucketUsers, bucketRoles, bucketPolicies, bucketPolicyVersions,
	bucketAccessKeys, bucketUserKeys, bucketSessions, bucketSessionExpiry, bucketOIDCProviders,
	bucketInstanceProfiles, bucketRoleInstanceProfiles,
	bucketGroups, bucketGroupMembers, bucketUserGroups,
}

// Tx is a transaction of Store.View or Store.Update. Its methods are the IAM
// and STS operations' reads and writes; write methods fail in a View. A Tx is
// only valid inside the function it was given to.
type Tx struct {
	btx     *bolt.Tx
	account Account
	now     time.Time
	opts    *Options
	// permissionsChanged is set by a write to a user, role or managed
	// policy; Store.Update then advances the permissions revision.
	permissionsChanged bool
	// users memoizes decoded users in a read transaction, where a request
	// reads the same user several times (caller, target, operation) and
	// nothing can change it.
	users map[string]User
	// records is the store's cache of decoded records (recordCache).
	records *recordCache
}

// Now is the time of the transaction: every record it creates carries it, and
// expiry is judged against it.
func (tx *Tx) Now() time.Time { return tx.now }

// Account is the account the store holds.
func (tx *Tx) Account() Account { return tx.account }

func (tx *Tx) bucket(name string) *bolt.Bucket { return tx.btx.Bucket([]byte(name)) }

// get decodes the record at key into v and reports whether there was one.
func (tx *Tx) get(bucket, key string, v any) (bool, error) {
	k := []byte(key)
	data := tx.bucket(bucket).Get(k)
	if data == nil {
		return false, nil
	}
	return true, tx.decodeRecord(bucket, k, data, v)
}

func (tx *Tx) exists(bucket, key string) bool {
	return tx.bucket(bucket).Get([]byte(key)) != nil
}

func (tx *Tx) put(bucket, key string, v any) error {
	data, err := encode(v)
	if err != nil {
		return err
	}
	tx.noteWrite(bucket)
	return tx.bucket(bucket).Put([]byte(key), data)
}

func (tx *Tx) delete(bucket, key string) error {
	tx.noteWrite(bucket)
	return tx.bucket(bucket).Delete([]byte(key))
}

// noteWrite marks the transaction as changing permissions when it writes a
// record that decides what a principal may do.
func (tx *Tx) noteWrite(bucket string) {
	switch bucket {
	case bucketUsers, bucketRoles, bucketPolicies, bucketPolicyVersions,
		bucketGroups, bucketGroupMembers, bucketUserGroups:
		tx.permissionsChanged = true
	}
}

// PermissionsRevision changes whenever a committed transaction has changed a
// user, group, group membership, role or managed policy (not keys, sessions
// or OIDC providers). A cache of compiled policies keyed by principal and
// revision is never stale, and survives AssumeRole and key use, which do
// not change it.
func (tx *Tx) PermissionsRevision() uint64 { return tx.bucket(bucketMeta).Sequence() }

// keysWithPrefix lists the keys of bucket that start with prefix, in order.
func (tx *Tx) keysWithPrefix(bucket, prefix string) []string {
	var keys []string
	c := tx.bucket(bucket).Cursor()
	for k, _ := c.Seek([]byte(prefix)); k != nil && strings.HasPrefix(string(k), prefix); k, _ = c.Next() {
		keys = append(keys, string(k))
	}
	return keys
}

func encode(v any) ([]byte, error) { return json.Marshal(v) }

func decode(data []byte, v any) error { return json.Unmarshal(data, v) }

// key is the bucket key of an IAM name: names are unique regardless of case.
func key(name string) string { return strings.ToLower(name) }
