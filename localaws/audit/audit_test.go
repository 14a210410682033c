package audit

import (
	"os"
	"path/filepath"
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
		{EventTime: t0, EventName: "GetUser", UserIdentity: Identity{ARN: alice}, Decision: "Allowed", RequestID: "1"},
		{EventTime: t0.Add(time.Minute), EventName: "ListUsers", UserIdentity: Identity{ARN: alice}, ErrorCode: "AccessDenied", Decision: "ImplicitDeny", RequestID: "2"},
		{EventTime: t0.Add(2 * time.Minute), EventName: "GetUser", UserIdentity: Identity{ARN: bob}, Decision: "Allowed", RequestID: "3"},
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
			if err := Read(f, tt.filter, func(e *Event) error { got = append(got, e.RequestID); return nil }); err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("got %v, want %s", got, tt.want)
			}
		})
	}
}

func TestReadSkipsATornLastLineOnly(t *testing.T) {
	good := `{"eventTime":"2026-11-29T12:00:00Z","eventName":"GetUser","userIdentity":{},"requestID":"1","eventID":"a","readOnly":true}`
	var n int
	count := func(*Event) error { n++; return nil }
	if err := Read(strings.NewReader(good+"\n"+`{"eventTime":"2026-11-`), Filter{}, count); err != nil || n != 1 {
		t.Errorf("torn last line: n=%d err=%v, want 1 event and no error", n, err)
	}
	if err := Read(strings.NewReader(`{"eventTime":`+"\n"+good+"\n"), Filter{}, count); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a malformed line before others must be an error naming it, got %v", err)
	}
}
