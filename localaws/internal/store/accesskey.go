package store

import (
	"cmp"
	"slices"
	"time"
)

// KeyStatus says whether an access key may sign requests.
type KeyStatus string

// The statuses of an access key.
const (
	Active   KeyStatus = "Active"
	Inactive KeyStatus = "Inactive"
)

// AccessKey is a user's long-term access key (AKIA…).
type AccessKey struct {
	AccessKeyID     string
	SecretAccessKey Secret `json:"-"` // written to the file through storedAccessKey
	UserName        string
	// UserID is the unique ID (AIDA…) of the user the key was created for;
	// "" in keys written before it was recorded. A key follows its user
	// through a rename, and DeleteUser refuses a user with keys, so a key
	// cannot outlive its user; the ID makes that a checked rule rather than
	// a consequence (see Credential.UserID).
	UserID     string
	Status     KeyStatus
	CreateDate time.Time
	// NotBefore is when the key starts to work: CreateDate plus
	// Options.KeyPropagationDelay, to imitate IAM's propagation.
	NotBefore time.Time
	// LastUsed is zero until the key signs a request.
	LastUsed LastUsed
}

// LastUsed is when, for which service and in which region a key last signed
// a request.
type LastUsed struct {
	Date        time.Time
	ServiceName string
	Region      string
}

// storedAccessKey is an AccessKey as the file holds it: with the secret,
// which AccessKey's own encodings leave out.
type storedAccessKey struct {
	AccessKey
	Secret string
}

func (tx *Tx) putAccessKey(k AccessKey) error {
	return tx.put(bucketAccessKeys, k.AccessKeyID, storedAccessKey{k, k.SecretAccessKey.Reveal()})
}

// CreateAccessKey creates an active key for a user, at most two per user as
// IAM allows. The returned key holds the secret; it is the one time a
// caller should hand it out.
func (tx *Tx) CreateAccessKey(userName string) (AccessKey, error) {
	u, err := tx.GetUser(userName)
	if err != nil {
		return AccessKey{}, err
	}
	if len(tx.keysWithPrefix(bucketUserKeys, key(u.Name)+"/")) >= maxAccessKeys {
		return AccessKey{}, refuse(LimitExceeded, "Cannot exceed quota for AccessKeysPerUser: %d", maxAccessKeys)
	}
	k := AccessKey{
		AccessKeyID:     tx.unusedKeyID(prefixAccessKey),
		SecretAccessKey: newSecretAccessKey(),
		UserName:        u.Name,
		UserID:          u.UserID,
		Status:          Active,
		CreateDate:      tx.now,
		NotBefore:       tx.now.Add(tx.opts.KeyPropagationDelay),
	}
	if err := tx.bucket(bucketUserKeys).Put([]byte(key(u.Name)+"/"+k.AccessKeyID), []byte{}); err != nil {
		return AccessKey{}, err
	}
	return k, tx.putAccessKey(k)
}

// unusedKeyID draws key IDs until one is neither a long-term key nor a
// session. With 80 random bits a second draw is all but impossible, but a
// collision would hand one key's owner another's identity.
func (tx *Tx) unusedKeyID(prefix string) string {
	for {
		id := newAccessKeyID(prefix)
		if !tx.exists(bucketAccessKeys, id) && !tx.exists(bucketSessions, id) {
			return id
		}
	}
}

// GetAccessKey returns a long-term key by ID, whoever owns it.
func (tx *Tx) GetAccessKey(id string) (AccessKey, error) {
	var s storedAccessKey
	found, err := tx.get(bucketAccessKeys, id, &s)
	if err != nil {
		return AccessKey{}, err
	}
	if !found {
		return AccessKey{}, refuse(NoSuchEntity, "The Access Key with id %s cannot be found.", id)
	}
	s.SecretAccessKey = newSecret(s.Secret)
	return s.AccessKey, nil
}

// userAccessKey returns a key only if userName owns it: IAM's key operations
// name the user, and a key of another user is NoSuchEntity.
func (tx *Tx) userAccessKey(userName, id string) (AccessKey, error) {
	k, err := tx.GetAccessKey(id)
	if err == nil && key(k.UserName) != key(userName) {
		err = refuse(NoSuchEntity, "The Access Key with id %s cannot be found.", id)
	}
	return k, err
}

// ListAccessKeys returns a user's keys, oldest first. Its length is what
// counts against the quota of two.
func (tx *Tx) ListAccessKeys(userName string) ([]AccessKey, error) {
	u, err := tx.GetUser(userName)
	if err != nil {
		return nil, err
	}
	prefix := key(u.Name) + "/"
	var keys []AccessKey
	for _, k := range tx.keysWithPrefix(bucketUserKeys, prefix) {
		ak, err := tx.GetAccessKey(k[len(prefix):])
		if err != nil {
			return nil, err
		}
		keys = append(keys, ak)
	}
	slices.SortFunc(keys, func(a, b AccessKey) int {
		return cmp.Or(a.CreateDate.Compare(b.CreateDate), cmp.Compare(a.AccessKeyID, b.AccessKeyID))
	})
	return keys, nil
}

// UpdateAccessKey activates or deactivates a user's key.
func (tx *Tx) UpdateAccessKey(userName, id string, status KeyStatus) (AccessKey, error) {
	if status != Active && status != Inactive {
		return AccessKey{}, invalid("status", string(status), "Member must satisfy enum value set: [Active, Inactive]")
	}
	k, err := tx.userAccessKey(userName, id)
	if err != nil {
		return AccessKey{}, err
	}
	k.Status = status
	return k, tx.putAccessKey(k)
}

// DeleteAccessKey deletes a user's key. Requests it signed before stay
// signed; new ones fail at once.
func (tx *Tx) DeleteAccessKey(userName, id string) error {
	k, err := tx.userAccessKey(userName, id)
	if err != nil {
		return err
	}
	if err := tx.delete(bucketUserKeys, key(k.UserName)+"/"+id); err != nil {
		return err
	}
	return tx.delete(bucketAccessKeys, id)
}

// RecordAccessKeyUse sets a key's LastUsed. Store.RecordAccessKeyUse calls
// it no more often than IAM's reporting needs.
func (tx *Tx) RecordAccessKeyUse(id string, used LastUsed) error {
	k, err := tx.GetAccessKey(id)
	if err != nil {
		return err
	}
	used.Date = timestamp(used.Date)
	k.LastUsed = used
	return tx.putAccessKey(k)
}

// moveAccessKeys gives a renamed user's keys their new owner name.
func (tx *Tx) moveAccessKeys(oldName, newName string) error {
	prefix := key(oldName) + "/"
	for _, ik := range tx.keysWithPrefix(bucketUserKeys, prefix) {
		k, err := tx.GetAccessKey(ik[len(prefix):])
		if err != nil {
			return err
		}
		k.UserName = newName
		if err := tx.putAccessKey(k); err != nil {
			return err
		}
		if err := tx.delete(bucketUserKeys, ik); err != nil {
			return err
		}
		if err := tx.bucket(bucketUserKeys).Put([]byte(key(newName)+"/"+k.AccessKeyID), []byte{}); err != nil {
			return err
		}
	}
	return nil
}
