package docs

import (
	"regexp"
	"strings"
	"testing"
)

// docHome is the folder the pages show their commands running in.
const docHome = "/home/me"

// Each rule replaces one kind of value that differs from run to run, and
// only that: an ID leash local or AWS draws at random, a time, an elapsed
// duration, the run's folder. Anything else a page shows must match.
var normalizers = []struct {
	re   *regexp.Regexp
	with string
}{
	// Access key IDs: long-term (AKIA) and session (ASIA) keys, 20 characters.
	{regexp.MustCompile(`\b(AKIA|ASIA)[A-Z0-9]{16}\b`), "${1}<KEY-ID>"},
	// Unique IDs of users, roles, policies, groups, instance profiles.
	{regexp.MustCompile(`\b(AIDA|AROA|ANPA|AGPA|AIPA)[A-Z0-9]{12,28}\b`), "${1}<ID>"},
	// The account of an ARN, and the account line leash local prints.
	{regexp.MustCompile(`(arn:aws:[a-z0-9-]+:[a-z0-9-]*:)\d{12}(:)`), "${1}<ACCOUNT>${2}"},
	{regexp.MustCompile(`(account:\s+)\d{12}\b`), "${1}<ACCOUNT>"},
	{regexp.MustCompile(`\b(accounts/)\d{12}\b`), "${1}<ACCOUNT>"},
	// RFC 3339 times.
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`), "<TIME>"},
	// Request IDs.
	{regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`), "<UUID>"},
	// Elapsed durations in seconds or less ("1.52s", "830ms"); durations with
	// hours or minutes ("36h0m0s") are values the page states and are kept.
	{regexp.MustCompile(`(^|[\s(])\d+(\.\d+)?(ns|µs|ms|s)\b`), "${1}<DURATION>"},
}

// normalize rewrites the run's folder as the pages' /home/me and applies the
// rules, trims trailing space on each line and drops trailing blank lines.
func normalize(text, runDir string) []string {
	if runDir != "" {
		text = strings.ReplaceAll(text, runDir, docHome)
	}
	for _, n := range normalizers {
		text = n.re.ReplaceAllString(text, n.with)
	}
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// matchOutput compares what a command printed with what the page shows. A
// shown line "..." stands for any number of printed lines, and "..." within
// a line for any text in it (a page shortens a long line so).
func matchOutput(shown, got []string) bool {
	if len(shown) == 0 {
		return len(got) == 0
	}
	if shown[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchOutput(shown[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(shown[0], got[0]) && matchOutput(shown[1:], got[1:])
}

func lineMatches(shown, got string) bool {
	if !strings.Contains(shown, "...") {
		return shown == got
	}
	parts := strings.Split(shown, "...")
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

func TestNormalize(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"access key IDs differ per run", "AKIAIOSFODNN7EXAMPLE and ASIAIOSFODNN7EXAMPLE", "AKIA<KEY-ID> and ASIA<KEY-ID>"},
		{"unique IDs differ per run", "AROA3XFRBF535PLBIFPI4 AIDAJQABLZS4A3QDU576Q", "AROA<ID> AIDA<ID>"},
		{"the account of an ARN is drawn at random", "arn:aws:iam::250754856637:user/alice", "arn:aws:iam::<ACCOUNT>:user/alice"},
		{"an STS ARN's account too", "arn:aws:sts::250754856637:assumed-role/r/s", "arn:aws:sts::<ACCOUNT>:assumed-role/r/s"},
		{"leash local's account line", "  account:           303373033373", "  account:           <ACCOUNT>"},
		{"a twelve-digit number elsewhere is kept", "count 123456789012 left", "count 123456789012 left"},
		{"RFC 3339 times", "at 2026-12-01T21:07:41Z and 2026-12-01T21:07:41.5+02:00", "at <TIME> and <TIME>"},
		{"elapsed durations", "done (1.52s), 830ms", "done (<DURATION>), <DURATION>"},
		{"a stated duration with hours is kept", "longest session 36h0m0s", "longest session 36h0m0s"},
		{"the run's folder reads as the page's", "/tmp/run123/leash-data/admin-credentials", "/home/me/leash-data/admin-credentials"},
		{"a word ending in s after a digit is kept", "6 rows", "6 rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := strings.Join(normalize(c.in, "/tmp/run123"), "\n")
			if got != c.want {
				t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestMatchOutput(t *testing.T) {
	cases := []struct {
		name        string
		shown, got  []string
		wantMatched bool
	}{
		{"the same lines match", []string{"a", "b"}, []string{"a", "b"}, true},
		{"a changed line does not", []string{"a", "b"}, []string{"a", "c"}, false},
		{"a missing line does not", []string{"a", "b"}, []string{"a"}, false},
		{"an extra line does not", []string{"a"}, []string{"a", "b"}, false},
		{"... stands for any lines", []string{"a", "...", "d"}, []string{"a", "b", "c", "d"}, true},
		{"... stands for none", []string{"a", "..."}, []string{"a"}, true},
		{"... within a line stands for any text", []string{"high LEASH-ESC-008 ... on roles ..."}, []string{"high LEASH-ESC-008 x.yaml Statement[0]: on roles matching"}, true},
		{"the rest of a shortened line must match", []string{"high ... on roles"}, []string{"high x on users"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := matchOutput(c.shown, c.got); got != c.wantMatched {
				t.Errorf("matchOutput(%q, %q) = %v, want %v", c.shown, c.got, got, c.wantMatched)
			}
		})
	}
}
