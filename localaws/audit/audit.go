// Package audit is the local endpoint's trail of requests: one JSON line per
// request, shaped like a CloudTrail event so that the tools people already
// use on CloudTrail read it, and never holding a secret.
package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Event is one request. Field names, and which fields are always written,
// follow CloudTrail's record contents for management events
// (https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-record-contents.html):
// the fields it marks "Optional: False" carry no omitempty, so a reader
// finds each in every record, null where the request had none.
type Event struct {
	EventVersion    string    `json:"eventVersion"`
	UserIdentity    Identity  `json:"userIdentity"`
	EventTime       time.Time `json:"eventTime"`
	EventSource     string    `json:"eventSource"`
	EventName       string    `json:"eventName"`
	AWSRegion       string    `json:"awsRegion"`
	SourceIPAddress string    `json:"sourceIPAddress"`
	UserAgent       string    `json:"userAgent"`
	ErrorCode       string    `json:"errorCode,omitempty"`
	ErrorMessage    string    `json:"errorMessage,omitempty"`
	// RequestParameters are the request's parameters as CloudTrail writes
	// them (API names with a lower-case first letter, JSON values, no
	// secret); null when the request had none.
	RequestParameters json.RawMessage `json:"requestParameters"`
	// ResponseElements are the result of a call that changed state, as
	// CloudTrail writes it; null for reads and for failed calls.
	ResponseElements json.RawMessage `json:"responseElements"`
	// AdditionalEventData is CloudTrail's place for data that was neither
	// request nor response: leash local's authorization. Nil when the
	// request failed before authorization.
	AdditionalEventData *AdditionalData `json:"additionalEventData,omitempty"`
	RequestID           string          `json:"requestID"`
	EventID             string          `json:"eventID"`
	ReadOnly            bool            `json:"readOnly"`
	// Resources is CloudTrail's, read from its log files; leash local
	// names what it authorized in AdditionalEventData instead.
	Resources        []Resource `json:"resources,omitempty"`
	EventType        string     `json:"eventType"`
	ManagementEvent  bool       `json:"managementEvent"`
	RecipientAccount string     `json:"recipientAccountId,omitempty"`
	EventCategory    string     `json:"eventCategory"`

	// raw is the record as it was read, every field of it, those Event
	// does not hold included (CloudTrail's invokedBy, sharedEventID,
	// tlsDetails...): what Record gives back.
	raw json.RawMessage
}

// Record is the event as CloudTrail JSON on one line: the record as it was
// read, whole and unchanged but for white space, or for an event built in
// memory its encoding.
func (e *Event) Record() ([]byte, error) {
	if e.raw != nil {
		var b bytes.Buffer
		if err := json.Compact(&b, e.raw); err != nil {
			return nil, fmt.Errorf("encode audit event: %w", err)
		}
		return b.Bytes(), nil
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("encode audit event: %w", err)
	}
	return b, nil
}

// AdditionalData is leash local's additionalEventData. Records of
// CloudTrail's own carry other keys there, which are not kept.
type AdditionalData struct {
	// Decision is the policy engine's answer: Allowed, ExplicitDeny or
	// ImplicitDeny.
	Decision string `json:"decision,omitempty"`
	// AuthorizedResource is the ARN the request was authorized against.
	AuthorizedResource string `json:"authorizedResource,omitempty"`
}

// UnmarshalJSON reads an object and ignores anything else: the field is
// free-form in CloudTrail's records, and one odd record must not hide the
// rest of a trail.
func (a *AdditionalData) UnmarshalJSON(b []byte) error {
	type plain AdditionalData
	var p plain
	if json.Unmarshal(b, &p) == nil {
		*a = AdditionalData(p)
	}
	return nil
}

// Decision is the policy engine's answer to the request, "" when it was
// not authorized.
func (e *Event) Decision() string {
	if e.AdditionalEventData == nil {
		return ""
	}
	return e.AdditionalEventData.Decision
}

// AuthorizedResource is the ARN the request was authorized against, "" when
// it was not authorized.
func (e *Event) AuthorizedResource() string {
	if e.AdditionalEventData == nil {
		return ""
	}
	return e.AdditionalEventData.AuthorizedResource
}

// UnmarshalJSON reads a record, and the logs leash local wrote before it
// moved its own fields into additionalEventData: those have top-level
// "resource" and "decision", which are read into AdditionalEventData.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var rec struct {
		plain
		LegacyResource string `json:"resource"`
		LegacyDecision string `json:"decision"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return err
	}
	*e = Event(rec.plain)
	e.raw = append(json.RawMessage(nil), b...)
	if (rec.LegacyResource != "" || rec.LegacyDecision != "") && e.AdditionalEventData == nil {
		e.AdditionalEventData = &AdditionalData{Decision: rec.LegacyDecision, AuthorizedResource: rec.LegacyResource}
	}
	return nil
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
