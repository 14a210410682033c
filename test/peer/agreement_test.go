package peer_test

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/internal/simulate"
)

var peerN = flag.Int("peer.n", 20000, "number of random cases TestGeneratedAgreement compares")

const (
	// generatorSeed fixes the generated cases, so that a failure reproduces.
	generatorSeed = 20250615
	// minAgreement is the share of cases (the peer's errors left out) on
	// which leash and the peer must agree, in percent.
	minAgreement = 100.0
	// maxPeerErrors is the share of cases the peer may reject as invalid, in
	// percent: more means the generator has drifted from what it accepts.
	maxPeerErrors = 1.0
	// maxMinimized bounds how many disagreements are minimized.
	maxMinimized = 300
	// examplesPerCategory is how many minimized cases a category prints.
	examplesPerCategory = 3
)

// TestGeneratedAgreement compares leash and the peer on random cases and
// reports where they disagree, grouped by what the minimized cases have in
// common.
func TestGeneratedAgreement(t *testing.T) {
	n := *peerN
	if n <= 0 {
		t.Fatalf("-peer.n must be positive, got %d", n)
	}
	p := startPeer(t)
	g := newGen(generatorSeed)
	cases := make([][]byte, n)
	for i := range cases {
		cases[i] = g.next()
	}

	start := time.Now()
	leash := make([]string, n)
	for i, c := range cases {
		d, err := leashDecideJSON(c)
		if err != nil {
			t.Fatalf("generated case %d is invalid for leash (a generator bug): %v\n%s", i, err, c)
		}
		leash[i] = d
	}
	leashTime := time.Since(start)

	start = time.Now()
	answers := p.decide(t, cases)
	peerTime := time.Since(start)

	var (
		compared, agreed int
		peerErrors       = map[string]int{}
		nErrors          int
		decisions        = map[string]int{}
		dis              []disagreement
		ignored          = map[string]int{}
	)
	for i, a := range answers {
		if a.Decision == "Error" {
			nErrors++
			peerErrors[errorSummary(a.Errors)]++
			continue
		}
		for _, k := range a.IgnoredContextKeys {
			ignored[k]++
		}
		compared++
		decisions[leash[i]]++
		if a.Decision == leash[i] {
			agreed++
			continue
		}
		dis = append(dis, disagreement{index: i, leash: leash[i], peer: a.Decision, json: cases[i]})
	}
	if compared == 0 {
		t.Fatalf("the peer rejected all %d cases: %v", n, peerErrors)
	}
	agreement := 100 * float64(agreed) / float64(compared)
	errorRate := 100 * float64(nErrors) / float64(n)

	t.Logf("generated %d cases (seed %d); leash decided them in %v, the peer in %v", n, generatorSeed, leashTime.Round(time.Millisecond), peerTime.Round(time.Millisecond))
	t.Logf("leash's decisions on the compared cases: Allowed %d, ExplicitDeny %d, ImplicitDeny %d",
		decisions["Allowed"], decisions["ExplicitDeny"], decisions["ImplicitDeny"])
	t.Logf("the peer rejected %d cases (%.2f%%) as invalid; they are left out of the comparison", nErrors, errorRate)
	for _, e := range sortedCounts(peerErrors) {
		t.Logf("    %5d  %s", e.n, e.key)
	}
	t.Logf("agreement: %d of %d compared cases (%.3f%%), %d disagreements", agreed, compared, agreement, len(dis))

	if len(dis) > 0 {
		start = time.Now()
		report := reportDisagreements(t, p, dis)
		t.Logf("disagreements by category (minimized in %v):\n%s", time.Since(start).Round(time.Millisecond), report)
	}
	if len(ignored) > 0 {
		t.Errorf("the peer ignored context keys that do not apply to the action (key: cases): %v; the generator must use keys that apply to every action", ignored)
	}
	if errorRate > maxPeerErrors {
		t.Errorf("the peer rejected %.2f%% of the generated cases, more than %.1f%%: fix the generator", errorRate, maxPeerErrors)
	}
	if agreement < minAgreement {
		t.Errorf("agreement %.3f%% is below %.1f%%: every disagreement outside KNOWN_DIFFERENCES.md is a bug in leash, the peer or the generator", agreement, minAgreement)
	}
}

// disagreement is a case on which leash and the peer differ.
type disagreement struct {
	index       int
	leash, peer string
	json        []byte
	minimized   bool
}

// leashDecideJSON answers one case given as JSON.
func leashDecideJSON(data []byte) (string, error) {
	cs, err := simulate.ReadCases(data, "generated")
	if err != nil {
		return "", err
	}
	if len(cs) != 1 {
		return "", fmt.Errorf("want one case, got %d", len(cs))
	}
	return leashDecide(&cs[0], "generated", "")
}

// reportDisagreements minimizes disagreements, groups them by category and
// prints each category with a few minimized examples.
func reportDisagreements(t *testing.T, p *peer, dis []disagreement) string {
	t.Helper()
	limit := min(len(dis), maxMinimized)
	minimizeAll(t, p, dis[:limit])
	type category struct {
		key      string
		cases    []*disagreement
		examples []string
	}
	byKey := map[string]*category{}
	var order []*category
	for i := range dis {
		d := &dis[i]
		key := categorize(d)
		c := byKey[key]
		if c == nil {
			c = &category{key: key}
			byKey[key] = c
			order = append(order, c)
		}
		c.cases = append(c.cases, d)
		if d.minimized && len(c.examples) < examplesPerCategory {
			c.examples = append(c.examples, string(d.json))
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return len(order[i].cases) > len(order[j].cases) })
	var b strings.Builder
	for _, c := range order {
		fmt.Fprintf(&b, "  %5d  %s\n", len(c.cases), c.key)
		for _, e := range c.examples {
			fmt.Fprintf(&b, "         %s\n", e)
		}
	}
	if limit < len(dis) {
		fmt.Fprintf(&b, "  (%d disagreements beyond the first %d were not minimized; their categories describe the whole case)\n", len(dis)-limit, limit)
	}
	return b.String()
}

type count struct {
	key string
	n   int
}

func sortedCounts(m map[string]int) []count {
	out := make([]count, 0, len(m))
	for k, n := range m {
		out = append(out, count{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].key < out[j].key
	})
	return out
}
