package peer_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/internal/reference"
)

// knownDifferencesFile lists, one "## `case name`" section each, the
// hand-written cases where the peer's answer differs from AWS's documented one.
const knownDifferencesFile = "KNOWN_DIFFERENCES.md"

// referenceDir holds the engine's reference cases; policy's TestReference
// checks leash against them without node.
var referenceDir = filepath.Join("..", "..", "policy", "testdata", "reference")

// TestHandWrittenCases asks the peer the reference cases (the hand-written
// requests with the decisions AWS documents, in policy/testdata/reference)
// and records where it departs from them. Whether leash gives the documented
// answers is policy's TestReference, which needs no node.
func TestHandWrittenCases(t *testing.T) {
	cases, err := reference.Load(referenceDir)
	if err != nil {
		t.Fatal(err)
	}
	known := loadKnownDifferences(t)
	p := startPeer(t)
	raws := make([][]byte, len(cases))
	for i := range cases {
		raws[i] = cases[i].JSON
	}
	answers := p.decide(t, raws)

	peerRight := 0
	var ignored []string
	for i := range cases {
		c := &cases[i]
		ans := answers[i]
		topic := strings.TrimSuffix(filepath.Base(c.File), ".json")
		if len(ans.IgnoredContextKeys) > 0 {
			ignored = append(ignored, fmt.Sprintf("%s: %s", c.Name, strings.Join(ans.IgnoredContextKeys, ", ")))
		}
		t.Run(topic+"/"+c.Name, func(t *testing.T) {
			_, listed := known[c.Name]
			switch {
			case ans.Decision == c.Expect:
				peerRight++
				if listed {
					t.Errorf("%s lists this case, but the peer now answers %s as AWS documents: remove its section", knownDifferencesFile, ans.Decision)
				}
			case !listed:
				t.Errorf("the peer answers %s (errors: %s); AWS documents %s (%s). If the case is right, add a section \"## `%s`\" to %s explaining the difference",
					ans.Decision, orNone(ans.Errors), c.Expect, c.File, c.Name, knownDifferencesFile)
			}
		})
	}
	names := make(map[string]bool, len(cases))
	for _, c := range cases {
		names[c.Name] = true
	}
	for name := range known {
		if !names[name] {
			t.Errorf("%s has a section for %q, which is no reference case", knownDifferencesFile, name)
		}
	}
	if len(ignored) > 0 {
		// The peer drops keys its data set does not list for the action; its
		// answer then says little about the conditions on those keys.
		t.Logf("the peer ignored context keys in %d cases:\n    %s", len(ignored), strings.Join(ignored, "\n    "))
	}
	t.Logf("%d reference cases: the peer gives AWS's documented answer in %d (%d known differences)",
		len(cases), peerRight, len(known))
}

// loadKnownDifferences returns the case names of the "## `name`" headings of
// KNOWN_DIFFERENCES.md.
func loadKnownDifferences(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open(knownDifferencesFile)
	if err != nil {
		t.Fatalf("%v (it lists the hand-written cases where the peer differs from AWS)", err)
	}
	defer func() { _ = f.Close() }() // read-only: nothing to flush
	known := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "## ") {
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(line, "## "))
		name = strings.TrimSuffix(strings.TrimPrefix(name, "`"), "`")
		if known[name] {
			t.Errorf("%s lists %q twice", knownDifferencesFile, name)
		}
		known[name] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return known
}

func orNone(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "none"
	}
	return string(raw)
}
