package simulate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// stream answers the requests of --request one at a time: each is read,
// decided and written without waiting for the next, so that memory stays
// the same for any number of requests, and a policy document repeated
// across requests is parsed and compiled once (docCache). Reading, deciding
// (on one worker a core) and writing run on their own goroutines, so that
// every core decides; a few hundred requests are in flight at once, and the
// answers go out in input order.
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
	// The binary takes about 55 MiB before the first request, and that
	// pace alone lets the heap reach 50 MiB when the cache of compiled
	// documents is full: a soft limit makes the collector run sooner only
	// then (measured peak RSS about 84 MiB, for the same CPU time), unless
	// GOMEMLIMIT says otherwise.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(streamMemoryLimit))
	}

	// The reader (one goroutine) finds each request's bytes; workers (one
	// a core) decode, parse, compile and decide them, sharing the run's document cache;
	// the writer (here) takes the answers in input order. Each request
	// read is a job, queued for the workers and, in the same order, for
	// the writer, which waits for each job's answer in turn. The queue's
	// bound keeps the requests in flight, and so memory, the same for any
	// batch; the last job carries io.EOF or the error that ended the
	// reading, and no worker sees it.
	stop := make(chan struct{})
	defer close(stop)
	jobs := make(chan *job, pipelineDepth)
	queue := make(chan *job, queueDepth)
	cache := newDocCache(docCacheSize)
	go func() {
		defer close(jobs)
		defer close(queue)
		for {
			req, err := r.next()
			j := &job{req: req, err: err, done: make(chan struct{})}
			if err == nil {
				select {
				case jobs <- j:
				case <-stop:
					return
				}
			}
			select {
			case queue <- j:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for range workers() {
		go func() {
			for j := range jobs {
				c, err := j.req.decode(source)
				j.req = nil
				if err != nil {
					j.broken = err
					close(j.done)
					continue
				}
				p := pending{c: c, late: c.locate != nil}
				if !p.late {
					p = prepare(c, source, cache)
				}
				j.o = p.decide(source)
				if output == OutputJSON {
					j.rendered = renderJSON(&j.o)
				}
				close(j.done)
			}
		}()
	}

	// Stage 3, here, writes them.
	w := bufio.NewWriterSize(stdout, 64<<10)
	var out outcomeWriter = &tableWriter{w: w, explain: o.Explain}
	var jw *jsonWriter
	if output == OutputJSON {
		jw = &jsonWriter{w: w}
		out = jw
	}
	var n, bad, denied int
	var firstBad string
	for {
		var d *job
		select {
		case d = <-queue:
		default:
			// Before waiting for input, every answer decided so far goes
			// out, so that a caller feeding requests one at a time gets
			// each answer before it sends the next.
			if err := w.Flush(); err != nil {
				return fmt.Errorf("write the answers: %w", err)
			}
			d = <-queue
		}
		if d.err == nil {
			select {
			case <-d.done:
			default:
				if err := w.Flush(); err != nil {
					return fmt.Errorf("write the answers: %w", err)
				}
				<-d.done
			}
			d.err = d.broken
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
		var err error
		if d.rendered != nil {
			err = jw.element(d.rendered)
		} else {
			err = out.write(&d.o)
		}
		if err != nil {
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

// pipelineDepth is how many requests read may wait for a worker, and
// queueDepth how many may be in flight between the reader and the writer:
// enough to keep the workers busy while one request is slow, few enough
// that memory does not grow with the batch.
const (
	pipelineDepth = 64
	queueDepth    = 128
)

// job is one request of a stream between the reader, a worker and the
// writer. The worker sets o (and for JSON output, rendered: o as the
// writer writes it), or broken when the request is not well-formed JSON,
// and then closes done; err, set by the reader, ends the stream instead
// (io.EOF after the last request), as broken does at its request.
type job struct {
	req      *request
	err      error
	broken   error // set by the worker: the request is not well-formed JSON
	o        Outcome
	rendered []byte
	done     chan struct{}
}

// workers is how many goroutines decide requests: one a core.
func workers() int {
	return max(1, runtime.GOMAXPROCS(0))
}

// streamGCPercent is the GOGC of a stream: see stream.
const streamGCPercent = 300

// streamMemoryLimit is the soft memory limit of a stream, in bytes: see
// stream.
const streamMemoryLimit = 48 << 20
