package simulate_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/internal/simulate"
)

// A stream compiles a document once and shares it among the requests that
// repeat its bytes, whatever they name it and at whatever organization
// level they put it: its answers are byte for byte those of compiling each
// request on its own (ReadCases and Run), names and levels included, in
// input order however the workers finish.
func TestStreamSharesCompiledDocumentsAsCompilingEachRequest(t *testing.T) {
	allow := `{"Version": "2012-10-17", "Statement": [{"Sid": "Read", "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"], "Resource": "*"}]}`
	deny := `{"Version": "2012-10-17", "Statement": [{"Sid": "NoPut", "Effect": "Deny", "Action": "s3:PutObject", "Resource": "arn:aws:s3:::locked/*"}]}`
	full := `{"Version": "2012-10-17", "Statement": [{"Sid": "All", "Effect": "Allow", "Action": "*", "Resource": "*"}]}`
	getOnly := `{"Version": "2012-10-17", "Statement": [{"Sid": "GetOnly", "Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}]}`
	var b strings.Builder
	for i := range 300 {
		action := []string{"s3:GetObject", "s3:PutObject"}[i%2]
		bucket := []string{"open", "locked"}[i/2%2]
		// The same bytes under a name of each request's own, at level 0
		// or 1, in an SCP level that allows or blocks.
		scps := fmt.Sprintf(`[[{"name": "root-%d", "document": %s}]]`, i%7, full)
		if i%3 == 0 {
			scps = fmt.Sprintf(`[[{"name": "root", "document": %s}], [{"name": "ou-%d", "document": %s}, {"document": %s}]]`, full, i%5, getOnly, deny)
		}
		fmt.Fprintf(&b, `{"principal": "arn:aws:iam::111122223333:user/u%d", "action": %q, "resource": "arn:aws:s3:::%s/k", "identityPolicies": [{"name": "policy-%d", "document": %s}, {"document": %s}], "permissionsBoundary": %s, "scps": %s}`+"\n",
			i, action, bucket, i%11, allow, deny, allow, scps)
	}
	file := filepath.Join(t.TempDir(), "batch.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cases, err := simulate.ReadCases([]byte(b.String()), file)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := simulate.Run(cases, file)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := simulate.WriteJSON(&want, outcomes); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := simulate.Execute(simulate.Options{Request: file, Output: simulate.OutputJSON}, nil, &got); err != simulate.ErrDenied {
		t.Fatalf("Execute = %v, want ErrDenied", err)
	}
	if got.String() != want.String() {
		t.Errorf("the stream's answers differ from compiling each request:\n%s", firstDifference(got.String(), want.String()))
	}
	for _, name := range []string{`"policy-10"`, `"identity-2"`, `"ou-4"`, `"scps-1-2"`, `"level": 1`} {
		if !strings.Contains(got.String(), name) {
			t.Errorf("no answer names %s", name)
		}
	}
}

// firstDifference shows where two outputs part.
func firstDifference(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("got  ...%s\nwant ...%s", got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}
