// Command batchgen writes a batch of generated `leash simulate` requests as
// JSON Lines, for bench/batch.sh. The same -shape, -n and -seed always give
// the same file. Shapes (bench/README.md describes each, with its size and
// outcomes):
//
//   - shared (the default): small documents, many drawn from pools shared
//     across the batch, as an account's managed policies are; SCPs on two
//     levels.
//   - wide: few documents shared; each request carries identity policies of
//     10 to 40 statements with many actions, resources and conditions of
//     every operator family, its own resource policy naming principals and
//     accounts, boundary and session policy, SCPs on 3 to 5 levels and RCPs.
//   - deep: many small documents (4 to 8 identity policies, SCPs on 5 to 7
//     levels, RCPs), with non-ASCII text in ARNs, names and condition
//     values, written as UTF-8, as JSON escapes or spaced out.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
)

// shape makes the requests of one kind of batch.
type shape interface {
	request(i int) request
}

// rewriter is a shape that writes a request's line its own way, given
// the line as encoding/json writes it.
type rewriter interface {
	rewrite(line []byte) []byte
}

// shapes are the batches batchgen writes, by name.
var shapes = map[string]func(seed uint64) shape{
	"shared": func(seed uint64) shape { return newGen(seed) },
	"wide":   func(seed uint64) shape { return newWide(seed) },
	"deep":   func(seed uint64) shape { return newDeep(seed) },
}

func shapeNames() string {
	var names []string
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func main() {
	n := flag.Int("n", 20000, "number of requests")
	seed := flag.Uint64("seed", 1, "random seed; the same seed gives the same batch")
	out := flag.String("o", "-", "output file, - for stdout")
	shapeName := flag.String("shape", "shared", "kind of batch: "+shapeNames())
	flag.Parse()
	if *n <= 0 {
		fmt.Fprintln(os.Stderr, "batchgen: -n must be positive")
		os.Exit(2)
	}
	newShape, ok := shapes[*shapeName]
	if !ok {
		fmt.Fprintf(os.Stderr, "batchgen: -shape %q is not known; use one of %s\n", *shapeName, shapeNames())
		os.Exit(2)
	}
	w := os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "batchgen:", err)
			os.Exit(1)
		}
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := newShape(*seed)
	for i := range *n {
		line, err := json.Marshal(g.request(i))
		if err != nil {
			fmt.Fprintln(os.Stderr, "batchgen:", err)
			os.Exit(1)
		}
		if rw, ok := g.(rewriter); ok {
			line = rw.rewrite(line)
		}
		// A failed write shows again at Flush, which is checked.
		_, _ = bw.Write(append(line, '\n'))
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "batchgen:", err)
		os.Exit(1)
	}
	if err := w.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "batchgen:", err)
		os.Exit(1)
	}
}
