package simulate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

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

// Execute reads and checks all input, answers every request and writes the
// answers to stdout. Nothing is written unless all input is good. It returns
// an *inputerr.Error for bad input, ErrDenied when some request was denied, and
// nil when every request was allowed.
func Execute(o Options, stdin io.Reader, stdout io.Writer) error {
	output := o.Output
	if output == "" {
		output = OutputTable
	}
	if output != OutputTable && output != OutputJSON {
		return &inputerr.Error{Source: "--output", Msg: fmt.Sprintf(`must be "table" or "json", got %q`, o.Output)}
	}
	cases, source, err := o.cases(stdin)
	if err != nil {
		return err
	}
	outcomes, err := Run(cases, source)
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

// cases returns the requests from --request or from the flags, with the
// name of their source for errors.
func (o *Options) cases(stdin io.Reader) ([]Case, string, error) {
	if o.Request == "" {
		cases, err := o.Cases()
		return cases, "flags", err
	}
	if given := o.Given(); len(given) > 0 {
		return nil, "", &inputerr.Error{Source: "--request", Msg: fmt.Sprintf(
			"cannot be combined with %s; put the policies and actions in the request file, or drop --request", strings.Join(given, ", "))}
	}
	source := o.Request
	var data []byte
	var err error
	if o.Request == "-" {
		source = "stdin"
		data, err = io.ReadAll(stdin)
		if err != nil {
			return nil, "", &inputerr.Error{Source: source, Msg: "cannot read: " + err.Error()}
		}
	} else if data, err = os.ReadFile(o.Request); err != nil {
		return nil, "", &inputerr.Error{Source: source, Msg: readFailure("--request", err)}
	}
	cases, err := ReadCases(data, source)
	if err != nil {
		return nil, "", err
	}
	if len(cases) == 0 {
		return nil, "", &inputerr.Error{Source: source, Msg: "has no requests; give a request object, an array of them, or JSON Lines"}
	}
	return cases, source, nil
}
