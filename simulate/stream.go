package simulate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/policy"
)

// stream answers the requests of --request one at a time: each is read,
// decided and written before the next is read, so that memory stays the
// same for any number of requests, and a policy document repeated across
// requests is parsed once (docCache).
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
		defer f.Close()
		in = f
	}
	w := bufio.NewWriterSize(stdout, 64<<10)
	var werr error
	// Before leash waits for input, every answer decided so far goes out.
	flush := func() {
		if werr == nil {
			werr = w.Flush()
		}
	}
	r, err := NewReader(in, source, flush)
	if err != nil {
		return err
	}
	var out outcomeWriter = &tableWriter{w: w, explain: o.Explain}
	if output == OutputJSON {
		out = &jsonWriter{w: w}
	}
	cache := newDocCache(docCacheSize)
	var n, bad, denied int
	var firstBad string
	for {
		c, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if n > 0 {
				_ = out.close()
				flush()
			}
			return err
		}
		n++
		outcome := decide(c, source, cache)
		switch outcome.Decision {
		case DecisionError:
			if bad == 0 {
				firstBad = outcome.Error
			}
			bad++
		case policy.Allowed.String():
		default:
			denied++
		}
		if werr == nil {
			werr = out.write(&outcome)
		}
		if werr != nil {
			return fmt.Errorf("write the answers: %w", werr)
		}
	}
	if n == 0 {
		return &inputerr.Error{Source: source, Msg: "has no requests; give a request object, an array of them, or JSON Lines"}
	}
	if err := out.close(); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	if flush(); werr != nil {
		return fmt.Errorf("write the answers: %w", werr)
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
