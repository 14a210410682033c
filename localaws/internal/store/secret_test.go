package store_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/internal/store"
)

// TestSecretsNeverPrint pins that no way of printing, logging or encoding a
// record shows its secret access key or session token.
func TestSecretsNeverPrint(t *testing.T) {
	s, _ := openStore(t)
	var key store.AccessKey
	var sess store.Session
	var cred store.Credential
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		if _, err := tx.CreateRole(store.Role{Name: "r", AssumeRolePolicyDocument: trust}); err != nil {
			return err
		}
		var err error
		if key, err = tx.CreateAccessKey("alice"); err != nil {
			return err
		}
		if sess, err = tx.CreateSession(store.Session{RoleName: "r", RoleSessionName: "s1"}, time.Hour); err != nil {
			return err
		}
		cred, err = tx.LookupCredential(sess.AccessKeyID)
		return err
	})
	secrets := []string{key.SecretAccessKey.Reveal(), sess.SecretAccessKey.Reveal(), sess.SessionToken.Reveal()}
	for _, secret := range secrets {
		if len(secret) < 40 {
			t.Fatalf("a secret is only %d characters", len(secret))
		}
	}

	var outputs []string
	records := map[string]any{
		"AccessKey": key, "*AccessKey": &key, "Session": sess, "*Session": &sess, "Credential": cred,
		"Credential.Session": *cred.Session, "[]AccessKey": []store.AccessKey{key}, "map": map[string]store.Session{"s": sess},
		"Secret": key.SecretAccessKey, "anonymous struct": struct{ K store.AccessKey }{key},
	}
	for name, r := range records {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"} {
			outputs = append(outputs, name+" "+verb+": "+fmt.Sprintf(verb, r))
		}
		outputs = append(outputs, fmt.Sprint(r), fmt.Sprintln(r), fmt.Errorf("create key: %v", r).Error())
		if b, err := json.Marshal(r); err == nil {
			outputs = append(outputs, name+" json: "+string(b))
		}
		if b, err := xml.Marshal(r); err == nil {
			outputs = append(outputs, name+" xml: "+string(b))
		}
		var buf bytes.Buffer
		slog.New(slog.NewJSONHandler(&buf, nil)).Info("record", "r", r)
		slog.New(slog.NewTextHandler(&buf, nil)).Info("record", "r", r)
		outputs = append(outputs, name+" slog: "+buf.String())
	}
	for _, out := range outputs {
		for _, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Errorf("a secret shows in %s", out)
			}
		}
	}
	if got := fmt.Sprintf("%+v", key); !strings.Contains(got, "SecretAccessKey:[REDACTED]") || !strings.Contains(got, key.AccessKeyID) {
		t.Errorf("%%+v of a key = %s, want the ID and the secret redacted", got)
	}
	if got := fmt.Sprintf("%+v", store.AccessKey{}); !strings.Contains(got, "SecretAccessKey: ") {
		t.Errorf("%%+v of a key without secret = %s, want it empty", got)
	}

	// Refusals of a credential name no secret, whatever was presented.
	for _, presented := range []string{"", "wrong", sess.SessionToken.Reveal()} {
		for _, at := range []time.Time{sess.Issued, sess.Expiration} {
			err := cred.Verify(at, presented+"x")
			for _, secret := range secrets {
				if err != nil && strings.Contains(err.Error(), secret) {
					t.Errorf("refusal %q shows a secret", err)
				}
			}
		}
	}
	var e *store.Error
	if err := cred.Verify(sess.Expiration, sess.SessionToken.Reveal()); !errors.As(err, &e) || strings.Contains(fmt.Sprintf("%+v", e), sess.SessionToken.Reveal()) {
		t.Errorf("ExpiredToken refusal = %+v", err)
	}
}

func TestSecretComparesInConstantTimeAndRevealsOnRequest(t *testing.T) {
	s, _ := openStore(t)
	var k store.AccessKey
	update(t, s, func(tx *store.Tx) error {
		if _, err := tx.CreateUser(store.User{Name: "alice"}); err != nil {
			return err
		}
		var err error
		k, err = tx.CreateAccessKey("alice")
		return err
	})
	secret := k.SecretAccessKey
	tests := []struct {
		name      string
		presented string
		want      bool
	}{
		{"the same value is equal", secret.Reveal(), true},
		{"a prefix is not", secret.Reveal()[:39], false},
		{"a longer value is not", secret.Reveal() + "A", false},
		{"empty is not", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := secret.Equal(tt.presented); got != tt.want {
				t.Errorf("Equal = %v, want %v", got, tt.want)
			}
		})
	}
	var zero store.Secret
	if !zero.IsZero() || secret.IsZero() || zero.String() != "" || secret.String() != "[REDACTED]" {
		t.Error("IsZero or String is wrong")
	}
}
