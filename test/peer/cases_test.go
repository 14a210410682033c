package peer_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/simulate"
)

// knownDifferencesFile lists, one "## `case name`" section each, the
// hand-written cases where the peer's answer differs from AWS's documented one.
const knownDifferencesFile = "KNOWN_DIFFERENCES.md"

// handCase is one hand-written case: a request, and the decision AWS's
// documentation gives for it.
type handCase struct {
	Name   string          `json:"name"`
	Expect string          `json:"expect"`
	Case   json.RawMessage `json:"case"`

	file string
	req  simulate.Case
}

// TestHandWrittenCases checks leash against AWS's documented answers, and
// records where the peer departs from them.
func TestHandWrittenCases(t *testing.T) {
	cases := loadHandCases(t)
	known := loadKnownDifferences(t)
	p := startPeer(t)
	raws := make([][]byte, len(cases))
	for i := range cases {
		raws[i] = cases[i].Case
	}
	answers := p.decide(t, raws)

	leashRight, peerRight := 0, 0
	var ignored []string
	for i := range cases {
		hc := &cases[i]
		ans := answers[i]
		topic := strings.TrimSuffix(filepath.Base(hc.file), ".json")
		if len(ans.IgnoredContextKeys) > 0 {
			ignored = append(ignored, fmt.Sprintf("%s: %s", hc.Name, strings.Join(ans.IgnoredContextKeys, ", ")))
		}
		t.Run(topic+"/"+hc.Name, func(t *testing.T) {
			got, err := leashDecide(&hc.req, hc.file, hc.Name)
			switch {
			case err != nil:
				t.Errorf("leash rejects the case: %v", err)
			case got != hc.Expect:
				var compact bytes.Buffer
				_ = json.Compact(&compact, hc.Case)
				t.Errorf("leash answers %s; AWS documents %s\ncase: %s", got, hc.Expect, compact.String())
			default:
				leashRight++
			}
			_, listed := known[hc.Name]
			switch {
			case ans.Decision == hc.Expect:
				peerRight++
				if listed {
					t.Errorf("%s lists this case, but the peer now answers %s as AWS documents: remove its section", knownDifferencesFile, ans.Decision)
				}
			case !listed:
				t.Errorf("the peer answers %s (errors: %s); AWS documents %s. If the case is right, add a section \"## `%s`\" to %s explaining the difference",
					ans.Decision, orNone(ans.Errors), hc.Expect, hc.Name, knownDifferencesFile)
			}
		})
	}
	names := make(map[string]bool, len(cases))
	for _, hc := range cases {
		names[hc.Name] = true
	}
	for name := range known {
		if !names[name] {
			t.Errorf("%s has a section for %q, which is no hand-written case", knownDifferencesFile, name)
		}
	}
	if len(ignored) > 0 {
		// The peer drops keys its data set does not list for the action; its
		// answer then says little about the conditions on those keys.
		t.Logf("the peer ignored context keys in %d cases:\n    %s", len(ignored), strings.Join(ignored, "\n    "))
	}
	t.Logf("%d hand-written cases: leash gives AWS's documented answer in %d, the peer in %d (%d known differences)",
		len(cases), leashRight, peerRight, len(known))
}

// loadHandCases reads every testdata/cases/*.json file. Names must be unique
// across files, since KNOWN_DIFFERENCES.md refers to cases by name.
func loadHandCases(t *testing.T) []handCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "cases", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hand-written cases in testdata/cases (err %v)", err)
	}
	var all []handCase
	where := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []handCase
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i := range cases {
			hc := &cases[i]
			hc.file = f
			switch {
			case hc.Name == "":
				t.Fatalf("%s: case [%d] has no name", f, i)
			case where[hc.Name] != "":
				t.Fatalf("%s: case %q is also in %s; names must be unique", f, hc.Name, where[hc.Name])
			case hc.Expect != "Allowed" && hc.Expect != "ExplicitDeny" && hc.Expect != "ImplicitDeny":
				t.Fatalf("%s: case %q: expect must be Allowed, ExplicitDeny or ImplicitDeny, got %q", f, hc.Name, hc.Expect)
			}
			where[hc.Name] = f
			reqs, err := simulate.ReadCases(hc.Case, f)
			if err != nil {
				t.Fatalf("case %q: %v", hc.Name, err)
			}
			if len(reqs) != 1 {
				t.Fatalf("%s: case %q: \"case\" must be one request object", f, hc.Name)
			}
			hc.req = reqs[0]
		}
		all = append(all, cases...)
	}
	return all
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
