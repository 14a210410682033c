package audit

import (
	"fmt"
	"time"
)

// FileName is the audit log's name in the local endpoint's data folder.
const FileName = "audit.jsonl"

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
