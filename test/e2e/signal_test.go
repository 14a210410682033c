package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"syscall"
	"testing"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/iam"
)

// TestSignalStopsGracefully checks that SIGTERM and SIGINT (Ctrl-C) stop
// leash local with status 0 and that the audit log then holds every request
// answered before the signal, by request ID: the log is buffered, and
// only a graceful stop flushes it.
func TestSignalStopsGracefully(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			p := startLocal(t, dir)
			id, secret := p.adminKey(t)
			admin := p.iam(id, secret)
			var requestIDs []string
			for range 3 {
				out, err := admin.ListUsers(ctx, &iam.ListUsersInput{})
				if err != nil {
					t.Fatalf("ListUsers: %v", err)
				}
				rid, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
				requestIDs = append(requestIDs, rid)
			}
			_, err := p.iam(id, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY").ListUsers(ctx, &iam.ListUsersInput{})
			if apiCode(err) != "SignatureDoesNotMatch" {
				t.Fatalf("ListUsers with a wrong secret: %v, want SignatureDoesNotMatch", err)
			}

			if code := p.stop(t, sig); code != 0 {
				t.Fatalf("exit status %d after %v, want 0\nstderr:\n%s", code, sig, p.stderr)
			}
			if !strings.Contains(p.stdout.String(), "leash local: stopped") {
				t.Errorf("no stop message:\n%s", p.stdout)
			}
			out, _ := runLeash(t, "audit", "--data", dir, "--output", "json")
			seen := map[string]bool{}
			var failures int
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var e struct {
					EventName, RequestID, ErrorCode string
				}
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("leash audit printed %q: %v", line, err)
				}
				seen[e.RequestID] = e.EventName == "ListUsers"
				if e.ErrorCode == "SignatureDoesNotMatch" {
					failures++
				}
			}
			for _, rid := range requestIDs {
				if !seen[rid] {
					t.Errorf("the audit log lacks ListUsers request %s:\n%s", rid, out)
				}
			}
			if failures != 1 {
				t.Errorf("the audit log has %d SignatureDoesNotMatch events, want 1:\n%s", failures, out)
			}
		})
	}
}

// TestAuditShowsRequestsWhileRunning checks that `leash audit` run beside
// a running leash local sees a request within a few seconds, without a
// stop to flush the log.
func TestAuditShowsRequestsWhileRunning(t *testing.T) {
	dir := t.TempDir()
	p := startLocal(t, dir)
	out, err := p.iam(p.adminKey(t)).ListUsers(context.Background(), &iam.ListUsersInput{})
	if err != nil {
		t.Fatalf("ListUsers: %v", err)
	}
	rid, _ := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
	deadline := time.Now().Add(5 * time.Second)
	for {
		log, _ := runLeash(t, "audit", "--data", dir, "--output", "json")
		if strings.Contains(log, rid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("leash audit lacks request %s 5s after it was answered:\n%s", rid, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
