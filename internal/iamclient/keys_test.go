package iamclient

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestKeyFromFile pins the one reading of a credentials file that leash
// local, its tests, the load bench and the CLI share: only the [default]
// profile counts, and only with both halves of the pair.
func TestKeyFromFile(t *testing.T) {
	const id, secret = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	cases := []struct {
		name, text string
		wantID     string
		wantErr    error // nil: any error when wantID is empty
	}{
		{"a [default] key pair", "[default]\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret + "\n", id, nil},
		{"setting names are case-insensitive, as the SDKs read them", "[default]\nAWS_ACCESS_KEY_ID=" + id + "\nAws_Secret_Access_Key=" + secret + "\n", id, nil},
		{"comments and blank lines are skipped", "# admin\n\n[default]\n; key\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret + "\n", id, nil},
		{"the default profile wins over one written before it", "[ci]\naws_access_key_id = AKIAI44QH8DHBEXAMPLE\naws_secret_access_key = x\n[default]\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret + "\n", id, nil},
		{"a key in another profile only is no key", "[ci]\naws_access_key_id = " + id + "\naws_secret_access_key = " + secret + "\n", "", ErrNoKey},
		{"an ID without its secret is no key", "[default]\naws_access_key_id = " + id + "\n", "", ErrNoKey},
		{"a keyless profile is no key", "[default]\nregion = eu-north-1\n", "", ErrNoKey},
		{"a setting before any profile is malformed", "aws_access_key_id = " + id + "\n", "", nil},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprint(i))
			if err := os.WriteFile(p, []byte(c.text), 0o600); err != nil {
				t.Fatal(err)
			}
			key, err := KeyFromFile(p)
			switch {
			case c.wantID != "":
				if err != nil || key.ID != c.wantID || key.Secret.Reveal() != secret {
					t.Errorf("got %q, %v; want %q with its secret", key.ID, err, c.wantID)
				}
			case err == nil:
				t.Errorf("got key %q, want an error", key.ID)
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Errorf("got %v, want %v", err, c.wantErr)
			}
		})
	}
	if _, err := KeyFromFile(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want a not-exist error", err)
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
