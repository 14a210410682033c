package usage

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"leash.dev/leash/internal/termsafe"
)

// WriteText prints the report as a table: a row per action as written, and
// under a pattern a row per action it matched that was used; then the uses
// no statement covers and a summary. Names come from files and trails and
// are escaped.
func WriteText(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "request %s, principal %s, %s\n", termsafe.Escape(r.Request), termsafe.Escape(r.Principal), window(r.Since, r.Until))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATEMENT\tACTION\tUSED\tCALLS\tLAST USED\tRESOURCES")
	for _, s := range r.Statements {
		for _, a := range s.Actions {
			fmt.Fprintf(tw, "%d %s\t%s\t%s\t%s\t%s\t%s\n", s.Index, s.Effect, termsafe.Escape(a.Written), used(s.Effect, a), calls(a), last(a), termsafe.Escape(s.Resource))
			if a.Matches == 1 && len(a.Used) == 1 && slices.Equal(a.Used[0].Resources, []string{s.Resource}) {
				continue // the row says it all
			}
			for _, u := range a.Used {
				fmt.Fprintf(tw, "\t  %s\tyes\t%d\t%s\t%s\n", u.Action, u.Calls, stamp(u.LastUsed), termsafe.Escape(strings.Join(u.Resources, ", ")))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, u := range r.Outside {
		fmt.Fprintf(w, "used, but not granted by the request: %s on %s (%d calls, last %s)\n", u.Action, termsafe.Escape(strings.Join(u.Resources, ", ")), u.Calls, stamp(u.LastUsed))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", termsafe.Escape(n.String()))
	}
	unused := r.Unused()
	total := 0
	for _, s := range r.Statements {
		if s.Effect == "Allow" {
			total += len(s.Actions)
		}
	}
	fmt.Fprintf(w, "%d of %d actions allowed were used", total-len(unused), total)
	if len(unused) > 0 {
		fmt.Fprintf(w, "; never used: %s", termsafe.Escape(strings.Join(unused, ", ")))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func used(effect string, a Action) string {
	switch {
	case effect != "Allow":
		return "-"
	case len(a.Used) == 0:
		return "no"
	case a.Matches > 1:
		return fmt.Sprintf("%d of %d", len(a.Used), a.Matches)
	}
	return "yes"
}

func calls(a Action) string {
	if len(a.Used) == 0 {
		return ""
	}
	n := 0
	for _, u := range a.Used {
		n += u.Calls
	}
	return fmt.Sprint(n)
}

func last(a Action) string {
	var t time.Time
	for _, u := range a.Used {
		if u.LastUsed.After(t) {
			t = u.LastUsed
		}
	}
	return stamp(t)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func window(since, until time.Time) string {
	switch {
	case since.IsZero() && until.IsZero():
		return "the whole trail"
	case until.IsZero():
		return "calls since " + stamp(since)
	case since.IsZero():
		return "calls before " + stamp(until)
	}
	return "calls from " + stamp(since) + " to " + stamp(until)
}
