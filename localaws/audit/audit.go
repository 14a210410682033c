// Package audit is the local endpoint's trail of requests: one JSON line per
// request, shaped like a CloudTrail event so that the tools people already
// use on CloudTrail read it, and never holding a secret.
package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Event is one request. Field names follow CloudTrail's record format.
type Event struct {
	EventVersion    string    `json:"eventVersion"`
	EventTime       time.Time `json:"eventTime"`
	EventSource     string    `json:"eventSource"`
	EventName       string    `json:"eventName"`
	AWSRegion       string    `json:"awsRegion,omitempty"`
	SourceIPAddress string    `json:"sourceIPAddress,omitempty"`
	UserAgent       string    `json:"userAgent,omitempty"`
	UserIdentity    Identity  `json:"userIdentity"`
	// Resource is the ARN the request was authorized against.
	Resource     string `json:"resource,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`
	RequestID    string `json:"requestID"`
	EventID      string `json:"eventID"`
	ReadOnly     bool   `json:"readOnly"`
	// Decision is the policy engine's answer: Allowed, ExplicitDeny or
	// ImplicitDeny; empty when the request failed before authorization.
	Decision string `json:"decision,omitempty"`
}

// Identity is CloudTrail's userIdentity. An access key ID identifies a key
// and is logged by CloudTrail too; the secret and session token never are.
type Identity struct {
	Type        string `json:"type,omitempty"`
	PrincipalID string `json:"principalId,omitempty"`
	ARN         string `json:"arn,omitempty"`
	AccountID   string `json:"accountId,omitempty"`
	AccessKeyID string `json:"accessKeyId,omitempty"`
	UserName    string `json:"userName,omitempty"`
	// IdentityProvider names the issuer of a web identity token.
	IdentityProvider string `json:"identityProvider,omitempty"`
}

// Log appends events to a file, one JSON line each. It is safe for
// concurrent use.
type Log struct {
	mu sync.Mutex
	f  *os.File
	w  *bufio.Writer
}

// Open opens (or creates, mode 0600) the log at path for appending.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	return &Log{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Append writes one event. Lines are flushed by Flush and Close, and at
// least every time the buffer fills; a crash may lose the last buffered
// lines, never corrupt earlier ones.
func (l *Log) Append(e *Event) error {
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write audit log: %w", err)
	}
	return nil
}

// Flush writes buffered events to the file.
func (l *Log) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Flush()
}

// Close flushes and closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.w.Flush(), l.f.Close())
}

// Filter selects events; zero fields select everything.
type Filter struct {
	// Principal matches the identity's ARN exactly.
	Principal string
	// Since and Until bound the event time (Until exclusive).
	Since, Until time.Time
	// Denied keeps only refused requests.
	Denied bool
}

// Match reports whether the filter selects e.
func (f *Filter) Match(e *Event) bool {
	switch {
	case f.Principal != "" && e.UserIdentity.ARN != f.Principal:
		return false
	case !f.Since.IsZero() && e.EventTime.Before(f.Since):
		return false
	case !f.Until.IsZero() && !e.EventTime.Before(f.Until):
		return false
	case f.Denied && e.ErrorCode == "":
		return false
	}
	return true
}

// Read calls fn for each event of r that f selects, in order. A torn last
// line (a crash while writing) is skipped; a malformed line elsewhere is an
// error naming its line number.
func Read(r io.Reader, f Filter, fn func(*Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var pending error
	for n := 1; sc.Scan(); n++ {
		if pending != nil {
			return pending
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			pending = fmt.Errorf("audit log line %d: %v", n, err)
			continue
		}
		if f.Match(&e) {
			if err := fn(&e); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}
