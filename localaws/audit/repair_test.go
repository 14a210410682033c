package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenRepairsATornLastLine(t *testing.T) {
	whole := `{"eventVersion":"1.08","eventName":"ListUsers","requestID":"1","eventID":"1","userIdentity":{},"eventTime":"2026-11-29T12:00:00Z","readOnly":true}` + "\n"
	torn := `{"eventVersion":"1.08","eventName":"CreateUs`
	long := `{"eventVersion":"1.08","userAgent":"` + strings.Repeat("a", 200<<10)
	tests := []struct {
		name        string
		content     string
		wantKept    string
		wantDropped int64
	}{
		{"an empty log is left alone", "", "", 0},
		{"a log of whole lines is left alone", whole + whole, whole + whole, 0},
		{"a torn last line is cut off", whole + torn, whole, int64(len(torn))},
		{"a torn line longer than a read block is cut off", whole + long, whole, int64(len(long))},
		{"a log whose only line is torn becomes empty", torn, "", int64(len(torn))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			l, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := l.Repaired(); got != tt.wantDropped {
				t.Errorf("Repaired() = %d, want %d", got, tt.wantDropped)
			}
			if err := l.Append(&Event{EventName: "Next", EventTime: time.Now(), RequestID: "2"}); err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(data), tt.wantKept) {
				t.Errorf("the whole lines before the torn one were not kept")
			}
			var names []string
			bad, err := Read(bytes.NewReader(data), Filter{}, func(e *Event) error {
				names = append(names, e.EventName)
				return nil
			})
			if err != nil || len(bad) > 0 {
				t.Fatalf("after the repair: bad lines %v, err %v", bad, err)
			}
			if len(names) == 0 || names[len(names)-1] != "Next" {
				t.Errorf("events %v, want the next append last and whole", names)
			}
		})
	}
}
