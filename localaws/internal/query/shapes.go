package query

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"strings"
	"time"
)

// OptionalList is a list in a result that AWS leaves out when it is
// empty, such as the Tags of GetUser's User: written as <Name> holding one
// <member> per item, and not at all when it has no items.
//
//	Tags query.OptionalList[query.Tag] `xml:"Tags"`
//
// A list the output shape always has, such as ListUsers' Users, is a plain
// slice with a member path:
//
//	Users []User `xml:"Users>member"`
//
// encoding/xml writes that one's <Users></Users> even when it is empty (it
// opens the parent before it looks at the slice, omitempty or not), which
// is what AWS does and what the AWS CLI needs to print "Users": [].
type OptionalList[T any] []T

// MarshalXML writes the list's element and a member element per item, or
// nothing for an empty list.
func (l OptionalList[T]) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if len(l) == 0 {
		return nil
	}
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	member := xml.StartElement{Name: xml.Name{Local: "member"}}
	for _, item := range l {
		if err := e.EncodeElement(item, member); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

// Timestamp is a time in a result, written as AWS writes them: ISO 8601 in
// UTC to the second, such as 2026-03-01T12:00:00Z. The zero Timestamp
// writes no element, so an optional time (a user's PasswordLastUsed)
// needs no pointer.
type Timestamp time.Time

// TimestampFormat is the layout of a Timestamp.
const TimestampFormat = "2006-01-02T15:04:05Z"

// MarshalXML writes the time, or nothing for the zero time.
func (t Timestamp) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	tt := time.Time(t)
	if tt.IsZero() {
		return nil
	}
	return e.EncodeElement(tt.UTC().Format(TimestampFormat), start)
}

// PolicyDocument encodes a policy document as IAM returns it in
// GetUserPolicy, GetRolePolicy, GetGroupPolicy, GetPolicyVersion, GetRole's
// AssumeRolePolicyDocument and GetAccountAuthorizationDetails:
// URL-encoded per RFC 3986, every byte but the unreserved letters, digits
// and -._~ as %XX. Spaces become %20, never +, so that every URL decoder
// (Go's url.QueryUnescape and url.PathUnescape, Java's URLDecoder,
// Python's unquote) gives back the document.
func PolicyDocument(doc string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(doc) * 2)
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xF])
	}
	return b.String()
}

// NewRequestID returns a request ID in the form AWS gives them, a random
// (version 4) UUID, for the RequestId element and the x-amzn-RequestId
// header.
func NewRequestID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	// Written by hand: fmt's verbs cost more than the random bytes, and
	// every request takes two IDs.
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], u[10:16])
	return string(s[:])
}
