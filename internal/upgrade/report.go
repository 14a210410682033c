package upgrade

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"leash.dev/leash/internal/termsafe"
)

// Summary counts the requests by state, and the missing permissions.
type Summary struct {
	Requests    int `json:"requests"`
	OK          int `json:"ok"`
	Missing     int `json:"missing"`
	Permissions int `json:"missingPermissions"`
	New         int `json:"new"`
	Ignored     int `json:"ignored"`
	Failed      int `json:"failed"`
}

// Summarize counts rs.
func Summarize(rs []Result) Summary {
	s := Summary{Requests: len(rs)}
	for _, r := range rs {
		switch r.State {
		case OK:
			s.OK++
		case Missing:
			s.Missing++
			s.Permissions += len(r.Missing)
		case New:
			s.New++
		case Ignored:
			s.Ignored++
		case Failed:
			s.Failed++
		}
	}
	return s
}

// Upgradeable says whether no request lacks a permission and every one was
// checked.
func (s Summary) Upgradeable() bool { return s.Missing == 0 && s.Failed == 0 }

// WriteText writes one block per request: its name, principal and state,
// then a line per missing permission or the message; then the summary.
// Names, ARNs and messages come from manifests and IAM: escaped, none can
// start a line of its own.
func WriteText(w io.Writer, rs []Result) error {
	for _, r := range rs {
		principal := r.Principal
		if principal == "" {
			principal = "-"
		}
		state := strings.ToUpper(string(r.State))
		switch r.State {
		case Missing:
			state += fmt.Sprintf(" %d", len(r.Missing))
		case New:
			state += ": " + r.Message
		}
		if _, err := fmt.Fprintf(w, "%s  %s  %s\n", termsafe.Escape(r.Namespace+"/"+r.Name), termsafe.Escape(principal), state); err != nil {
			return err
		}
		for _, m := range r.Missing {
			line := m.Action + " on " + m.Resource
			if m.Condition != "" {
				line += " when " + m.Condition
			}
			fmt.Fprintf(w, "  %s: %s\n", termsafe.Escape(line), termsafe.Escape(m.Reason))
		}
		if r.Message != "" && r.State != New {
			fmt.Fprintf(w, "  %s\n", termsafe.Escape(r.Message))
		}
	}
	s := Summarize(rs)
	verdict := "the next release's requests find what they need"
	if !s.Upgradeable() {
		verdict = "not upgradeable as is"
	}
	permissions := "permissions"
	if s.Permissions == 1 {
		permissions = "permission"
	}
	_, err := fmt.Fprintf(w, "%d requests: %d ok, %d missing (%d %s), %d new, %d ignored, %d failed: %s\n",
		s.Requests, s.OK, s.Missing, s.Permissions, permissions, s.New, s.Ignored, s.Failed, verdict)
	return err
}

// WriteJSON writes {"requests": [...], "summary": {...}}.
func WriteJSON(w io.Writer, rs []Result) error {
	if rs == nil {
		rs = []Result{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Requests []Result `json:"requests"`
		Summary  Summary  `json:"summary"`
	}{rs, Summarize(rs)})
}
