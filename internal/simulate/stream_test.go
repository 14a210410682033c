package simulate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"leash.dev/leash/internal/cli"
	"leash.dev/leash/internal/simulate"
)

// batchRequest is request i of a generated batch and the decision it must
// get: even requests are allowed, odd ones denied implicitly (the policy
// allows another action), and every tenth explicitly (a Deny statement).
func batchRequest(i int) (string, string) {
	bucket := fmt.Sprintf("arn:aws:s3:::bucket-%d/key", i)
	allow := fmt.Sprintf(`{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::bucket-%d/*"}`, i)
	action, want := "s3:GetObject", "Allowed"
	if i%2 == 1 {
		action, want = "s3:PutObject", "ImplicitDeny"
	}
	stmts := allow
	if i%10 == 0 {
		stmts += `, {"Effect": "Deny", "Action": "s3:*", "Resource": "*"}`
		want = "ExplicitDeny"
	}
	doc := fmt.Sprintf(`{"Version": "2012-10-17", "Statement": [%s]}`, stmts)
	scp := `{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}`
	return fmt.Sprintf(`{"principal": "arn:aws:iam::111122223333:user/u%d", "action": %q, "resource": %q, "identityPolicies": [{"name": "p-%d", "document": %s}], "scps": [[{"name": "FullAWSAccess", "document": %s}]]}`,
		i, action, bucket, i, doc, scp), want
}

// badRequest has a policy the engine refuses: NumericLessThan needs a number.
const badRequest = `{"action": "s3:GetObject", "identityPolicies": [{"name": "bad", "document": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", "Condition": {"NumericLessThan": {"s3:max-keys": "soon"}}}]}}]}`

// writeBatch writes n requests with the bad one at position bad, as an array
// or as JSON Lines, and returns the file and the decisions wanted.
func writeBatch(t *testing.T, n, bad int, lines bool) (string, []string) {
	t.Helper()
	var b strings.Builder
	want := make([]string, n)
	if !lines {
		b.WriteString("[\n")
	}
	for i := range n {
		req, decision := batchRequest(i)
		if i == bad {
			req, decision = badRequest, simulate.DecisionError
		}
		want[i] = decision
		b.WriteString(req)
		if !lines && i < n-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	if !lines {
		b.WriteString("]\n")
	}
	file := filepath.Join(t.TempDir(), "batch.json")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, want
}

func TestSimulateBatchDecidesPastABadRequest(t *testing.T) {
	tests := []struct {
		name    string
		lines   bool
		wantErr string // the bad request's error names the file and this path
	}{
		{name: "in an array the bad request is named by its index", wantErr: ": [500].identityPolicies[0].document: Statement[0].Condition.NumericLessThan"},
		{name: "in JSON Lines the bad request is named by its line", lines: true, wantErr: ": line 501: identityPolicies[0].document: Statement[0].Condition.NumericLessThan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, want := writeBatch(t, 1000, 500, tt.lines)
			code, stdout, stderr := leash(t, "", "simulate", "--request", file, "--output", "json")
			if code != 2 {
				t.Errorf("exit status %d, want 2 (a bad request)", code)
			}
			if !strings.Contains(stderr, "1 of 1000 requests could not be decided") || !strings.Contains(stderr, file+tt.wantErr) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line naming the count and the first bad request:\n%s", stderr)
			}
			var out []simulate.Outcome
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("stdout is not a JSON array: %v", err)
			}
			if len(out) != len(want) {
				t.Fatalf("%d outcomes, want %d", len(out), len(want))
			}
			for i, o := range out {
				if o.Decision != want[i] {
					t.Errorf("[%d] decision %s, want %s (error %q)", i, o.Decision, want[i], o.Error)
				}
				if (o.Error != "") != (i == 500) {
					t.Errorf("[%d] error %q", i, o.Error)
				}
			}
			if got := out[500].Error; !strings.HasPrefix(got, file+tt.wantErr) || !strings.Contains(got, `"soon"`) {
				t.Errorf("the bad request's error = %q, want the file, %q and the value", got, tt.wantErr)
			}
		})
	}
}

func TestSimulateRequestExitStatus(t *testing.T) {
	allow, _ := batchRequest(0 + 2)
	deny, _ := batchRequest(1)
	tests := []struct {
		name  string
		stdin string
		want  int
	}{
		{"all allowed exits 0", allow, 0},
		{"a denial exits 1", allow + "\n" + deny, 1},
		{"a bad request exits 2 even after a denial", deny + "\n" + badRequest + "\n" + allow, 2},
		{"an unknown field is a bad request, not the end of the batch", `{"action": "s3:GetObject", "identity": []}` + "\n" + allow, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := leash(t, tt.stdin, "simulate", "--request", "-", "--output", "json")
			if code != tt.want {
				t.Errorf("exit status %d, want %d\nstderr: %s", code, tt.want, stderr)
			}
			var out []simulate.Outcome
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != strings.Count(tt.stdin, "\n")+1 {
				t.Errorf("want one outcome per request, got %d (%v):\n%s", len(out), err, stdout)
			}
		})
	}
}

func TestSimulateRequestErrorOutcome(t *testing.T) {
	t.Run("a lone bad object is named without a line", func(t *testing.T) {
		code, stdout, stderr := leash(t, `{"action": "s3:GetObject", "identity": []}`, "simulate", "--request", "-", "--output", "json")
		var out []simulate.Outcome
		if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != 1 {
			t.Fatalf("want one outcome: %v\n%s", err, stdout)
		}
		if code != 2 || out[0].Decision != "Error" || out[0].Action != "s3:GetObject" ||
			!strings.HasPrefix(out[0].Error, `stdin: not a request object: json: unknown field "identity"`) || !strings.Contains(out[0].Error, "identityPolicies") {
			t.Errorf("exit %d, outcome %+v, stderr %s", code, out[0], stderr)
		}
	})
	t.Run("the table prints the error under the row", func(t *testing.T) {
		code, stdout, _ := leash(t, "", "simulate", "--request", td+"requests-bad-effect.json")
		want := "" +
			"DECISION      ACTION                            RESOURCE  PRINCIPAL\n" +
			"Allowed       s3:GetObject                      *\n" +
			"Error         s3:GetObject                      *\n" +
			`    testdata/requests-bad-effect.json: [1].identityPolicies[0].document: Statement[0].Effect: must be "Allow" or "Deny", got "allow "` + "\n"
		if code != 2 || stdout != want {
			t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, stdout, want)
		}
	})
	t.Run("JSON that is not well formed ends the batch and closes the array", func(t *testing.T) {
		allow, _ := batchRequest(0)
		code, stdout, stderr := leash(t, "["+allow+", {\"action\": ]", "simulate", "--request", "-", "--output", "json")
		var out []simulate.Outcome
		if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != 1 {
			t.Errorf("want the one answer before the break, as a valid array: %v\n%s", err, stdout)
		}
		if code != 2 || !strings.Contains(stderr, "stdin: request 2: not valid JSON at line 1") {
			t.Errorf("exit %d, stderr %s", code, stderr)
		}
	})
}

// signalWriter reports its first write.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf.Len() == 0 && len(p) > 0 {
		close(w.first)
	}
	return w.buf.Write(p)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestSimulateStreamsAnswersBeforeTheInputEnds feeds requests through a pipe
// and holds the rest back until the first answer is written: a reader that
// waited for the whole input would never answer.
func TestSimulateStreamsAnswersBeforeTheInputEnds(t *testing.T) {
	first, _ := batchRequest(2)
	second, _ := batchRequest(1)
	tests := []struct {
		name, output, head, tail, wantFirst string
	}{
		{"a JSON array", "json", "[" + first, "," + second + "]", "[\n  {\n"},
		{"JSON Lines", "json", first + "\n", second + "\n", "[\n  {\n"},
		{"a table", "table", first + "\n", second + "\n", "DECISION      ACTION"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			out := &signalWriter{first: make(chan struct{})}
			done := make(chan int)
			go func() {
				done <- cli.Run(context.Background(), []string{"simulate", "--request", "-", "--output", tt.output}, pr, out, io.Discard)
			}()
			if _, err := io.WriteString(pw, tt.head); err != nil {
				t.Fatal(err)
			}
			select {
			case <-out.first:
			case <-time.After(10 * time.Second):
				pw.CloseWithError(io.ErrUnexpectedEOF)
				<-done
				t.Fatal("no answer was written while the input was still open")
			}
			if got := out.String(); !strings.HasPrefix(got, tt.wantFirst) || !strings.Contains(got, "Allowed") {
				t.Errorf("first write = %q", got)
			}
			if _, err := io.WriteString(pw, tt.tail); err != nil {
				t.Fatal(err)
			}
			_ = pw.Close()
			if code := <-done; code != 1 {
				t.Errorf("exit status %d, want 1 (the second request is denied)\n%s", code, out.String())
			}
			if strings.Count(out.String(), "ImplicitDeny") != 1 {
				t.Errorf("the second answer is missing:\n%s", out.String())
			}
		})
	}
}

// BenchmarkStream times --request --output json over a file of 2,000
// requests, each with its own identity policy and a shared SCP, as a
// request rate of the whole streamed run (read, decide, write).
func BenchmarkStream(b *testing.B) {
	var buf strings.Builder
	const n = 2000
	for i := range n {
		req, _ := batchRequest(i)
		buf.WriteString(req)
		buf.WriteString("\n")
	}
	file := filepath.Join(b.TempDir(), "batch.jsonl")
	if err := os.WriteFile(file, []byte(buf.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for b.Loop() {
		err := simulate.Execute(simulate.Options{Request: file, Output: simulate.OutputJSON}, nil, io.Discard)
		if err != simulate.ErrDenied {
			b.Fatalf("Execute = %v, want ErrDenied", err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/request")
}
