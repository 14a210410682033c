package store

import (
	"encoding/binary"
	"time"
)

// Session is a set of temporary credentials STS issued (ASIA…), and who they
// stand for: a role session (AssumeRole, AssumeRoleWithWebIdentity) or a user
// (GetSessionToken).
type Session struct {
	AccessKeyID     string
	SecretAccessKey Secret `json:"-"` // written to the file through storedSession
	SessionToken    Secret `json:"-"`
	Issued          time.Time
	Expiration      time.Time

	// RoleName and RoleSessionName name a role session; CreateSession fills
	// AssumedRoleARN (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION) and
	// AssumedRoleID (ROLEID:SESSION) from them.
	RoleName        string
	RoleSessionName string
	AssumedRoleARN  string
	AssumedRoleID   string
	// UserName names the user of a GetSessionToken session.
	UserName string
	// EntityID is the unique ID of the role (AROA…) or user (AIDA…) the
	// session was issued for. AWS binds a session to that ID, not to the
	// name: a session ends for good when its entity is deleted or renamed,
	// and a new entity of the same name does not revive it. "" in sessions
	// written before the ID was recorded, which are refused (see
	// Session.IssuedTo).
	EntityID string
	// UserRenames is the user's Renames when a GetSessionToken session
	// was issued: a rename ends the session even if the user takes its
	// old name back (see IssuedToUser).
	UserRenames int `json:",omitempty"`

	// Policy is the inline session policy, "" for none; PolicyARNs are the
	// managed session policies. Both narrow what the session may do.
	Policy     string
	PolicyARNs []string
	// Tags are the session tags (aws:PrincipalTag in conditions): those
	// passed when the session was issued and those it inherited from the
	// session that assumed it (role chaining).
	Tags Tags
	// TransitiveTagKeys are the keys of Tags, spelled as there, that pass
	// on to the sessions this one assumes: the ones marked transitive when
	// it was issued and the ones it inherited, which stay transitive.
	TransitiveTagKeys []string `json:",omitempty"`
	// SourceIdentity is set once, by the first AssumeRole of a chain that
	// passes one, and carried unchanged to every session chained from it.
	SourceIdentity string
}

// IssuedTo reports whether the session was issued to the entity whose
// unique ID is id: the role or user it names now is the one it was issued
// for. A session without a recorded ID (state written before IDs were
// recorded) is issued to no one: refusing it is the safe reading, and the
// client only has to ask STS for a new session.
func (s *Session) IssuedTo(id string) bool {
	return s.EntityID != "" && s.EntityID == id
}

// IssuedToUser reports whether a GetSessionToken session was issued to u
// as it is now: u's unique ID, and no rename since. A session outlives
// neither the user's deletion nor its rename, even a rename back to the
// name it was issued under.
func (s *Session) IssuedToUser(u User) bool {
	return s.IssuedTo(u.UserID) && s.UserRenames == u.Renames
}

// storedSession is a Session as the file holds it, with its secrets.
type storedSession struct {
	Session
	Secret string
	Token  string
}

// Quotas of STS on what a session carries.
const (
	maxSessionPolicySize = 2048
	maxSessionPolicyARNs = 10
)

// CreateSession issues temporary credentials for s's principal, valid for
// d from now, and returns them with their secrets. s names either a role
// (RoleName, RoleSessionName) or a user (UserName), either of which must
// exist, and may carry Policy, PolicyARNs, Tags and SourceIdentity. Which
// durations STS allows for which call is the caller's rule.
func (tx *Tx) CreateSession(s Session, d time.Duration) (Session, error) {
	if d <= 0 {
		return Session{}, invalid("durationSeconds", d.String(), "Member must be positive")
	}
	switch {
	case s.RoleName != "" && s.UserName == "":
		r, err := tx.GetRole(s.RoleName)
		if err != nil {
			return Session{}, err
		}
		if err := checkLength("roleSessionName", s.RoleSessionName, minSessionNameLen, maxSessionNameLen); err != nil {
			return Session{}, err
		}
		if err := checkPattern("roleSessionName", s.RoleSessionName, namePattern); err != nil {
			return Session{}, err
		}
		s.RoleName = r.Name
		s.AssumedRoleARN = tx.account.assumedRoleARN(r.Name, s.RoleSessionName)
		s.AssumedRoleID = r.RoleID + ":" + s.RoleSessionName
		s.EntityID = r.RoleID
	case s.UserName != "" && s.RoleName == "":
		u, err := tx.GetUser(s.UserName)
		if err != nil {
			return Session{}, err
		}
		s.UserName = u.Name
		s.EntityID, s.UserRenames = u.UserID, u.Renames
		s.RoleSessionName, s.AssumedRoleARN, s.AssumedRoleID = "", "", ""
	default:
		return Session{}, refuse(InvalidInput, "A session stands for either a role or a user.")
	}
	if s.Policy != "" {
		if err := checkDocument("policy", s.Policy, maxSessionPolicySize); err != nil {
			return Session{}, err
		}
	}
	if len(s.PolicyARNs) > maxSessionPolicyARNs {
		return Session{}, refuse(LimitExceeded, "Cannot exceed quota for PolicyArns: %d", maxSessionPolicyARNs)
	}
	for _, arn := range s.PolicyARNs {
		if err := checkPolicyARN(arn); err != nil {
			return Session{}, err
		}
		if err := tx.checkManagedPolicy(arn); err != nil {
			return Session{}, err
		}
	}
	// Session tags are a role's or user's: keys compare without case.
	if err := s.Tags.check(true); err != nil {
		return Session{}, err
	}
	s.AccessKeyID = tx.unusedKeyID(prefixSessionKey)
	s.SecretAccessKey = newSecretAccessKey()
	s.SessionToken = newSessionToken()
	s.Issued = tx.now
	s.Expiration = tx.now.Add(d)
	if err := tx.bucket(bucketSessionExpiry).Put(expiryKey(s.Expiration, s.AccessKeyID), []byte{}); err != nil {
		return Session{}, err
	}
	return s, tx.put(bucketSessions, s.AccessKeyID, storedSession{s, s.SecretAccessKey.Reveal(), s.SessionToken.Reveal()})
}

// expiryKey orders the session expiry index by time: Unix nanoseconds,
// big-endian, then the key ID.
func expiryKey(expiration time.Time, id string) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(expiration.UnixNano()))
	return append(k, id...)
}

// GetSession returns a session by its access key ID, expired or not.
func (tx *Tx) GetSession(id string) (Session, error) {
	var s storedSession
	found, err := tx.get(bucketSessions, id, &s)
	if err != nil {
		return Session{}, err
	}
	if !found {
		return Session{}, refuse(NoSuchEntity, "The session with access key id %s cannot be found.", id)
	}
	s.SecretAccessKey, s.SessionToken = newSecret(s.Secret), newSecret(s.Token)
	return s.Session, nil
}

// DeleteSession revokes a session at once.
func (tx *Tx) DeleteSession(id string) error {
	s, err := tx.GetSession(id)
	if err != nil {
		return err
	}
	if err := tx.delete(bucketSessionExpiry, string(expiryKey(s.Expiration, id))); err != nil {
		return err
	}
	return tx.delete(bucketSessions, id)
}

// DeleteExpiredSessions deletes the sessions expired at the transaction's
// time and returns how many. It reads only those, through the expiry index.
func (tx *Tx) DeleteExpiredSessions() (int, error) {
	now := uint64(tx.now.UnixNano())
	var expired [][]byte
	c := tx.bucket(bucketSessionExpiry).Cursor()
	for k, _ := c.First(); k != nil && binary.BigEndian.Uint64(k[:8]) <= now; k, _ = c.Next() {
		expired = append(expired, append([]byte(nil), k...))
	}
	for _, k := range expired {
		if err := tx.bucket(bucketSessionExpiry).Delete(k); err != nil {
			return 0, err
		}
		if err := tx.delete(bucketSessions, string(k[8:])); err != nil {
			return 0, err
		}
	}
	return len(expired), nil
}
