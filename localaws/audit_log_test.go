package localaws_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/sts"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/audit"
)

// auditEvents reads dir's audit log, failing the test on a bad line.
func auditEvents(t *testing.T, dir string) []audit.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var events []audit.Event
	bad, err := audit.Read(f, audit.Filter{}, func(e *audit.Event) error {
		events = append(events, *e)
		return nil
	})
	if err != nil || len(bad) > 0 {
		t.Fatalf("read the audit log: bad lines %v, err %v", bad, err)
	}
	return events
}

func logSize(t *testing.T, dir string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// TestAuditLogRepairAtStart pins that a torn last line (a crash in the
// middle of a write) is cut off at start, said in the operational log with
// the bytes dropped, and recorded in the audit log itself, which then
// reads without a bad line.
func TestAuditLogRepairAtStart(t *testing.T) {
	dir := t.TempDir()
	l, err := localaws.StartLoopback(localaws.Config{DataDir: dir, AccountID: account})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(l.URL + "/?Action=ListUsers&Version=2010-05-08"); err != nil {
		t.Fatal(err)
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	torn := `{"eventVersion":"1.08","eventTime":"2026-12-01T00:00:00Z","eventSource":"iam.amazonaws.com","eventName":"CreateUs`
	if err := os.WriteFile(filepath.Join(dir, audit.FileName), append(whole, torn...), 0o600); err != nil {
		t.Fatal(err)
	}

	var logged bytes.Buffer
	l, err = localaws.StartLoopback(localaws.Config{DataDir: dir, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(data, whole) || bytes.Contains(data, []byte("CreateUs")) {
		t.Errorf("the log after the repair does not keep the whole lines and drop the torn one:\n%s", data)
	}
	n := strconv.Itoa(len(torn))
	if !strings.Contains(logged.String(), "bytes="+n) {
		t.Errorf("the operational log does not say %s bytes were dropped:\n%s", n, logged.String())
	}
	events := auditEvents(t, dir)
	last := events[len(events)-1]
	if last.EventSource != "leash.local" || last.EventName != "AuditLogRepaired" || !strings.Contains(last.ErrorMessage, n+" bytes") {
		t.Errorf("last event %+v, want leash.local AuditLogRepaired naming %s bytes", last, n)
	}
}

// TestOversizedRequestsAreCappedInTheLog pins that what an unauthenticated
// request writes to the log is bounded: a 1 MB Action (echoed in the
// event name and the error message) and a 20 MB body (refused unread) each
// grow the log by at most audit.MaxLine, and in fact by about two capped
// values at most; the log reads back.
func TestOversizedRequestsAreCappedInTheLog(t *testing.T) {
	e := start(t)
	tests := []struct {
		name     string
		size     int
		wantCode string
	}{
		{"a 1 MB Action is echoed capped", 1_000_000, "InvalidAction"},
		// The server reads at most 1 MiB of a body (maxBody) and refuses a
		// larger one without reading the rest.
		{"a 20 MB body is refused unread", 20_000_000, "MalformedInput"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := logSize(t, e.dir)
			body := "Version=2010-05-08&Action=" + strings.Repeat("A", tt.size)
			resp, err := http.Post(e.url, "application/x-www-form-urlencoded", strings.NewReader(body))
			if err == nil {
				answer, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if !strings.Contains(string(answer), "<Code>"+tt.wantCode+"</Code>") {
					t.Errorf("answer %.300s, want %s", answer, tt.wantCode)
				}
			}
			// A client still sending a body the server refused may see the
			// connection closed instead of the answer; the log has it either
			// way.
			grown := logSize(t, e.dir) - before
			t.Logf("%d-byte request: the log grew by %d bytes", len(body), grown)
			if grown <= 0 || grown > audit.MaxLine || grown > 2*audit.MaxValue+4096 {
				t.Errorf("the log grew by %d bytes, want one line of at most two capped values (%d) and at most MaxLine", grown, 2*audit.MaxValue+4096)
			}
			events := auditEvents(t, e.dir)
			if got := events[len(events)-1]; got.ErrorCode != tt.wantCode {
				t.Errorf("last event's errorCode %q, want %q", got.ErrorCode, tt.wantCode)
			}
		})
	}
}

// TestAuditSessionContext pins the userIdentity of requests signed with
// temporary credentials as CloudTrail writes it: AssumedRole with the role
// as the session's issuer, and IAMUser with the user as the issuer for
// GetSessionToken's credentials; both with the session's creation date and
// mfaAuthenticated "false".
func TestAuditSessionContext(t *testing.T) {
	e := startSTS(t, localaws.Config{})
	ctx := context.Background()
	alice := e.user(t, "alice", allow("sts:AssumeRole"))
	roleARN := e.role(t, "reader", trustPrincipal("arn:aws:iam::"+stsAccount+":user/alice"), allow("iam:ListUsers"), 0)
	assumed, err := e.stsAs(alice).AssumeRole(ctx, &sts.AssumeRoleInput{RoleArn: aws.String(roleARN), RoleSessionName: aws.String("audit-1")})
	if err != nil {
		t.Fatal(err)
	}
	issued := time.Now()
	if _, err := e.iamAs(session(assumed.Credentials)).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Fatal(err)
	}
	token := e.sessionToken(t, alice)
	if _, err := e.whoAmI(token); err != nil {
		t.Fatal(err)
	}
	role, err := e.admin.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("reader")})
	if err != nil {
		t.Fatal(err)
	}
	user, err := e.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]audit.Event{}
	for _, ev := range auditEvents(t, e.dir) {
		byName[ev.EventName] = ev
	}
	tests := []struct {
		name, event, wantType string
		wantIssuer            audit.SessionIssuer
	}{
		{"a role session is AssumedRole, issued by the role", "ListUsers", "AssumedRole",
			audit.SessionIssuer{Type: "Role", PrincipalID: *role.Role.RoleId, ARN: roleARN, AccountID: stsAccount, UserName: "reader"}},
		{"GetSessionToken's credentials are IAMUser, issued by the user", "GetCallerIdentity", "IAMUser",
			audit.SessionIssuer{Type: "IAMUser", PrincipalID: *user.User.UserId, ARN: *user.User.Arn, AccountID: stsAccount, UserName: "alice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := byName[tt.event]
			if !ok {
				t.Fatalf("no %s event", tt.event)
			}
			id := ev.UserIdentity
			if id.Type != tt.wantType || id.SessionContext == nil || id.SessionContext.SessionIssuer == nil {
				t.Fatalf("userIdentity %+v, want type %s with a session context", id, tt.wantType)
			}
			if got := *id.SessionContext.SessionIssuer; got != tt.wantIssuer {
				t.Errorf("sessionIssuer %+v, want %+v", got, tt.wantIssuer)
			}
			a := id.SessionContext.Attributes
			if a.MFAAuthenticated != "false" {
				t.Errorf("mfaAuthenticated %q, want \"false\"", a.MFAAuthenticated)
			}
			near(t, "creationDate", a.CreationDate, issued)
		})
	}
	// A long-term key's requests have no session context.
	for _, ev := range auditEvents(t, e.dir) {
		if ev.EventName == "AssumeRole" && ev.UserIdentity.SessionContext != nil {
			t.Errorf("AssumeRole signed with alice's key has a session context: %+v", ev.UserIdentity.SessionContext)
		}
	}
}
