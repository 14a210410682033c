package oidcissuer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"leash.dev/leash/internal/atomicfile"
)

// The issuer folder's layout, relative to the folder.
const (
	// KeysDir holds KID.key (the signing key only, 0600) and KID.pub (every
	// published key), the files kube-apiserver's flags name.
	KeysDir = "keys"
	// PublicDir is served as-is at the issuer URL.
	PublicDir = "public"
)

// PrivateKeyFile is the path of a key's private half.
func PrivateKeyFile(dir, kid string) string { return filepath.Join(dir, KeysDir, kid+".key") }

// PublicKeyFile is the path of a key's public half, PEM.
func PublicKeyFile(dir, kid string) string { return filepath.Join(dir, KeysDir, kid+".pub") }

// JWKSFile is the path of the published key set.
func JWKSFile(dir string) string { return filepath.Join(dir, PublicDir, JWKSPath) }

// DiscoveryFile is the path of the published discovery document.
func DiscoveryFile(dir string) string { return filepath.Join(dir, PublicDir, DiscoveryPath) }

// publish makes the folder's files agree with is, which was saved: it
// writes the key set and discovery document from the public keys, and
// removes every private key but the signing key's and every public key is
// no longer lists. Each change calls it after saving the state, so a run cut
// short is finished by the next one.
func publish(dir string, is Issuer) error {
	signing := is.SigningKey()
	if _, err := os.Stat(PrivateKeyFile(dir, signing.ID)); err != nil {
		return fmt.Errorf("the signing key %s is missing (%v); the issuer cannot sign: restore the file from a backup, or make a new issuer", PrivateKeyFile(dir, signing.ID), errors.Unwrap(err))
	}
	set := JWKS{Keys: []JWK{}}
	keep := map[string]bool{signing.ID + ".key": true}
	for _, k := range is.Keys {
		data, err := os.ReadFile(PublicKeyFile(dir, k.ID))
		if err != nil {
			return fmt.Errorf("public key of %s: %w", k.ID, err)
		}
		pub, err := parsePublicPEM(data)
		if err != nil {
			return fmt.Errorf("%s: %v", PublicKeyFile(dir, k.ID), err)
		}
		if kid, err := KeyID(pub); err != nil || kid != k.ID {
			return fmt.Errorf("%s holds the key with ID %s, not %s; restore the file", PublicKeyFile(dir, k.ID), kid, k.ID)
		}
		set.Keys = append(set.Keys, jwkOf(k.ID, pub))
		keep[k.ID+".pub"] = true
	}
	if err := os.MkdirAll(filepath.Dir(DiscoveryFile(dir)), 0o755); err != nil {
		return err
	}
	if err := writeJSON(JWKSFile(dir), set); err != nil {
		return err
	}
	if err := writeJSON(DiscoveryFile(dir), discoveryOf(is.URL)); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(dir, KeysDir))
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if keep[name] || !(strings.HasSuffix(name, ".key") || strings.HasSuffix(name, ".pub") || strings.HasPrefix(name, ".")) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, KeysDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

// addKey writes a new key's private and public files.
func addKey(dir string) (string, error) {
	key, kid, err := newKey()
	if err != nil {
		return "", err
	}
	pub, err := publicPEM(&key.PublicKey)
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(PrivateKeyFile(dir, kid), privatePEM(key), 0o600); err != nil {
		return "", err
	}
	if err := atomicfile.Write(PublicKeyFile(dir, kid), pub, 0o644); err != nil {
		return "", err
	}
	return kid, nil
}
