package oidcissuer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"leash.dev/leash/internal/inputerr"
)

// MinTokenLifetime is the shortest --max-token-lifetime: kube-apiserver
// issues no token shorter than ten minutes, so a shorter bound would not
// hold.
const MinTokenLifetime = 10 * time.Minute

// CreateOptions are create-issuer's inputs.
type CreateOptions struct {
	// URL is the issuer URL: https, no query, fragment or trailing slash.
	URL string
	// MaxTokenLifetime bounds the API server's tokens; zero is "not given"
	// (24 hours for a new issuer, anything for an existing one).
	MaxTokenLifetime time.Duration
	Now              time.Time
}

// DefaultMaxTokenLifetime is the token lifetime bound when none is given.
const DefaultMaxTokenLifetime = 24 * time.Hour

// CheckURL refuses an issuer URL IAM and STS would not take, or one whose
// spelling the tokens' iss and the IAM provider would not share.
func CheckURL(source, issuerURL string) error {
	if _, err := ConditionPrefix(issuerURL); err != nil {
		return &inputerr.Error{Source: source, Msg: err.Error()}
	}
	if strings.HasSuffix(issuerURL, "/") {
		return &inputerr.Error{Source: source, Msg: fmt.Sprintf("%q ends in /: give it without the trailing slash (the tokens' iss is the URL as written, and IAM names the provider without it)", issuerURL)}
	}
	return nil
}

// Create makes an issuer in dir: a signing key, its public key, the key
// set and discovery document, and the state file. The folder is built
// beside dir and renamed into place, so dir either holds the whole issuer
// or is as it was. dir must be absent or empty; when it already holds the
// issuer for o.URL, Create changes nothing and returns existed true.
func Create(dir string, o CreateOptions) (is Issuer, existed bool, err error) {
	if err := CheckURL("--issuer-url", o.URL); err != nil {
		return Issuer{}, false, err
	}
	if o.MaxTokenLifetime != 0 && o.MaxTokenLifetime < MinTokenLifetime {
		return Issuer{}, false, &inputerr.Error{Source: "--max-token-lifetime", Msg: fmt.Sprintf("%v is shorter than %v, the shortest token kube-apiserver issues", o.MaxTokenLifetime, MinTokenLifetime)}
	}
	if old, err := Load(dir); err == nil {
		switch {
		case old.URL != o.URL:
			return Issuer{}, false, &inputerr.Error{Source: "--out " + dir, Msg: fmt.Sprintf("already holds the issuer %s, not %s: give another folder, or rotate its key with leash sts rotate-key --out %s", old.URL, o.URL, dir)}
		case o.MaxTokenLifetime != 0 && time.Duration(old.MaxTokenLifetime) != o.MaxTokenLifetime:
			return Issuer{}, false, &inputerr.Error{Source: "--max-token-lifetime", Msg: fmt.Sprintf("the issuer in %s was made with a max token lifetime of %v; leave the flag out, or make a new issuer in another folder", dir, time.Duration(old.MaxTokenLifetime))}
		}
		return old, true, publish(dir, old)
	} else if !errors.Is(err, ErrNoIssuer) {
		return Issuer{}, false, &inputerr.Error{Source: "--out " + dir, Msg: fmt.Sprintf("%v; fix or remove the folder", err)}
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return Issuer{}, false, &inputerr.Error{Source: "--out " + dir, Msg: "holds files but no " + StateFile + ": give a new or empty folder"}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Issuer{}, false, &inputerr.Error{Source: "--out " + dir, Msg: err.Error()}
	}

	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Issuer{}, false, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+"-*")
	if err != nil {
		return Issuer{}, false, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Issuer{}, false, err
	}
	if err := os.Mkdir(filepath.Join(tmp, KeysDir), 0o700); err != nil {
		return Issuer{}, false, err
	}
	kid, err := addKey(tmp)
	if err != nil {
		return Issuer{}, false, err
	}
	lifetime := o.MaxTokenLifetime
	if lifetime == 0 {
		lifetime = DefaultMaxTokenLifetime
	}
	is = Issuer{URL: o.URL, MaxTokenLifetime: Duration(lifetime), Keys: []Key{{ID: kid, Created: o.Now.UTC().Truncate(time.Second)}}}
	if err := is.save(tmp); err != nil {
		return Issuer{}, false, err
	}
	if err := publish(tmp, is); err != nil {
		return Issuer{}, false, err
	}
	// os.Rename refuses to replace a folder; os.Remove removes only an
	// empty one, so a folder that gained files meanwhile is kept and the
	// rename then fails.
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Issuer{}, false, &inputerr.Error{Source: "--out " + dir, Msg: err.Error()}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return Issuer{}, false, fmt.Errorf("move the issuer into %s: %w", dir, err)
	}
	return is, false, nil
}
