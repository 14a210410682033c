package store

import (
	"strings"
	"time"
)

// Credential is an access key ID resolved to what SigV4 verification needs:
// the secret to check the signature with, the session token the request
// must carry, and who the key stands for.
type Credential struct {
	AccessKeyID     string
	SecretAccessKey Secret
	// SessionToken is zero for a long-term key.
	SessionToken Secret
	// UserName is the owner of a long-term key or of a GetSessionToken
	// session; "" for a role session.
	UserName string
	// UserID is the unique ID of a long-term key's user, "" when the key
	// predates recording it; a session's entity is Session.EntityID.
	UserID string
	Status KeyStatus
	// NotBefore is when a long-term key starts to work.
	NotBefore time.Time
	// Expiration is when a session ends; zero for a long-term key.
	Expiration time.Time
	// Session is the session of a temporary key; nil for a long-term key.
	Session *Session
}

// Sentinels for errors.Is on refused credentials.
var (
	ErrInvalidClientToken = &Error{Code: InvalidClientTokenID}
	ErrExpiredToken       = &Error{Code: ExpiredToken}
)

// InvalidClientToken is AWS's refusal of a credential that is unknown,
// deleted, or no longer stands for the entity it was issued to, with AWS's
// message.
func InvalidClientToken() *Error {
	return refuse(InvalidClientTokenID, "The security token included in the request is invalid.")
}

// LookupCredential resolves an access key ID, long-term (AKIA) or temporary
// (ASIA). An unknown ID is InvalidClientTokenId, as AWS answers.
func (tx *Tx) LookupCredential(accessKeyID string) (Credential, error) {
	if strings.HasPrefix(accessKeyID, prefixSessionKey) {
		s, err := tx.GetSession(accessKeyID)
		if err != nil {
			return Credential{}, InvalidClientToken()
		}
		return Credential{
			AccessKeyID:     s.AccessKeyID,
			SecretAccessKey: s.SecretAccessKey,
			SessionToken:    s.SessionToken,
			UserName:        s.UserName,
			Status:          Active,
			NotBefore:       s.Issued,
			Expiration:      s.Expiration,
			Session:         &s,
		}, nil
	}
	k, err := tx.GetAccessKey(accessKeyID)
	if err != nil {
		return Credential{}, InvalidClientToken()
	}
	return Credential{
		AccessKeyID:     k.AccessKeyID,
		SecretAccessKey: k.SecretAccessKey,
		UserName:        k.UserName,
		UserID:          k.UserID,
		Status:          k.Status,
		NotBefore:       k.NotBefore,
	}, nil
}

// Verify says whether the credential may sign a request at now that carries
// sessionToken ("" when the request has none): the key must be active and
// propagated, a session key must come with its own token and not have
// expired, and a long-term key must come with none. The refusal is
// InvalidClientTokenId or ExpiredToken, as AWS answers; it names no secret.
// The signature itself is the caller's to check, with SecretAccessKey.
func (c Credential) Verify(now time.Time, sessionToken string) error {
	if c.Status != Active || now.Before(c.NotBefore) {
		return InvalidClientToken()
	}
	if c.SessionToken.IsZero() {
		if sessionToken != "" {
			return InvalidClientToken()
		}
		return nil
	}
	if !c.SessionToken.Equal(sessionToken) {
		return InvalidClientToken()
	}
	if !now.Before(c.Expiration) {
		return refuse(ExpiredToken, "The security token included in the request is expired")
	}
	return nil
}
