package iamclient

import (
	"errors"
	"fmt"
	"os"

	"leash.dev/leash/credfile"
)

// ErrNoKey means a credentials file has no [default] key pair.
var ErrNoKey = errors.New("no [default] profile with aws_access_key_id and aws_secret_access_key")

// KeyFromFile reads the [default] key pair of a shared-credentials file,
// such as leash local's admin-credentials. A missing file is an error for
// which os.IsNotExist holds.
func KeyFromFile(path string) (AccessKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return AccessKey{}, err
	}
	f, err := credfile.Parse(string(data))
	if err != nil {
		return AccessKey{}, fmt.Errorf("%s: %w", path, err)
	}
	id, secret, token, ok := f.StaticKey("default")
	if !ok {
		return AccessKey{}, fmt.Errorf("%s: %w", path, ErrNoKey)
	}
	return AccessKey{ID: id, Secret: NewSecret(secret), SessionToken: NewSecret(token)}, nil
}

// KeyFromEnv reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
// AWS_SESSION_TOKEN with getenv; ok is false unless both halves are set.
func KeyFromEnv(getenv func(string) string) (key AccessKey, ok bool) {
	id, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		return AccessKey{}, false
	}
	return AccessKey{ID: id, Secret: NewSecret(secret), SessionToken: NewSecret(getenv("AWS_SESSION_TOKEN"))}, true
}
