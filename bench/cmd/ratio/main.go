// Command ratio compares leash's Decide with the peer engine
// @cloud-copilot/iam-simulate on one corpus: `ratio corpus` writes the corpus,
// bench/peer_bench.js times the peer on it, and `ratio report` times leash,
// checks that both engines decide alike and prints the table. It is run by
// bench/peer-ratio.sh.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ratio:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: ratio corpus [-docs DIR] | ratio report -corpus FILE -peer FILE [-rounds N] [-round-time D]")
	}
	switch args[0] {
	case "corpus":
		fs := flag.NewFlagSet("corpus", flag.ContinueOnError)
		docs := fs.String("docs", "policy/testdata/bench", "directory of the benchmark policies")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		c, err := buildCorpus(*docs)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	case "report":
		fs := flag.NewFlagSet("report", flag.ContinueOnError)
		corpusFile := fs.String("corpus", "", "corpus written by `ratio corpus`")
		peerFile := fs.String("peer", "", "peer timings written by bench/peer_bench.js")
		rounds := fs.Int("rounds", 7, "timed rounds per case; the median is reported")
		roundTime := fs.Duration("round-time", 300*time.Millisecond, "minimum length of a round")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *corpusFile == "" || *peerFile == "" {
			return errors.New("report needs -corpus and -peer")
		}
		var c Corpus
		if err := readJSON(*corpusFile, &c); err != nil {
			return err
		}
		var p PeerResults
		if err := readJSON(*peerFile, &p); err != nil {
			return err
		}
		return report(stdout, &c, &p, *rounds, *roundTime)
	}
	return fmt.Errorf("unknown command %q; use corpus or report", args[0])
}

func readJSON(file string, v any) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// PeerResults is what bench/peer_bench.js writes.
type PeerResults struct {
	Package string     `json:"package"`
	Version string     `json:"version"`
	Node    string     `json:"node"`
	Cases   []PeerCase `json:"cases"`
}

// PeerCase is the peer's median time per request in each mode, and its
// decisions.
type PeerCase struct {
	Name          string        `json:"name"`
	UnsafeNsPerOp float64       `json:"unsafeNsPerOp"`
	StrictNsPerOp float64       `json:"strictNsPerOp"`
	Requests      []PeerRequest `json:"requests"`
}

// PeerRequest is the peer's answer to one request, in both modes.
type PeerRequest struct {
	Unsafe             string   `json:"unsafe"`
	Strict             string   `json:"strict"`
	IgnoredContextKeys []string `json:"ignoredContextKeys"`
}

// peerDecision names leash's decisions as the peer does.
var peerDecision = map[string]string{
	"Allowed":      "Allowed",
	"ExplicitDeny": "ExplicitlyDenied",
	"ImplicitDeny": "ImplicitlyDenied",
}

func report(w io.Writer, c *Corpus, p *PeerResults, rounds int, roundTime time.Duration) error {
	peer := make(map[string]PeerCase, len(p.Cases))
	for _, pc := range p.Cases {
		peer[pc.Name] = pc
	}
	var disagreements []string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\trequests\tleash ns/op\tleash allocs/op\tpeer ns/op (unsafe)\tpeer ns/op (strict)\tratio (unsafe)\tratio (strict)\t")
	for _, cs := range c.Cases {
		pc, ok := peer[cs.Name]
		if !ok || len(pc.Requests) != len(cs.Requests) {
			return fmt.Errorf("peer results have no case %q with %d requests", cs.Name, len(cs.Requests))
		}
		reqs, err := compileCase(cs)
		if err != nil {
			return err
		}
		for i := range reqs {
			r, pr := cs.Requests[i], pc.Requests[i]
			got := reqs[i].policies.Decide(&reqs[i].request).String()
			where := fmt.Sprintf("%s request %d (%s %s)", cs.Name, i, r.Action, r.Resource)
			if got != r.Want {
				disagreements = append(disagreements, fmt.Sprintf("%s: leash %s, designed for %s", where, got, r.Want))
			}
			if pr.Unsafe != peerDecision[got] || pr.Strict != peerDecision[got] {
				disagreements = append(disagreements, fmt.Sprintf("%s: leash %s, peer unsafe %s, peer strict %s", where, got, pr.Unsafe, pr.Strict))
			}
			if len(pr.IgnoredContextKeys) > 0 {
				disagreements = append(disagreements, fmt.Sprintf("%s: the peer's strict mode ignored context keys %v", where, pr.IgnoredContextKeys))
			}
		}
		t := timeDecide(reqs, rounds, roundTime)
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f×\t%.0f×\t\n", cs.Name, len(reqs), t.nsPerOp, t.allocs,
			pc.UnsafeNsPerOp, pc.StrictNsPerOp, pc.UnsafeNsPerOp/t.nsPerOp, pc.StrictNsPerOp/t.nsPerOp)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\npeer: %s@%s on node %s; ns/op is the median round's time per request.\n", p.Package, p.Version, p.Node)
	if len(disagreements) > 0 {
		fmt.Fprintln(w, "\nThe engines disagree:")
		for _, d := range disagreements {
			fmt.Fprintln(w, "  "+d)
		}
		return fmt.Errorf("%d disagreements between leash, the peer and the corpus", len(disagreements))
	}
	fmt.Fprintln(w, "Both engines gave the designed decision for every request of the corpus.")
	return nil
}
