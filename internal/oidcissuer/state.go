package oidcissuer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"leash.dev/leash/internal/atomicfile"
)

// StateFile is the issuer folder's record of the issuer: its URL, its keys
// and when each was retired. It is written last in every change, so a run
// cut short leaves the previous state whole.
const StateFile = "issuer.json"

// Issuer is the state of an issuer folder.
type Issuer struct {
	// URL is the issuer: the tokens' iss, served from the public folder.
	URL string `json:"issuer"`
	// MaxTokenLifetime is the longest a token the API server issues lives
	// (--service-account-max-token-expiration): a retired key stays
	// published that long, so every token it signed expires first.
	MaxTokenLifetime Duration `json:"maxTokenLifetime"`
	// Keys are every published key, the signing key last.
	Keys []Key `json:"keys"`
}

// Key is one published key.
type Key struct {
	ID      string    `json:"kid"`
	Created time.Time `json:"created"`
	// RetiredAt is when rotate-key replaced it as the signing key; nil for
	// the signing key.
	RetiredAt *time.Time `json:"retiredAt,omitempty"`
}

// Duration is a time.Duration written as Go spells it ("24h0m0s").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// SigningKey is the key the API server signs with.
func (is Issuer) SigningKey() Key {
	for _, k := range is.Keys {
		if k.RetiredAt == nil {
			return k
		}
	}
	return Key{}
}

// PruneAt is when a retired key may be removed: its retirement plus the
// longest token lifetime.
func (is Issuer) PruneAt(k Key) time.Time {
	if k.RetiredAt == nil {
		return time.Time{}
	}
	return k.RetiredAt.Add(time.Duration(is.MaxTokenLifetime))
}

// Load reads dir's issuer state. A folder without one is ErrNoIssuer.
func Load(dir string) (Issuer, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Issuer{}, fmt.Errorf("%s: %w", dir, ErrNoIssuer)
	}
	if err != nil {
		return Issuer{}, err
	}
	var is Issuer
	if err := json.Unmarshal(data, &is); err != nil {
		return Issuer{}, fmt.Errorf("%s: %v", filepath.Join(dir, StateFile), err)
	}
	if err := is.check(); err != nil {
		return Issuer{}, fmt.Errorf("%s: %v", filepath.Join(dir, StateFile), err)
	}
	return is, nil
}

// keyIDChars is the alphabet of KeyID: unpadded base64url.
var keyIDChars = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ErrNoIssuer is a folder without an issuer state file.
var ErrNoIssuer = errors.New("no " + StateFile + " here: make the issuer with leash sts create-issuer --out DIR")

// check refuses a state leash would not have written: it is read back by
// every command, and a hand edit must not publish the wrong keys.
func (is Issuer) check() error {
	if _, err := ConditionPrefix(is.URL); err != nil {
		return err
	}
	if is.MaxTokenLifetime <= 0 {
		return errors.New("maxTokenLifetime must be positive")
	}
	signing := 0
	seen := map[string]bool{}
	for _, k := range is.Keys {
		if !keyIDChars.MatchString(k.ID) || seen[k.ID] {
			return fmt.Errorf("key ID %q is repeated or not base64url (it names the key files)", k.ID)
		}
		seen[k.ID] = true
		if k.RetiredAt == nil {
			signing++
		}
	}
	if signing != 1 {
		return fmt.Errorf("%d signing keys (keys without retiredAt); there must be exactly one", signing)
	}
	return nil
}

func (is Issuer) save(dir string) error {
	data, err := json.MarshalIndent(is, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, StateFile), append(data, '\n'), 0o644)
}

// String is the duration as Go spells it.
func (d Duration) String() string { return time.Duration(d).String() }
