package oidcissuer

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// kidsOf is the key IDs the published key set holds.
func kidsOf(t *testing.T, dir string) []string {
	t.Helper()
	var set JWKS
	readJSON(t, JWKSFile(dir), &set)
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k.Kid)
	}
	return kids
}

func TestCreateLaysOutTheIssuerAsServed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	const url = "https://oidc.example.com/cluster-a"
	is, existed, err := Create(dir, CreateOptions{URL: url, Now: t0})
	if err != nil || existed {
		t.Fatalf("Create = %v, %v", existed, err)
	}
	kid := is.SigningKey().ID

	// The kid is kube-apiserver's: SHA-256 of the private key's public half.
	data, err := os.ReadFile(PrivateKeyFile(dir, kid))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := KeyID(&key.PublicKey); got != kid {
		t.Errorf("kid %s, the key's is %s", kid, got)
	}
	info, err := os.Stat(PrivateKeyFile(dir, kid))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v (%v), want 0600", info.Mode().Perm(), err)
	}
	if got := kidsOf(t, dir); !slices.Equal(got, []string{kid}) {
		t.Errorf("key set %v, want [%s]", got, kid)
	}
	var set JWKS
	readJSON(t, JWKSFile(dir), &set)
	if want := jwkOf(kid, &key.PublicKey); set.Keys[0] != want {
		t.Errorf("published key %+v, want %+v", set.Keys[0], want)
	}
	var doc Discovery
	readJSON(t, DiscoveryFile(dir), &doc)
	if doc.Issuer != url || doc.JWKSURI != url+"/keys.json" {
		t.Errorf("discovery issuer %q jwks_uri %q", doc.Issuer, doc.JWKSURI)
	}
	if is.MaxTokenLifetime != Duration(DefaultMaxTokenLifetime) {
		t.Errorf("max token lifetime %v, want the default", time.Duration(is.MaxTokenLifetime))
	}
	back, err := Load(dir)
	if err != nil || back.URL != url || len(back.Keys) != 1 || !back.Keys[0].Created.Equal(t0) {
		t.Errorf("Load = %+v, %v", back, err)
	}
	// Nothing but the issuer is left beside the folder.
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("parent holds %d entries, want only the issuer", len(entries))
	}
}

func TestCreateRefuses(t *testing.T) {
	cases := []struct {
		name, url string
		lifetime  time.Duration
		prepare   func(t *testing.T, dir string)
		errHas    string
	}{
		{name: "http issuer", url: "http://oidc.example.com", errHas: "https"},
		{name: "issuer with a query", url: "https://oidc.example.com/x?a=b", errHas: "query"},
		{name: "issuer with a fragment", url: "https://oidc.example.com/x#f", errHas: "fragment"},
		{name: "issuer with a trailing slash", url: "https://oidc.example.com/", errHas: "trailing slash"},
		{name: "lifetime under ten minutes", url: "https://oidc.example.com", lifetime: time.Minute, errHas: "--max-token-lifetime"},
		{name: "folder holding other files", url: "https://oidc.example.com", errHas: "holds files", prepare: func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, "notes"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "folder holding another issuer", url: "https://oidc.example.com/b", errHas: "already holds the issuer https://oidc.example.com/a", prepare: func(t *testing.T, dir string) {
			if _, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com/a", Now: t0}); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "same issuer with another lifetime", url: "https://oidc.example.com/a", lifetime: time.Hour, errHas: "max token lifetime of 24h", prepare: func(t *testing.T, dir string) {
			if _, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com/a", Now: t0}); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "issuer")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if c.prepare != nil {
				c.prepare(t, dir)
			}
			before := snapshot(t, dir)
			_, _, err := Create(dir, CreateOptions{URL: c.url, MaxTokenLifetime: c.lifetime, Now: t0})
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Fatalf("Create = %v, want an error naming %q", err, c.errHas)
			}
			if after := snapshot(t, dir); !equalSnapshots(before, after) {
				t.Errorf("the refused Create changed the folder: %v -> %v", keys(before), keys(after))
			}
			if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
				t.Errorf("a temporary folder was left beside the issuer")
			}
		})
	}
}

func TestCreateAgainForTheSameIssuerChangesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	first, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	again, existed, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", Now: t0.Add(time.Hour)})
	if err != nil || !existed {
		t.Fatalf("Create again = %v, %v; want existed", existed, err)
	}
	if again.SigningKey().ID != first.SigningKey().ID || !equalSnapshots(before, snapshot(t, dir)) {
		t.Errorf("Create again changed the issuer")
	}
}

func TestRotatePublishesBothKeysAndDropsTheOldPrivateKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	first, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", Now: t0})
	if err != nil {
		t.Fatal(err)
	}
	old := first.SigningKey().ID
	at := t0.Add(2 * time.Hour)
	is, retired, err := Rotate(dir, at)
	if err != nil {
		t.Fatal(err)
	}
	next := is.SigningKey().ID
	if next == old || retired.ID != old || retired.RetiredAt == nil || !retired.RetiredAt.Equal(at) {
		t.Fatalf("rotated to %s, retired %+v", next, retired)
	}
	if got := kidsOf(t, dir); !slices.Equal(got, []string{old, next}) {
		t.Errorf("key set %v, want [%s %s]", got, old, next)
	}
	if _, err := os.Stat(PrivateKeyFile(dir, old)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old private key is still there (%v)", err)
	}
	for _, f := range []string{PrivateKeyFile(dir, next), PublicKeyFile(dir, old), PublicKeyFile(dir, next)} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	back, err := Load(dir)
	if err != nil || back.SigningKey().ID != next || !back.PruneAt(back.Keys[0]).Equal(at.Add(24*time.Hour)) {
		t.Errorf("Load after rotate = %+v, %v", back, err)
	}
}

func TestRotateFinishesARunCutShort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	if _, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", Now: t0}); err != nil {
		t.Fatal(err)
	}
	// A run that wrote its key and stopped before the state file.
	stray, err := addKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	is, _, err := Rotate(dir, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(kidsOf(t, dir), stray) {
		t.Errorf("the key of the run cut short is published")
	}
	for _, f := range []string{PrivateKeyFile(dir, stray), PublicKeyFile(dir, stray)} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (%v)", f, err)
		}
	}
	if len(is.Keys) != 2 {
		t.Errorf("%d keys, want 2", len(is.Keys))
	}
}

func TestPruneWaitsForTheMaxTokenLifetime(t *testing.T) {
	retire := t0.Add(time.Hour)
	lifetime := 2 * time.Hour
	cases := []struct {
		name       string
		now        time.Time
		force      bool
		wantPruned bool
	}{
		{name: "one second early is refused", now: retire.Add(lifetime - time.Second)},
		{name: "right after rotating is refused", now: retire},
		{name: "at retirement plus lifetime prunes", now: retire.Add(lifetime), wantPruned: true},
		{name: "force prunes early", now: retire, force: true, wantPruned: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "issuer")
			if _, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", MaxTokenLifetime: lifetime, Now: t0}); err != nil {
				t.Fatal(err)
			}
			is, old, err := Rotate(dir, retire)
			if err != nil {
				t.Fatal(err)
			}
			_, pruned, err := Prune(dir, c.now, c.force)
			var early *TooEarlyError
			if c.wantPruned {
				if err != nil || len(pruned) != 1 || pruned[0].ID != old.ID {
					t.Fatalf("Prune = %v, %v; want %s pruned", pruned, err, old.ID)
				}
				if got := kidsOf(t, dir); !slices.Equal(got, []string{is.SigningKey().ID}) {
					t.Errorf("key set %v after prune", got)
				}
				if _, err := os.Stat(PublicKeyFile(dir, old.ID)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("pruned public key still there")
				}
				return
			}
			if !errors.As(err, &early) || len(pruned) != 0 {
				t.Fatalf("Prune = %v, %v; want TooEarlyError", pruned, err)
			}
			if want := retire.Add(lifetime).Format(time.RFC3339); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
			if got := kidsOf(t, dir); len(got) != 2 {
				t.Errorf("key set %v, want both keys kept", got)
			}
		})
	}
}

func TestAPIServerFlagsNameEveryPublishedKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	if _, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", MaxTokenLifetime: time.Hour, Now: t0}); err != nil {
		t.Fatal(err)
	}
	is, old, err := Rotate(dir, t0)
	if err != nil {
		t.Fatal(err)
	}
	got := APIServerFlags(dir, is)
	want := []string{
		"--service-account-issuer=https://oidc.example.com",
		"--service-account-signing-key-file=" + PrivateKeyFile(dir, is.SigningKey().ID),
		"--service-account-key-file=" + PublicKeyFile(dir, old.ID),
		"--service-account-key-file=" + PublicKeyFile(dir, is.SigningKey().ID),
		"--api-audiences=https://oidc.example.com",
		"--service-account-max-token-expiration=1h0m0s",
		"--service-account-extend-token-expiration=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("flags\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func equalSnapshots(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestRetirementIsRoundedUpToTheSecond(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "issuer")
	if _, _, err := Create(dir, CreateOptions{URL: "https://oidc.example.com", MaxTokenLifetime: time.Hour, Now: t0}); err != nil {
		t.Fatal(err)
	}
	at := t0.Add(500 * time.Millisecond)
	is, retired, err := Rotate(dir, at)
	if err != nil {
		t.Fatal(err)
	}
	if !retired.RetiredAt.Equal(t0.Add(time.Second)) || is.PruneAt(retired).Before(at.Add(time.Hour)) {
		t.Errorf("retired at %v, prune at %v; want the second after %v, and no earlier than an hour after it", retired.RetiredAt, is.PruneAt(retired), at)
	}
	if _, _, err := Prune(dir, at.Add(time.Hour), false); err == nil {
		t.Errorf("pruned at the rotation time plus the lifetime, before the recorded second")
	}
}

func TestLoadRefusesAStateLeashWouldNotWrite(t *testing.T) {
	const key = `{"kid":"a","created":"2026-01-02T03:04:05Z"}`
	const retired = `{"kid":"r","created":"2026-01-02T03:04:05Z","retiredAt":"2026-01-02T04:04:05Z"}`
	cases := []struct{ name, state, errHas string }{
		{name: "two signing keys", state: `{"issuer":"https://o.example","maxTokenLifetime":"1h0m0s","keys":[` + key + `,{"kid":"b","created":"2026-01-02T03:04:05Z"}]}`, errHas: "2 signing keys"},
		{name: "no signing key", state: `{"issuer":"https://o.example","maxTokenLifetime":"1h0m0s","keys":[` + retired + `]}`, errHas: "0 signing keys"},
		{name: "a kid that is a path", state: `{"issuer":"https://o.example","maxTokenLifetime":"1h0m0s","keys":[{"kid":"../x","created":"2026-01-02T03:04:05Z"}]}`, errHas: "not base64url"},
		{name: "a repeated kid", state: `{"issuer":"https://o.example","maxTokenLifetime":"1h0m0s","keys":[` + key + `,` + key + `]}`, errHas: "repeated"},
		{name: "an http issuer", state: `{"issuer":"http://o.example","maxTokenLifetime":"1h0m0s","keys":[` + key + `]}`, errHas: "https"},
		{name: "no lifetime", state: `{"issuer":"https://o.example","keys":[` + key + `]}`, errHas: "maxTokenLifetime"},
		{name: "not JSON", state: `issuer: x`, errHas: StateFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(c.state), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("Load = %v, want an error naming %q", err, c.errHas)
			}
		})
	}
	if _, err := Load(t.TempDir()); !errors.Is(err, ErrNoIssuer) {
		t.Errorf("Load of an empty folder = %v, want ErrNoIssuer", err)
	}
}
