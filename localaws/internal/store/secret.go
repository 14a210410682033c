package store

import (
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
)

// redacted is what a Secret prints as.
const redacted = "[REDACTED]"

// Secret is a secret access key or a session token. It prints as [REDACTED]
// with every fmt verb (also inside a struct printed with %v, %+v or %#v), in
// slog, and in JSON and text encodings, so a record holding one can be
// logged, wrapped into an error or dumped in a test failure without leaking
// it. Reveal is the one way to the value: grep for it to find every place a
// secret leaves the store.
//
// The value sits behind a pointer because fmt, when a verb does not suit a
// value (%s of a pointer to a struct), prints it by reflection without calling
// its methods: a pointer then shows as an address, never as the text.
type Secret struct{ value *string }

func newSecret(value string) Secret {
	if value == "" {
		return Secret{}
	}
	return Secret{&value}
}

// Reveal returns the secret itself: for the response that hands it to its
// owner once, and for deriving a SigV4 signing key.
func (s Secret) Reveal() string {
	if s.value == nil {
		return ""
	}
	return *s.value
}

// IsZero reports whether there is no secret (a long-term key has no session
// token).
func (s Secret) IsZero() bool { return s.value == nil }

// Equal compares the secret with a presented value in constant time, so the
// time a comparison takes tells nothing about the secret.
func (s Secret) Equal(presented string) bool {
	return subtle.ConstantTimeCompare([]byte(s.Reveal()), []byte(presented)) == 1
}

func (s Secret) String() string {
	if s.IsZero() {
		return ""
	}
	return redacted
}

// GoString keeps %#v from showing the value.
func (s Secret) GoString() string { return `store.Secret("` + s.String() + `")` }

// Format keeps every verb, including %x and %q, from showing the value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, s.GoString())
		return
	}
	_, _ = io.WriteString(f, s.String())
}

// LogValue keeps slog, whatever its handler, from showing the value.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalText keeps text encoders from showing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalJSON keeps encoding/json from showing the value. The store writes
// secrets to its file through its own record types, never through this.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }
