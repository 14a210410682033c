package simulate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// stream answers the requests of --request one at a time: each is read,
// decided and written without waiting for the next, so that memory stays
// the same for any number of requests, and a policy document repeated
// across requests is parsed once (docCache). Reading and parsing, compiling
// and deciding, and writing run as three stages of a pipeline, each on its
// own goroutine, so that a machine with several cores parses the next
// request while it decides this one; a few requests are in flight at once,
// in input order.
//
// What is wrong with the input as a whole (an unreadable file, input that is
// not JSON requests, no requests at all) is reported before anything is
// written. A request that cannot be decided gets an outcome with Decision
// "Error" and the message; the others are still answered, and the error
// returned at the end names how many were bad and the first. JSON that is
// not well formed stops the reading where it is: the answers written so
// far are closed (a JSON array stays valid) and the error names the request.
func (o *Options) stream(stdin io.Reader, stdout io.Writer, output string) error {
	if given := o.Given(); len(given) > 0 {
		return &inputerr.Error{Source: "--request", Msg: fmt.Sprintf(
			"cannot be combined with %s; put the policies and actions in the request file, or drop --request", strings.Join(given, ", "))}
	}
	source, in := "stdin", stdin
	if o.Request != "-" {
		source = o.Request
		f, err := os.Open(o.Request)
		if err != nil {
			return &inputerr.Error{Source: source, Msg: readFailure("--request", err)}
		}
		defer func() { _ = f.Close() }() // read only: nothing to lose
		in = f
	}
	r, err := NewReader(in, source)
	if err != nil {
		return err
	}
	// A stream keeps little alive (the document cache, the requests in
	// flight) and allocates much per request, so the garbage collector's
	// default pace costs a fifth of the run. Let the heap grow to four
	// times what is live, not twice, unless GOGC says otherwise: measured
	// peak RSS goes from about 62 to 80 MiB, for any batch size.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(streamGCPercent))
	}

	// Stage 1 reads requests and parses their policies, with the one
	// document cache of the run; its last item carries io.EOF or the
	// error that ended the reading.
	type read struct {
		p   pending
		err error
	}
	stop := make(chan struct{})
	defer close(stop)
	cases := make(chan read, pipelineDepth)
	go func() {
		defer close(cases)
		cache := newDocCache(docCacheSize)
		for {
			c, err := r.Next()
			item := read{err: err}
			switch {
			case err == nil && c.locate != nil:
				item.p = pending{c: c, late: true}
			case err == nil:
				item.p = prepare(c, source, cache)
			}
			select {
			case cases <- item:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// Stage 2 compiles the policies and decides.
	type decided struct {
		o   Outcome
		err error
	}
	outcomes := make(chan decided, pipelineDepth)
	go func() {
		defer close(outcomes)
		for item := range cases {
			d := decided{err: item.err}
			if item.err == nil {
				d.o = item.p.decide(source)
			}
			select {
			case outcomes <- d:
			case <-stop:
				return
			}
		}
	}()

	// Stage 3, here, writes them.
	w := bufio.NewWriterSize(stdout, 64<<10)
	var out outcomeWriter = &tableWriter{w: w, explain: o.Explain}
	if output == OutputJSON {
		out = &jsonWriter{w: w}
	}
	var n, bad, denied int
	var firstBad string
	for {
		var d decided
		select {
		case d = <-outcomes:
		default:
			// Before waiting for input, every answer decided so far goes
			// out, so that a caller feeding requests one at a time gets
			// each answer before it sends the next.
			if err := w.Flush(); err != nil {
				return fmt.Errorf("write the answers: %w", err)
			}
			d = <-outcomes
		}
		if d.err == io.EOF {
			break
		}
		if d.err != nil {
			if n > 0 {
				_ = out.close()
				_ = w.Flush()
			}
			return d.err
		}
		n++
		switch d.o.Decision {
		case DecisionError:
			if bad == 0 {
				firstBad = d.o.Error
			}
			bad++
		case policy.Allowed.String():
		default:
			denied++
		}
		if err := out.write(&d.o); err != nil {
			return fmt.Errorf("write the answers: %w", err)
		}
	}
	if n == 0 {
		return &inputerr.Error{Source: source, Msg: "has no requests; give a request object, an array of them, or JSON Lines"}
	}
	if err := out.close(); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	switch {
	case bad > 0:
		return &inputerr.Error{Msg: fmt.Sprintf(
			`%d of %d requests could not be decided; each has decision "Error" and says why in the output. The first: %s`, bad, n, firstBad)}
	case denied > 0:
		return ErrDenied
	}
	return nil
}

// pipelineDepth is how many requests may wait between two stages: enough
// to keep the stages busy, few enough that memory does not grow with the
// batch.
const pipelineDepth = 64

// streamGCPercent is the GOGC of a stream: see stream.
const streamGCPercent = 300
