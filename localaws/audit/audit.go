// Package audit is the local endpoint's trail of requests: one JSON line per
// request, shaped like a CloudTrail event so that the tools people already
// use on CloudTrail read it, and never holding a secret.
package audit

import (
	"bufio"
	"encoding/json"
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
	// Resource is the ARN the request was authorized against (leash
	// local's own field; CloudTrail lists resources in Resources).
	Resource string `json:"resource,omitempty"`
	// Resources and RequestParameters are CloudTrail's, read from its log
	// files; leash local does not write them.
	Resources         []Resource      `json:"resources,omitempty"`
	RequestParameters json.RawMessage `json:"requestParameters,omitempty"`
	EventType         string          `json:"eventType,omitempty"`
	RecipientAccount  string          `json:"recipientAccountId,omitempty"`
	ErrorCode         string          `json:"errorCode,omitempty"`
	ErrorMessage      string          `json:"errorMessage,omitempty"`
	RequestID         string          `json:"requestID"`
	EventID           string          `json:"eventID"`
	ReadOnly          bool            `json:"readOnly"`
	// Decision is the policy engine's answer: Allowed, ExplicitDeny or
	// ImplicitDeny; empty when the request failed before authorization.
	Decision string `json:"decision,omitempty"`
}

// Resource is one entry of CloudTrail's resources list.
type Resource struct {
	ARN       string `json:"ARN,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	Type      string `json:"type,omitempty"`
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
	// SessionContext is set for temporary credentials: when the session
	// was issued, and the role or user it was issued for.
	SessionContext *SessionContext `json:"sessionContext,omitempty"`
}

// SessionContext is CloudTrail's userIdentity.sessionContext.
type SessionContext struct {
	Attributes    SessionAttributes `json:"attributes"`
	SessionIssuer *SessionIssuer    `json:"sessionIssuer,omitempty"`
	// SourceIdentity is the session's source identity, carried through
	// role chains unchanged.
	SourceIdentity string `json:"sourceIdentity,omitempty"`
}

// SessionAttributes says when a session was issued and whether it was
// authenticated with MFA ("true" or "false", as CloudTrail writes it).
type SessionAttributes struct {
	CreationDate     time.Time `json:"creationDate"`
	MFAAuthenticated string    `json:"mfaAuthenticated"`
}

// SessionIssuer is the role (or user) a session was issued for.
type SessionIssuer struct {
	Type        string `json:"type"`
	PrincipalID string `json:"principalId"`
	ARN         string `json:"arn"`
	AccountID   string `json:"accountId"`
	UserName    string `json:"userName"`
}

// Log appends events to a file, one JSON line each. It is safe for
// concurrent use.
//
// Append writes each line with one write(2) before it returns, and leash
// local appends a request's event before it writes the response: a request
// that was answered is in the file even if the process is killed the next
// moment. The line is not synced to disk (that would cost a disk flush per
// request), so a power loss or an operating system crash can still lose
// the last lines; a process crash cannot. A process killed in the middle
// of a write leaves at most a torn last line, which Open repairs.
type Log struct {
	mu sync.Mutex
	f  *os.File
	// repaired is how many bytes of a torn last line Open dropped.
	repaired int64
}

// Open opens (or creates, mode 0600) the log at path for appending. A torn
// last line, left by a process killed in the middle of a write, is cut off
// first, so that the next line does not run into it; Repaired says how
// many bytes went.
func Open(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	dropped, err := repairTail(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("open audit log %s: %w", path, err)
	}
	return &Log{f: f, repaired: dropped}, nil
}

// Repaired is how many bytes of a torn last line Open cut off; 0 when the
// log ended with a whole line.
func (l *Log) Repaired() int64 { return l.repaired }

// Append writes one event as one line, with one write(2). It caps the
// event's values in place first (see MaxValue), so that no request writes
// more than MaxLine.
func (l *Log) Append(e *Event) error {
	limit(e)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode audit event: %w", err)
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(line); err != nil {
		return fmt.Errorf("write audit log: %w", err)
	}
	return nil
}

// Close closes the file; every appended line is already in it.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// Filter selects events; zero fields select everything.
type Filter struct {
	// Principal selects the calls of a principal and of the sessions
	// derived from it, as Selects decides.
	Principal string
	// Since and Until bound the event time (Until exclusive).
	Since, Until time.Time
	// Denied keeps only refused requests.
	Denied bool
	// IssuedBefore keeps only calls made with a session issued before it:
	// after a revoke, what the sessions it ended did.
	IssuedBefore time.Time
	// EventName keeps only calls of that API action, such as AssumeRole.
	EventName string
}

// Match reports whether the filter selects e.
func (f *Filter) Match(e *Event) bool {
	switch {
	case !Selects(f.Principal, &e.UserIdentity):
		return false
	case !f.IssuedBefore.IsZero() && !e.UserIdentity.IssuedBefore(f.IssuedBefore):
		return false
	case !f.Since.IsZero() && e.EventTime.Before(f.Since):
		return false
	case !f.Until.IsZero() && !e.EventTime.Before(f.Until):
		return false
	case f.Denied && e.ErrorCode == "":
		return false
	case f.EventName != "" && e.EventName != f.EventName:
		return false
	}
	return true
}

// BadLine is a line Read could not parse: its number and why.
type BadLine struct {
	Line int
	Err  error
}

func (b BadLine) String() string { return fmt.Sprintf("line %d: %v", b.Line, b.Err) }

// Read calls fn for each event of r that f selects, in order. Lines may be
// of any length. A line that is not an event (a torn line left by a crash,
// a foreign line) is skipped and returned in bad, so one bad line never
// hides the rest of the trail.
func Read(r io.Reader, f Filter, fn func(*Event) error) (bad []BadLine, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if len(line) > 0 {
			var e Event
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				bad = append(bad, BadLine{Line: n, Err: jerr})
			} else if f.Match(&e) {
				if err := fn(&e); err != nil {
					return bad, err
				}
			}
		}
		if rerr == io.EOF {
			return bad, nil
		}
		if rerr != nil {
			return bad, fmt.Errorf("read audit log: %w", rerr)
		}
	}
}
