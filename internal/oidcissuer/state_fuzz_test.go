package oidcissuer

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzLoad reads arbitrary state files: Load either refuses one or returns
// a state with exactly one signing key that saves and reads back the same.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"issuer":"https://oidc.example.com","maxTokenLifetime":"24h0m0s","keys":[{"kid":"a","created":"2026-01-02T03:04:05Z"}]}`))
	f.Add([]byte(`{"issuer":"https://oidc.example.com","maxTokenLifetime":"1h0m0s","keys":[{"kid":"a","created":"2026-01-02T03:04:05Z","retiredAt":"2026-01-02T04:04:05Z"},{"kid":"b","created":"2026-01-02T04:04:05Z"}]}`))
	f.Add([]byte(`{"issuer":"http://x","keys":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StateFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		is, err := Load(dir)
		if err != nil {
			return
		}
		if is.SigningKey().ID == "" {
			t.Fatalf("loaded a state without a signing key: %+v", is)
		}
		if err := is.save(dir); err != nil {
			t.Fatal(err)
		}
		back, err := Load(dir)
		if err != nil || !reflect.DeepEqual(stateOf(back), stateOf(is)) {
			t.Fatalf("saved %+v, read back %+v, %v", is, back, err)
		}
	})
}

// stateOf compares states by their JSON-visible values (times by instant).
func stateOf(is Issuer) []string {
	out := []string{is.URL, is.MaxTokenLifetime.String()}
	for _, k := range is.Keys {
		r := ""
		if k.RetiredAt != nil {
			r = k.RetiredAt.UTC().String()
		}
		out = append(out, k.ID, k.Created.UTC().String(), r)
	}
	return out
}
