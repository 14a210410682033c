package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"leash.dev/leash/internal/inputerr"
)

// ErrDenied is returned by Execute when the input was good and at least one
// request was denied: the answer was printed, and the exit status says "no".
var ErrDenied = errors.New("at least one request was denied")

// Output formats of Execute.
const (
	OutputTable = "table"
	OutputJSON  = "json"
)

// Options is one `leash simulate` invocation.
type Options struct {
	Flags
	// Request is a file of requests in the Case JSON form, "-" for stdin.
	// It replaces the request-building Flags.
	Request string
	// Explain adds the deciding statements and reasons to table output;
	// JSON output always has them.
	Explain bool
	// Output is OutputTable (the default when empty) or OutputJSON.
	Output string
}

// Execute answers the requests of o and writes the answers to stdout. It
// returns an *inputerr.Error for bad input, ErrDenied when some request was
// denied, and nil when every request was allowed.
//
// Requests from flags are all or nothing: nothing is written unless all
// input is good. Requests from --request are streamed (see stream): a bad
// request gets an Error outcome and the others are still answered.
func Execute(o Options, stdin io.Reader, stdout io.Writer) error {
	output := o.Output
	if output == "" {
		output = OutputTable
	}
	if output != OutputTable && output != OutputJSON {
		return &inputerr.Error{Source: "--output", Msg: fmt.Sprintf(`must be "table" or "json", got %q`, o.Output)}
	}
	if o.Request != "" {
		return o.stream(stdin, stdout, output)
	}
	cases, err := o.Cases()
	if err != nil {
		return err
	}
	outcomes, err := Run(cases, "flags")
	if err != nil {
		return err
	}
	// Render in full before writing, so that a failure leaves no half table.
	var buf bytes.Buffer
	if output == OutputJSON {
		err = WriteJSON(&buf, outcomes)
	} else {
		err = WriteTable(&buf, outcomes, o.Explain)
	}
	if err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write the answers: %w", err)
	}
	if !AllAllowed(outcomes) {
		return ErrDenied
	}
	return nil
}
