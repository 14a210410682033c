package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"leash.dev/leash/localaws/audit"
)

func TestAuditCommand(t *testing.T) {
	dir := t.TempDir()
	l, err := audit.Open(filepath.Join(dir, audit.FileName))
	if err != nil {
		t.Fatal(err)
	}
	alice := "arn:aws:iam::111122223333:user/alice"
	now := time.Now().UTC()
	for _, e := range []audit.Event{
		{EventTime: now.Add(-3 * time.Hour), EventSource: "iam.amazonaws.com", EventName: "CreateUser", UserIdentity: audit.Identity{ARN: "arn:aws:iam::111122223333:user/admin"}, AdditionalEventData: &audit.AdditionalData{Decision: "Allowed"}, RequestID: "r1"},
		{EventTime: now.Add(-time.Minute), EventSource: "iam.amazonaws.com", EventName: "GetUser", UserIdentity: audit.Identity{ARN: alice}, AdditionalEventData: &audit.AdditionalData{AuthorizedResource: alice, Decision: "Allowed"}, RequestID: "r2"},
		{EventTime: now, EventSource: "iam.amazonaws.com", EventName: "ListUsers", UserIdentity: audit.Identity{ARN: alice}, AdditionalEventData: &audit.AdditionalData{Decision: "ImplicitDeny"}, ErrorCode: "AccessDenied", RequestID: "r3"},
	} {
		if err := l.Append(&e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		status     int
		want, miss []string
	}{
		{"one principal in the last hour", []string{"--data", dir, "--principal", alice, "--since", "1h"}, ExitOK,
			[]string{"TIME", "iam:GetUser", "iam:ListUsers", "AccessDenied"}, []string{"CreateUser"}},
		{"denied only, as JSON lines", []string{"--data", dir, "--denied", "--output", "json"}, ExitOK,
			[]string{`"requestID":"r3"`}, []string{`"r2"`, "TIME"}},
		{"bad --since", []string{"--data", dir, "--since", "yesterday"}, ExitBadInput, []string{"--since", "RFC 3339"}, nil},
		{"no trail named", []string{"--since", "1h"}, ExitBadInput, []string{"--data DIR", "--trail-dir DIR", "--endpoint URL", "--aws"}, nil},
		{"two trails named", []string{"--data", dir, "--trail-dir", dir}, ExitBadInput, []string{"--data and --trail-dir both name a trail"}, nil},
		{"credentials without LookupEvents", []string{"--data", dir, "--credentials-file", "x"}, ExitBadInput, []string{"use them with --endpoint or --aws"}, nil},
		{"not an ARN", []string{"--data", dir, "--principal", "alice"}, ExitBadInput, []string{"--principal", "not the ARN"}, nil},
		{"window ends before it starts", []string{"--data", dir, "--since", "1h", "--until", "2h"}, ExitBadInput, []string{"is not before --until"}, nil},
		{"bad --issued-before", []string{"--data", dir, "--issued-before", "soon"}, ExitBadInput, []string{"--issued-before", "RFC 3339"}, nil},
		{"a folder without a log", []string{"--data", t.TempDir()}, ExitBadInput, []string{"no audit log there"}, nil},
		{"bad --output", []string{"--data", dir, "--output", "yaml"}, ExitBadInput, []string{`output "yaml"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			status := Run(context.Background(), append([]string{"audit"}, tt.args...), nil, &out, &errOut)
			if status != tt.status {
				t.Fatalf("status %d, want %d; stderr: %s", status, tt.status, errOut.String())
			}
			all := out.String() + errOut.String()
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, m := range tt.miss {
				if strings.Contains(all, m) {
					t.Errorf("output has %q:\n%s", m, all)
				}
			}
		})
	}
}

// TestAuditOverCloudTrailFiles runs leash audit over the hand-made
// CloudTrail fixture: the incident question (what did the CI role's
// sessions issued before the revoke do) as a table and as JSON lines, and
// the refusals of a LookupEvents trail without a key.
func TestAuditOverCloudTrailFiles(t *testing.T) {
	const (
		fixture = "../../examples/audit/trail"
		role    = "arn:aws:iam::111122223333:role/ci/ci-deploy"
	)
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		status := Run(context.Background(), append([]string{"audit"}, args...), nil, &out, &errOut)
		return out.String(), errOut.String(), status
	}
	t.Run("the table of the old sessions' calls", func(t *testing.T) {
		out, errOut, status := run("--trail-dir", fixture, "--principal", role, "--issued-before", "2026-11-29T13:00:00Z")
		if status != ExitOK || errOut != "" {
			t.Fatalf("status %d, stderr %q", status, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 6 {
			t.Fatalf("%d lines, want a header and 5 calls:\n%s", len(lines), out)
		}
		for _, col := range []string{"TIME", "PRINCIPAL", "SESSION ISSUED", "ACTION", "RESOURCE", "SOURCE IP", "USER AGENT", "ERROR", "DECISION"} {
			if !strings.Contains(lines[0], col) {
				t.Errorf("header %q lacks %s", lines[0], col)
			}
		}
		denied := lines[5]
		for _, want := range []string{"2026-11-29T12:06:30Z", "assumed-role/ci-deploy/gha-run-101", "2026-11-29T12:00:05Z", "s3:GetObject", "arn:aws:s3:::example-prod-secrets/db/password.txt", "192.0.2.10", "aws-cli/2.17.20", "AccessDenied"} {
			if !strings.Contains(denied, want) {
				t.Errorf("the denied call's row %q lacks %q", denied, want)
			}
		}
		if strings.Contains(out, "gha-run-102") || strings.Contains(out, "ci-deploy-staging") {
			t.Errorf("the table has a session it should not:\n%s", out)
		}
	})
	t.Run("JSON lines are the records", func(t *testing.T) {
		out, _, status := run("--trail-dir", fixture, "--principal", role, "--denied", "--output", "json")
		if status != ExitOK {
			t.Fatalf("status %d", status)
		}
		var codes []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e audit.Event
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("line %q is not a record: %v", line, err)
			}
			codes = append(codes, e.ErrorCode)
		}
		if want := []string{"AccessDenied", "Client.UnauthorizedOperation"}; !slices.Equal(codes, want) {
			t.Errorf("denied calls' codes %v, want %v", codes, want)
		}
	})
	t.Run("a bad file is reported and skipped", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "torn.json"), []byte(`{"Records":[{"eventID":`), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errOut, status := run("--trail-dir", dir)
		if status != ExitOK || !strings.Contains(errOut, "skipped "+filepath.Join(dir, "torn.json")) {
			t.Errorf("status %d, stderr %q; want 0 and the file reported", status, errOut)
		}
	})
	t.Run("LookupEvents without a key", func(t *testing.T) {
		var out, errOut bytes.Buffer
		o := auditOptions{fromAWS: true, output: "table", getenv: func(string) string { return "" }}
		err := runAudit(context.Background(), o, &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
			t.Errorf("error %v, want one naming the key to set", err)
		}
	})
	t.Run("--trail-dir that is not a folder", func(t *testing.T) {
		_, errOut, status := run("--trail-dir", filepath.Join(fixture, "README.md"))
		if status != ExitBadInput || !strings.Contains(errOut, "not a folder") {
			t.Errorf("status %d, stderr %q", status, errOut)
		}
	})
}
