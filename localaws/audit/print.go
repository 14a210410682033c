package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// FileName is the audit log's name in the local endpoint's data folder.
const FileName = "audit.jsonl"

// Print writes the events of r that f selects, as a table or as JSON lines
// (format "table" or "json"), and returns the lines it skipped.
func Print(w io.Writer, r io.Reader, f Filter, format string) ([]BadLine, error) {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		return Read(r, f, func(e *Event) error { return enc.Encode(e) })
	case "table", "":
	default:
		return nil, fmt.Errorf(`output %q: must be "table" or "json"`, format)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tPRINCIPAL\tACTION\tRESOURCE\tDECISION\tERROR")
	bad, err := Read(r, f, func(e *Event) error {
		service := strings.TrimSuffix(e.EventSource, ".amazonaws.com")
		_, err := fmt.Fprintf(tw, "%s\t%s\t%s:%s\t%s\t%s\t%s\n", e.EventTime.UTC().Format(time.RFC3339),
			dash(e.UserIdentity.ARN), service, e.EventName, dash(e.Resource), dash(e.Decision), dash(e.ErrorCode))
		return err
	})
	if err != nil {
		return bad, err
	}
	return bad, tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ParseTime reads a --since or --until value: an RFC 3339 time, or a
// duration such as 90m meaning that long before now.
func ParseTime(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q: give an RFC 3339 time such as 2026-11-29T12:00:00Z, or a duration before now such as 90m", s)
}
