package simulate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/mapfile"
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
	source := "stdin"
	var r *Reader
	var err error
	forget := func(int) {}
	var mapped mappedInput
	if o.Request == "-" {
		r, err = NewReader(stdin, source)
	} else {
		source = o.Request
		f, ferr := os.Open(o.Request)
		if ferr != nil {
			return &inputerr.Error{Source: source, Msg: readFailure("--request", ferr)}
		}
		defer func() { _ = f.Close() }() // read only: nothing to lose
		// A large regular file is read mapped: the requests are slices
		// of it, neither copied nor allocated. Every goroutine that reads
		// them has ended before it is released (below). Anything else (a
		// pipe, a device, a small file) streams as stdin does.
		if m := mapfile.Map(f); m != nil {
			defer m.Close()
			r, err = newMemReader(m.Data, source)
			forget, mapped = m.Forget, newMappedInput(source, m.Data)
		} else {
			r, err = NewReader(f, source)
		}
	}
	if err != nil {
		return err
	}
	defer paceCollector()()

	var running sync.WaitGroup
	defer running.Wait()
	stop := make(chan struct{})
	defer close(stop)
	jobs := make(chan *job, pipelineDepth)
	queue := make(chan *job, queueDepth)
	running.Go(func() { readJobs(r, jobs, queue, stop, mapped) })
	cache := newDocCache(docCacheSize, docCacheBytes, docCacheOwnBytes)
	for range workers() {
		running.Go(func() { decideJobs(jobs, source, cache, output, stop, mapped) })
	}

	w := bufio.NewWriterSize(stdout, 64<<10)
	var out outcomeWriter = &tableWriter{w: w, explain: o.Explain}
	var jw *jsonWriter
	if output == OutputJSON {
		jw = &jsonWriter{w: w}
		out = jw
	}
	t, err := writeAnswers(queue, w, out, jw, forget, mapped)
	if err != nil {
		return err
	}
	return t.result(source, out, w)
}

// paceCollector sets the garbage collector's pace for a stream and returns
// what puts the process's pace back.
//
// A stream keeps little alive (the document cache, the requests in flight)
// and allocates much per request, so the garbage collector's default pace
// costs a fifth of the run. Let the heap grow to four times what is live,
// not twice, unless GOGC says otherwise: measured peak RSS goes from about
// 62 to 80 MiB, for any batch size.
//
// The binary takes about 55 MiB before the first request, and that pace
// alone lets the heap reach 50 MiB when the cache of compiled documents is
// full: a soft limit makes the collector run sooner only then (measured
// peak RSS about 84 MiB, for the same CPU time), unless GOMEMLIMIT says
// otherwise.
func paceCollector() (restore func()) {
	setGC, setLimit := os.Getenv("GOGC") == "", os.Getenv("GOMEMLIMIT") == ""
	var gcPercent int
	var memLimit int64
	if setGC {
		gcPercent = debug.SetGCPercent(streamGCPercent)
	}
	if setLimit {
		memLimit = debug.SetMemoryLimit(streamMemoryLimit)
	}
	return func() {
		if setLimit {
			debug.SetMemoryLimit(memLimit)
		}
		if setGC {
			debug.SetGCPercent(gcPercent)
		}
	}
}

// A stream is three stages. The reader (one goroutine, readJobs) finds each
// request's bytes; workers (one a core, decideJobs) decode, parse, compile
// and decide them, sharing the run's document cache; the writer
// (writeAnswers, on the caller's goroutine) takes the answers in input
// order. Each request read is a job, queued for the workers and, in the
// same order, for the writer, which waits for each job's answer in turn.
// The queue's bound keeps the requests in flight, and so memory, the same
// for any batch; the last job carries io.EOF or the error that ended the
// reading, and no worker sees it.

// readJobs is the reader: it queues each request of r for the workers on
// jobs and for the writer on queue, ends with a job carrying the error
// that ended the reading (io.EOF at the end), and closes both channels. It
// returns early when stop closes, as the writer has given up.
func readJobs(r *Reader, jobs, queue chan<- *job, stop <-chan struct{}, mapped mappedInput) {
	defer close(jobs)
	defer close(queue)
	defer mapped.guard()()
	next := func() (req *request, err error) {
		defer func() {
			if v := recover(); v != nil {
				req, err = nil, mapped.fault(v)
			}
		}()
		return r.next()
	}
	for {
		req, err := next()
		j := &job{req: req, err: err, end: r.offset(), done: make(chan struct{})}
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
}

// decideJobs is one worker: it decides each job of jobs and closes its
// done; once stop closes, it only drains jobs. A request that is not well-formed JSON is marked broken, which
// ends the stream at that request; the JSON form of an answer is rendered
// here, so that the one writer only copies bytes.
func decideJobs(jobs <-chan *job, source string, cache *docCache, output string, stop <-chan struct{}, mapped mappedInput) {
	defer mapped.guard()()
	for j := range jobs {
		select {
		case <-stop:
			continue // the writer has given up: drain
		default:
		}
		j.broken = decideJob(j, source, cache, output, mapped)
		close(j.done)
	}
}

// decideJob decides j, or returns why it cannot be: its request is not
// well-formed JSON, or the file it is read from lost its pages.
func decideJob(j *job, source string, cache *docCache, output string, mapped mappedInput) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = mapped.fault(v)
		}
	}()
	c, err := j.req.decode(source)
	j.req = nil
	if err != nil {
		return err
	}
	p := pending{c: c, late: c.locate != nil}
	if !p.late {
		p = prepare(c, source, cache)
	}
	j.o = p.decide(source)
	if output == OutputJSON {
		j.rendered = renderJSON(&j.o)
	}
	return nil
}

// streamTally counts the answers written, for what the stream returns.
type streamTally struct {
	n, bad, denied int
	firstBad       string
}

// writeAnswers is the writer: it writes each job's answer in input order
// until the job that ends the reading. As it goes, it forgets the input
// before the requests answered (see job.end), so that a mapped file's
// pages do not pile up in memory. At io.EOF it returns the tally with
// nothing closed yet; at another error it closes the answers written so
// far (a JSON array stays valid) and returns that error.
func writeAnswers(queue <-chan *job, w *bufio.Writer, out outcomeWriter, jw *jsonWriter, forget func(int), mapped mappedInput) (t streamTally, err error) {
	defer mapped.guard()()
	defer func() {
		if v := recover(); v != nil {
			err = mapped.fault(v)
		}
	}()
	forgotten := 0
	for {
		d, err := nextAnswer(queue, w)
		if err != nil {
			return t, err
		}
		if d.err == io.EOF {
			return t, nil
		}
		if d.err != nil {
			if t.n > 0 {
				_ = out.close()
				_ = w.Flush()
			}
			return t, d.err
		}
		t.count(&d.o)
		if d.end-forgotten >= forgetEvery {
			forget(d.end)
			forgotten = d.end
		}
		if d.rendered != nil {
			err = jw.element(d.rendered)
		} else {
			err = out.write(&d.o)
		}
		if err != nil {
			return t, fmt.Errorf("write the answers: %w", err)
		}
	}
}

// nextAnswer waits for the next job of queue and, unless it ends the
// reading, for its answer; a broken request's error becomes the job's.
// Before waiting, every answer decided so far goes out, so that a caller
// feeding requests one at a time gets each answer before it sends the
// next. The error returned is a failure to write.
func nextAnswer(queue <-chan *job, w *bufio.Writer) (*job, error) {
	var d *job
	select {
	case d = <-queue:
	default:
		if err := w.Flush(); err != nil {
			return nil, fmt.Errorf("write the answers: %w", err)
		}
		d = <-queue
	}
	if d.err == nil {
		select {
		case <-d.done:
		default:
			if err := w.Flush(); err != nil {
				return nil, fmt.Errorf("write the answers: %w", err)
			}
			<-d.done
		}
		d.err = d.broken
	}
	return d, nil
}

// count adds one answer to the tally.
func (t *streamTally) count(o *Outcome) {
	t.n++
	switch o.Decision {
	case DecisionError:
		if t.bad == 0 {
			t.firstBad = strings.Clone(o.Error) // outlives the input's bytes
		}
		t.bad++
	case policy.Allowed.String():
	default:
		t.denied++
	}
}

// result closes the answers after the last request and says how the
// stream ends: input with no requests is an input error; requests that
// could not be decided make one naming how many and the first; any denial
// is ErrDenied, as for a single request.
func (t streamTally) result(source string, out outcomeWriter, w *bufio.Writer) error {
	if t.n == 0 {
		return &inputerr.Error{Source: source, Msg: "has no requests; give a request object, an array of them, or JSON Lines"}
	}
	if err := out.close(); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	switch {
	case t.bad > 0:
		return &inputerr.Error{Msg: fmt.Sprintf(
			`%d of %d requests could not be decided; each has decision "Error" and says why in the output. The first: %s`, t.bad, t.n, t.firstBad)}
	case t.denied > 0:
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

// forgetEvery is how much of a mapped input is answered before the writer
// forgets it.
const forgetEvery = 1 << 20

// job is one request of a stream between the reader, a worker and the
// writer. The worker sets o (and for JSON output, rendered: o as the
// writer writes it), or broken when the request is not well-formed JSON,
// and then closes done; err, set by the reader, ends the stream instead
// (io.EOF after the last request), as broken does at its request.
type job struct {
	req *request
	// end is where the request's bytes end in input held in memory: no
	// request before it is read once its answer is written, since the
	// answers go out in input order.
	end      int
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

// streamGCPercent is the GOGC of a stream: see paceCollector.
const streamGCPercent = 300

// streamMemoryLimit is the soft memory limit of a stream, in bytes: see
// paceCollector.
const streamMemoryLimit = 48 << 20
