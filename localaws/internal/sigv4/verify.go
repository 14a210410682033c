package sigv4

import (
	"net/http"
	"time"
)

// Secret is what the caller's key store knows about an access key.
type Secret struct {
	SecretAccessKey string
	// SessionToken is the token issued with temporary credentials, and ""
	// for a long-term key.
	SessionToken string
}

// String keeps the secret out of logs when a Secret is printed by mistake.
func (Secret) String() string { return "sigv4.Secret{redacted}" }

// GoString does the same for %#v.
func (s Secret) GoString() string { return s.String() }

// Lookup finds an access key. It returns UnknownAccessKey for a key that does
// not exist, was deleted or is inactive, ExpiredCredentials for temporary
// credentials whose session has ended, or any other *Error (such as a 500
// when the store fails); nil means the Secret is the key's.
type Lookup func(accessKeyID string) (Secret, *Error)

// Signed is what a verified request proved: who signed it, for which Region
// and service, and when.
type Signed struct {
	AccessKeyID string
	// Region and Service come from the credential scope; the server routes
	// IAM and STS by Service.
	Region  string
	Service string
	// Time is the request's date (X-Amz-Date, or Date), in UTC.
	Time time.Time
	// SessionToken is the token the request carried, "" for a long-term key.
	SessionToken string
	// Presigned is true when the signature came in the query string.
	Presigned bool
}

// String prints a Signed without its session token.
func (s Signed) String() string {
	kind := "header"
	if s.Presigned {
		kind = "presigned"
	}
	return "sigv4.Signed{" + s.AccessKeyID + " " + s.Region + "/" + s.Service + " " +
		s.Time.Format(amzDateLayout) + " " + kind + "}"
}

// GoString does the same for %#v.
func (s Signed) GoString() string { return s.String() }

// Verify checks the AWS Signature Version 4 of r, whose body the caller has
// already read into body, against the key that lookup returns, with now as
// the server's clock. It returns what the signature proved, or the error AWS
// would send. Verify reads r and never changes it or its Body.
//
// The checks run from the cheapest to the one that needs the secret: the
// signature's form, its scope and clock, the payload hash, the key, the
// session token and, last, the signature itself.
func Verify(r *http.Request, body []byte, now time.Time, lookup Lookup) (*Signed, *Error) {
	var inline [16]param
	params, err := parseQuery(r.URL.RawQuery, inline[:0])
	if err != nil {
		return nil, err
	}
	auth, err := readAuthorization(r, params)
	if err != nil {
		return nil, err
	}
	if err := auth.checkTime(now); err != nil {
		return nil, err
	}
	payload, err := payloadHash(r, body)
	if err != nil {
		return nil, err
	}
	secret, err := lookup(auth.accessKeyID)
	if err != nil {
		return nil, err
	}
	if secret.SecretAccessKey == "" {
		return nil, UnknownAccessKey()
	}
	token, err := sessionToken(r, params, auth.accessKeyID, secret)
	if err != nil {
		return nil, err
	}
	if err := auth.verifySignature(r, params, &payload, secret.SecretAccessKey); err != nil {
		return nil, err
	}
	return &Signed{
		AccessKeyID:  auth.accessKeyID,
		Region:       auth.region,
		Service:      auth.service,
		Time:         auth.time,
		SessionToken: token,
		Presigned:    auth.presigned,
	}, nil
}
