package cli

import (
	"bytes"
	"context"
	"path/filepath"
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
		{EventTime: now.Add(-3 * time.Hour), EventSource: "iam.amazonaws.com", EventName: "CreateUser", UserIdentity: audit.Identity{ARN: "arn:aws:iam::111122223333:user/admin"}, Decision: "Allowed", RequestID: "r1"},
		{EventTime: now.Add(-time.Minute), EventSource: "iam.amazonaws.com", EventName: "GetUser", UserIdentity: audit.Identity{ARN: alice}, Resource: alice, Decision: "Allowed", RequestID: "r2"},
		{EventTime: now, EventSource: "iam.amazonaws.com", EventName: "ListUsers", UserIdentity: audit.Identity{ARN: alice}, Decision: "ImplicitDeny", ErrorCode: "AccessDenied", RequestID: "r3"},
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
