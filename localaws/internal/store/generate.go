package store

import (
	"crypto/rand"
	"encoding/base64"
)

// Prefixes IAM puts before the random part of each kind of identifier; SDKs
// and tools recognise a key's kind by them (AKIA long-term, ASIA temporary).
const (
	prefixUserID     = "AIDA"
	prefixRoleID     = "AROA"
	prefixPolicyID   = "ANPA"
	prefixAccessKey  = "AKIA"
	prefixSessionKey = "ASIA"

	prefixInstanceProfileID = "AIPA"
)

// idAlphabet is base32's: real IAM IDs use upper-case letters and the digits
// 2 to 7, so every generated ID is also "upper-case alphanumerics".
const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

// randomString draws n characters from a 32-character alphabet. 32 divides
// 256, so taking each byte modulo 32 is unbiased.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	for i := range b {
		b[i] = idAlphabet[b[i]%32]
	}
	return string(b)
}

// newUniqueID is a user, role or policy ID: a prefix and 17 characters, 21 in
// all as in IAM.
func newUniqueID(prefix string) string { return prefix + randomString(17) }

// newAccessKeyID is a long-term (AKIA) or session (ASIA) key ID: 20
// characters as in IAM.
func newAccessKeyID(prefix string) string { return prefix + randomString(16) }

// newSecretAccessKey is 40 characters of base64 (30 random bytes), the length
// and alphabet of AWS's secret keys.
func newSecretAccessKey() Secret {
	b := make([]byte, 30)
	_, _ = rand.Read(b)
	return newSecret(base64.StdEncoding.EncodeToString(b))
}

// newSessionToken is 256 characters of base64 from 192 random bytes: opaque
// like AWS's, and long enough that SDKs and tools that size buffers for real
// tokens are exercised.
func newSessionToken() Secret {
	b := make([]byte, 192)
	_, _ = rand.Read(b)
	return newSecret(base64.StdEncoding.EncodeToString(b))
}

// newAccountID is 12 random digits, drawn without modulo bias.
func newAccountID() string {
	id := make([]byte, 0, 12)
	var b [1]byte
	for len(id) < 12 {
		_, _ = rand.Read(b[:])
		if b[0] < 250 {
			id = append(id, '0'+b[0]%10)
		}
	}
	return string(id)
}
