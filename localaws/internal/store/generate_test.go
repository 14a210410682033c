package store

import (
	"regexp"
	"testing"
)

func TestGeneratedIdentifiersHaveIAMsFormats(t *testing.T) {
	tests := []struct {
		name     string
		generate func() string
		format   string
	}{
		{"user ID", func() string { return newUniqueID(prefixUserID) }, `^AIDA[A-Z0-9]{17}$`},
		{"role ID", func() string { return newUniqueID(prefixRoleID) }, `^AROA[A-Z0-9]{17}$`},
		{"policy ID", func() string { return newUniqueID(prefixPolicyID) }, `^ANPA[A-Z0-9]{17}$`},
		{"long-term access key ID", func() string { return newAccessKeyID(prefixAccessKey) }, `^AKIA[A-Z0-9]{16}$`},
		{"session access key ID", func() string { return newAccessKeyID(prefixSessionKey) }, `^ASIA[A-Z0-9]{16}$`},
		{"secret access key", func() string { return newSecretAccessKey().Reveal() }, `^[A-Za-z0-9+/]{40}$`},
		{"session token", func() string { return newSessionToken().Reveal() }, `^[A-Za-z0-9+/]{256}$`},
		{"account ID", newAccountID, `^[0-9]{12}$`},
	}
	const draws = 20000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re := regexp.MustCompile(tt.format)
			seen := make(map[string]bool, draws)
			for range draws {
				id := tt.generate()
				if !re.MatchString(id) {
					t.Fatalf("%q does not match %s", id, tt.format)
				}
				if seen[id] {
					t.Fatalf("%q drawn twice in %d draws", id, draws)
				}
				seen[id] = true
			}
		})
	}
}

// TestGeneratedIDsUseEveryCharacter guards against a biased or stuck
// generator: over many draws every character of the alphabet appears in
// every position, and no character is far from its expected share.
func TestGeneratedIDsUseEveryCharacter(t *testing.T) {
	const draws = 32 * 400
	counts := map[byte]int{}
	positions := make([]map[byte]bool, 16)
	for i := range positions {
		positions[i] = map[byte]bool{}
	}
	for range draws {
		id := newAccessKeyID(prefixAccessKey)[4:]
		for i := range len(id) {
			counts[id[i]]++
			positions[i][id[i]] = true
		}
	}
	expected := draws * 16 / 32
	for i := range len(idAlphabet) {
		if n := counts[idAlphabet[i]]; n < expected*8/10 || n > expected*12/10 {
			t.Errorf("%c drawn %d times, expected about %d", idAlphabet[i], n, expected)
		}
	}
	for i, p := range positions {
		if len(p) != 32 {
			t.Errorf("position %d used %d characters, want 32", i, len(p))
		}
	}
}
