package cloudtrail

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/localaws/audit"
)

// tableBatch is how many rows the table holds back to align its columns:
// a trail of millions of records starts printing at once, in blocks of rows
// aligned among themselves, rather than after its last record is read.
const tableBatch = 50

// tableWait is the longest a row waits for its batch: a slow source (a
// LookupEvents page, a large log file) shows the rows it has so far.
const tableWait = time.Second

// Printer writes records as a table or as JSON lines.
type Printer struct {
	// json writes each record as a line of JSON to out.
	json  bool
	out   io.Writer
	table *tabwriter.Writer
	// held counts the rows the table holds back; the first of them came
	// at first, so that the time before a source's first record (reading
	// files, a first page) never splits a batch.
	held  int
	first time.Time
	wait  time.Duration    // tableWait; a test that counts rows sets more
	now   func() time.Time // time.Now; a test's clock
}

// NewPrinter returns a printer of format "table" (or "") or "json".
func NewPrinter(w io.Writer, format string) (*Printer, error) {
	switch format {
	case "json":
		return &Printer{json: true, out: w}, nil
	case "table", "":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		_, err := fmt.Fprintln(tw, "TIME\tPRINCIPAL\tSESSION ISSUED\tACTION\tRESOURCE\tSOURCE IP\tUSER AGENT\tERROR\tDECISION")
		return &Printer{table: tw, wait: tableWait, now: time.Now}, err
	}
	return nil, fmt.Errorf(`--output %q: must be "table" or "json"`, format)
}

// Print writes one record: in JSON as the record itself, in the table as one
// row. Every field of the row is written by field, since the record's
// strings are whatever its caller sent: a newline in a role name or a user
// agent must not start a forged row, nor a tab shift a column, nor an escape
// sequence hide the rest of the line.
func (p *Printer) Print(e *audit.Event) error {
	if p.json {
		record, err := e.Record()
		if err != nil {
			return err
		}
		_, err = p.out.Write(append(record, '\n'))
		return err
	}
	issued := "-"
	if sc := e.UserIdentity.SessionContext; sc != nil && !sc.Attributes.CreationDate.IsZero() {
		issued = sc.Attributes.CreationDate.UTC().Format(time.RFC3339)
	}
	_, err := fmt.Fprintf(p.table, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
		e.EventTime.UTC().Format(time.RFC3339), field(Caller(&e.UserIdentity)), issued, field(Action(e)),
		field(resource(e)), field(e.SourceIPAddress), shorten(field(e.UserAgent), 60), field(e.ErrorCode), field(e.Decision()))
	if err != nil {
		return err
	}
	if p.held == 0 {
		p.first = p.now()
	}
	if p.held++; p.held >= tableBatch || p.now().Sub(p.first) >= p.wait {
		return p.Flush()
	}
	return nil
}

// Flush ends the output; the table is aligned and written only then.
func (p *Printer) Flush() error {
	if p.table != nil {
		p.held = 0
		return p.table.Flush()
	}
	return nil
}

// Action is the record's call as IAM names its action, such as
// s3:GetObject.
func Action(e *audit.Event) string {
	return strings.TrimSuffix(e.EventSource, ".amazonaws.com") + ":" + e.EventName
}

// Caller names who made a call: its ARN, or for a web identity (which has
// none) the token's subject at its issuer.
func Caller(id *audit.Identity) string {
	switch {
	case id.ARN != "":
		return id.ARN
	case id.UserName != "" && id.IdentityProvider != "":
		return id.UserName + " @ " + id.IdentityProvider
	case id.UserName != "":
		return id.UserName
	}
	return id.PrincipalID
}

// resource is what the call acted on: the ARN leash local authorized it
// against, else CloudTrail's first resource, noting how many more there are.
func resource(e *audit.Event) string {
	if arn := e.AuthorizedResource(); arn != "" {
		return arn
	}
	switch len(e.Resources) {
	case 0:
		return ""
	case 1:
		return e.Resources[0].ARN
	}
	return fmt.Sprintf("%s (+%d)", e.Resources[0].ARN, len(e.Resources)-1)
}

// shorten cuts s to n characters, the last an ellipsis. It is given s once
// escaped, so a cut can end inside an escape but never lets one through.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// field is s as a table cell: escaped to stay on its line and in its
// column, and "-" when empty.
func field(s string) string {
	if s == "" {
		return "-"
	}
	return termsafe.Escape(s)
}
