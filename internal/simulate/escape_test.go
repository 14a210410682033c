package simulate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/internal/simulate"
)

// TestSimulateTableShowsInjectedControlsEscaped pins that a request's and a
// policy's own words (a resource, a principal, a condition key, a Sid)
// cannot start a forged row or hide text in the table, by flags and by
// --request alike, while the JSON output keeps the request's values as
// they are.
func TestSimulateTableShowsInjectedControlsEscaped(t *testing.T) {
	const forged = "\nAllowed       iam:DeleteUser  *\x1b[8m"
	doc := `{"Version":"2012-10-17","Statement":[{"Sid":"S\u001b[8m","Effect":"Allow","Action":"s3:GetObject","Resource":"*",` +
		`"Condition":{"StringEquals":{"aws:PrincipalTag/team\n    allowed by everything\u202e":"platform"}}}]}`
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "p.json")
	if err := os.WriteFile(policyFile, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	req, err := json.Marshal(map[string]any{"principal": "arn:aws:iam::111122223333:user/alice" + forged, "action": "s3:GetObject",
		"resource": "arn:aws:s3:::reports/q1.csv" + forged, "identityPolicies": []any{map[string]any{"name": "p", "document": json.RawMessage(doc)}}})
	if err != nil {
		t.Fatal(err)
	}
	wantExplain := `    identity policy "p" Statement[0] (Sid "S\x1b[8m"): condition StringEquals aws:PrincipalTag/team\n    allowed by everything\u202e needs the key, which the request does not have`
	for _, tt := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"flags", []string{"--identity", policyFile, "--action", "s3:GetObject", "--resource", "arn:aws:s3:::reports/q1.csv" + forged, "--principal", "arn:aws:iam::111122223333:user/alice" + forged}, ""},
		{"--request", []string{"--request", "-"}, string(req)},
	} {
		t.Run(tt.name+": one row, escaped", func(t *testing.T) {
			code, stdout, stderr := leash(t, tt.stdin, append([]string{"simulate", "--explain"}, tt.args...)...)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (denied); stderr %s", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if len(lines) != 4 {
				t.Fatalf("%d lines, want the header, the row and two explanations:\n%s", len(lines), stdout)
			}
			if strings.ContainsAny(stdout, "\x1b\u202e") {
				t.Errorf("stdout holds a raw escape or bidi control:\n%q", stdout)
			}
			for _, want := range []string{`arn:aws:s3:::reports/q1.csv\nAllowed       iam:DeleteUser  *\x1b[8m`, `arn:aws:iam::111122223333:user/alice\nAllowed`} {
				if !strings.Contains(lines[1], want) {
					t.Errorf("row %q lacks %q", lines[1], want)
				}
			}
			if lines[3] != wantExplain {
				t.Errorf("explanation\n%q\nwant\n%q", lines[3], wantExplain)
			}
		})
		t.Run(tt.name+": JSON keeps the request's values", func(t *testing.T) {
			_, stdout, _ := leash(t, tt.stdin, append([]string{"simulate", "--output", "json"}, tt.args...)...)
			var out []simulate.Outcome
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != 1 {
				t.Fatalf("want one outcome: %v\n%s", err, stdout)
			}
			if out[0].Resource != "arn:aws:s3:::reports/q1.csv"+forged || out[0].Principal != "arn:aws:iam::111122223333:user/alice"+forged {
				t.Errorf("outcome %+v: want the request's resource and principal as given", out[0])
			}
		})
	}
}
