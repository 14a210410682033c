package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAppendAndReadWithFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	alice := "arn:aws:iam::111122223333:user/alice"
	bob := "arn:aws:iam::111122223333:user/bob"
	events := []Event{
		{EventTime: t0, EventName: "GetUser", UserIdentity: Identity{ARN: alice}, AdditionalEventData: &AdditionalData{Decision: "Allowed"}, RequestID: "1"},
		{EventTime: t0.Add(time.Minute), EventName: "ListUsers", UserIdentity: Identity{ARN: alice}, ErrorCode: "AccessDenied", AdditionalEventData: &AdditionalData{Decision: "ImplicitDeny"}, RequestID: "2"},
		{EventTime: t0.Add(2 * time.Minute), EventName: "GetUser", UserIdentity: Identity{ARN: bob}, AdditionalEventData: &AdditionalData{Decision: "Allowed"}, RequestID: "3"},
	}
	for i := range events {
		if err := l.Append(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("audit log mode = %v, %v; want 0600", info.Mode().Perm(), err)
	}
	tests := []struct {
		name   string
		filter Filter
		want   string
	}{
		{"everything", Filter{}, "1,2,3"},
		{"one principal", Filter{Principal: alice}, "1,2"},
		{"since is inclusive", Filter{Since: t0.Add(time.Minute)}, "2,3"},
		{"until is exclusive", Filter{Until: t0.Add(time.Minute)}, "1"},
		{"denied only", Filter{Denied: true}, "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			var got []string
			if bad, err := Read(f, tt.filter, func(e *Event) error { got = append(got, e.RequestID); return nil }); err != nil || bad != nil {
				t.Fatal(bad, err)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("got %v, want %s", got, tt.want)
			}
		})
	}
}

func TestReadSkipsBadLinesAndReadsLongOnes(t *testing.T) {
	good := `{"eventTime":"2026-11-29T12:00:00Z","eventName":"GetUser","userIdentity":{},"requestID":"1","eventID":"a","readOnly":true}`
	long := `{"eventTime":"2026-11-29T12:00:00Z","eventName":"` + strings.Repeat("x", 8<<20) + `","userIdentity":{},"requestID":"2","eventID":"b"}`
	for _, tt := range []struct {
		name, log string
		events    int
		badLines  string
	}{
		{"a torn last line is skipped and reported", good + "\n" + `{"eventTime":"2026-11-`, 1, "2"},
		{"a torn line in the middle does not hide later lines", `{"eventTime":` + good + "\n" + good + "\n", 1, "1"},
		{"a line longer than any buffer is read", long + "\n" + good + "\n", 2, ""},
		{"an empty log has no events", "", 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var n int
			bad, err := Read(strings.NewReader(tt.log), Filter{}, func(*Event) error { n++; return nil })
			var lines []string
			for _, b := range bad {
				lines = append(lines, strconv.Itoa(b.Line))
			}
			if err != nil || n != tt.events || strings.Join(lines, ",") != tt.badLines {
				t.Errorf("events=%d bad lines=%v err=%v, want %d events, bad lines %q", n, lines, err, tt.events, tt.badLines)
			}
		})
	}
}

// TestReadKeepsOldAndForeignRecords: logs leash local wrote before its own
// fields moved into additionalEventData have them at the top level, and
// are still read; CloudTrail's own records carry other additionalEventData,
// of any shape, which never stops a trail being read.
func TestReadKeepsOldAndForeignRecords(t *testing.T) {
	lines := strings.Join([]string{
		`{"eventVersion":"1.08","eventTime":"2026-01-02T03:04:05Z","eventSource":"iam.amazonaws.com","eventName":"GetUser","resource":"arn:aws:iam::111122223333:user/bob","decision":"Allowed","requestID":"1","eventID":"1","readOnly":true}`,
		`{"eventVersion":"1.08","eventTime":"2026-01-02T03:04:06Z","eventSource":"signin.amazonaws.com","eventName":"ConsoleLogin","additionalEventData":{"MFAUsed":"No"},"requestID":"2","eventID":"2"}`,
		`{"eventVersion":"1.08","eventTime":"2026-01-02T03:04:07Z","eventSource":"s3.amazonaws.com","eventName":"GetObject","additionalEventData":"odd","requestID":"3","eventID":"3"}`,
	}, "\n") + "\n"
	var got []*Event
	bad, err := Read(strings.NewReader(lines), Filter{}, func(e *Event) error { got = append(got, e); return nil })
	if err != nil || len(bad) > 0 || len(got) != 3 {
		t.Fatalf("read %d events, bad %v, err %v; want 3", len(got), bad, err)
	}
	if got[0].Decision() != "Allowed" || got[0].AuthorizedResource() != "arn:aws:iam::111122223333:user/bob" {
		t.Errorf("old record: decision %q on %q, want Allowed on bob", got[0].Decision(), got[0].AuthorizedResource())
	}
	again, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(again, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["resource"]; ok {
		t.Errorf("an old record is written back with a top-level resource: %s", again)
	}
	if extra, _ := m["additionalEventData"].(map[string]any); extra["decision"] != "Allowed" {
		t.Errorf("an old record is written back without its decision in additionalEventData: %s", again)
	}
	for _, e := range got[1:] {
		if e.Decision() != "" || e.AuthorizedResource() != "" {
			t.Errorf("%s: decision %q on %q from CloudTrail's additionalEventData, want none", e.EventName, e.Decision(), e.AuthorizedResource())
		}
	}
}
