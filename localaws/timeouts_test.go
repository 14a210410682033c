package localaws_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/iam"

	"leash.dev/leash/localaws"
	"leash.dev/leash/localaws/faults"
	"leash.dev/leash/localaws/localtest"
)

// stalledBody opens a connection and sends a request's headers and the
// start of a body that never finishes.
func stalledBody(t *testing.T, addr string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: "+addr+"\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nAction=ListUs")
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestStalledConnectionsAreClosed pins the read and idle timeouts: 300
// connections that send headers and part of a body are each answered 400
// RequestTimeout in AWS's words and closed within the read timeout, while
// the endpoint goes on answering others; a connection that sends nothing,
// and a kept-alive one left idle, are closed too.
func TestStalledConnectionsAreClosed(t *testing.T) {
	const read, idle = 500 * time.Millisecond, 1500 * time.Millisecond
	e := localtest.Start(t, localaws.Config{Timeouts: localaws.Timeouts{Read: read, Write: 5 * time.Second, Idle: idle}})
	addr := strings.TrimPrefix(e.URL, "http://")
	ctx := context.Background()

	t.Run("300 stalled bodies are answered RequestTimeout and closed; others are served", func(t *testing.T) {
		const n = 300
		began := time.Now()
		conns := make([]net.Conn, n)
		for i := range conns {
			conns[i] = stalledBody(t, addr)
		}
		if _, err := e.IAM(nil).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
			t.Fatalf("ListUsers beside %d stalled connections: %v", n, err)
		}
		var wg sync.WaitGroup
		errs := make(chan string, n)
		for _, conn := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Well past the read timeout: a connection still open then
				// is one the timeout did not close.
				_ = conn.SetReadDeadline(time.Now().Add(read + 10*time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					errs <- "reading the answer: " + err.Error()
					return
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "<Code>RequestTimeout</Code>") ||
					!strings.Contains(string(body), "Your socket connection to the server was not read from or written to within the timeout period.") {
					errs <- resp.Status + " " + string(body)
					return
				}
				if _, err := conn.Read(make([]byte, 1)); err != io.EOF {
					errs <- "the connection stayed open after the answer: " + errString(err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for msg := range errs {
			t.Error(msg)
		}
		if took := time.Since(began); took > read+8*time.Second {
			t.Errorf("closing %d stalled connections took %v; the read timeout is %v", n, took, read)
		}
		if _, err := e.IAM(nil).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
			t.Fatalf("ListUsers after the stalled connections: %v", err)
		}
	})

	t.Run("a connection that sends nothing is closed", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		waitClosed(t, conn, read)
	})

	t.Run("a kept-alive connection left idle is closed", func(t *testing.T) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		// An unsigned request is answered at once (MissingAuthenticationToken)
		// and leaves the connection open for the next.
		form := url.Values{"Action": {"ListUsers"}, "Version": {"2010-05-08"}}.Encode()
		req := "POST / HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
			"Content-Length: " + strconv.Itoa(len(form)) + "\r\n\r\n" + form
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.Close {
			t.Fatal("the server closed a complete request's connection at once; want it kept alive")
		}
		waitClosed(t, conn, idle)
	})
}

// waitClosed fails unless the server closes conn after about timeout.
func waitClosed(t *testing.T, conn net.Conn, timeout time.Duration) {
	t.Helper()
	began := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(timeout + 10*time.Second))
	_, err := io.Copy(io.Discard, conn)
	if err != nil {
		t.Fatalf("the connection was not closed within %v: %v", timeout+10*time.Second, err)
	}
	if took := time.Since(began); took < timeout*3/4 {
		t.Errorf("closed after %v, well before the timeout %v", took, timeout)
	}
}

func errString(err error) string {
	if err == nil {
		return "read a byte"
	}
	return err.Error()
}

// TestTimeoutsAreValidated pins that a negative timeout, and a write
// timeout the latency fault would always outlast, are refused with the
// setting named, and that zero takes the default.
func TestTimeoutsAreValidated(t *testing.T) {
	cases := []struct {
		name    string
		t       localaws.Timeouts
		latency time.Duration
		want    string
	}{
		{"zero takes the defaults", localaws.Timeouts{}, 0, ""},
		{"a negative read timeout is refused", localaws.Timeouts{Read: -time.Second}, 0, "read timeout -1s: must be positive"},
		{"a negative write timeout is refused", localaws.Timeouts{Write: -time.Second}, 0, "write timeout -1s: must be positive"},
		{"a negative idle timeout is refused", localaws.Timeouts{Idle: -time.Second}, 0, "idle timeout -1s: must be positive"},
		{"a write timeout equal to the latency is refused", localaws.Timeouts{Write: time.Second}, time.Second, "write timeout 1s is not longer than the latency 1s"},
		{"the default write timeout is held to the latency too", localaws.Timeouts{}, localaws.DefaultWriteTimeout, "is not longer than the latency"},
		{"a write timeout longer than the latency is taken", localaws.Timeouts{Write: 2 * time.Second}, time.Second, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.t.Validate(tc.latency)
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
			dir := t.TempDir()
			srv, err := localaws.Open(localaws.Config{DataDir: dir, Timeouts: tc.t, Faults: faults.Config{Latency: tc.latency}})
			if err == nil {
				_ = srv.Close()
			}
			if (err == nil) != (tc.want == "") {
				t.Fatalf("Open: %v, want %q", err, tc.want)
			}
			if tc.want != "" {
				if entries, _ := os.ReadDir(dir); len(entries) > 0 {
					t.Errorf("the refused Open left %d files in the data folder", len(entries))
				}
			}
		})
	}
}

// TestBodyOverTheLimitIsRefused pins the body read limit: a body past
// 1 MiB is refused MalformedInput and its connection closed, not read on.
func TestBodyOverTheLimitIsRefused(t *testing.T) {
	e := localtest.Start(t, localaws.Config{})
	body := "Action=ListUsers&Version=2010-05-08&Pad=" + strings.Repeat("a", 1<<20)
	resp, err := http.Post(e.URL, "application/x-www-form-urlencoded", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), "<Code>MalformedInput</Code>") ||
		!strings.Contains(string(got), "larger than 1048576 bytes") {
		t.Fatalf("%s %s", resp.Status, got)
	}
	if !resp.Close {
		t.Error("the connection is kept alive after a body over the limit")
	}
}

// TestAnswerPastTheWriteTimeoutIsCut pins the write timeout: a request whose
// work outlasts it gets no answer, its connection is closed, and the next
// request is served.
func TestAnswerPastTheWriteTimeoutIsCut(t *testing.T) {
	const write = 300 * time.Millisecond
	e := localtest.Start(t, localaws.Config{
		Timeouts: localaws.Timeouts{Write: write},
		AfterCall: func(action, _ string) {
			if action == "ListRoles" {
				time.Sleep(3 * write)
			}
		},
	})
	ctx := context.Background()
	began := time.Now()
	_, err := e.IAM(nil).ListRoles(ctx, &iam.ListRolesInput{})
	if err == nil || apiCode(err) != "" {
		t.Fatalf("ListRoles working past the write timeout: %v, want the connection cut with no answer", err)
	}
	if took := time.Since(began); took > 10*write {
		t.Errorf("the cut took %v", took)
	}
	if _, err := e.IAM(nil).ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Fatalf("ListUsers after the cut: %v", err)
	}
}
