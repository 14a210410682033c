package iamclient

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestKeyFromFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	key, err := KeyFromFile(write("ok", "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"))
	if err != nil || key.ID != "AKIAIOSFODNN7EXAMPLE" || key.Secret.Reveal() != "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" {
		t.Errorf("a [default] key pair: %q, %v", key.ID, err)
	}
	if _, err := KeyFromFile(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want a not-exist error", err)
	}
	if _, err := KeyFromFile(write("keyless", "[default]\nregion = eu-north-1\n")); !errors.Is(err, ErrNoKey) {
		t.Errorf("a keyless profile: %v, want ErrNoKey", err)
	}
	if _, err := KeyFromFile(write("bad", "aws_access_key_id = x\n")); err == nil {
		t.Error("a setting before any profile parses")
	}
}

func TestKeyFromEnvNeedsBothHalves(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE"}
	if _, ok := KeyFromEnv(func(k string) string { return env[k] }); ok {
		t.Error("half a pair is a key")
	}
	env["AWS_SECRET_ACCESS_KEY"], env["AWS_SESSION_TOKEN"] = "secret", "token"
	key, ok := KeyFromEnv(func(k string) string { return env[k] })
	if !ok || key.ID != "AKIAIOSFODNN7EXAMPLE" || key.SessionToken.Reveal() != "token" {
		t.Errorf("a full pair with a token: %q %v", key.ID, ok)
	}
}
