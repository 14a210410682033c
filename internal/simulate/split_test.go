package simulate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"leash.dev/leash/internal/simulate"
)

// TestSimulateMalformedRequestsEndTheBatch pins what a batch whose JSON
// breaks gives: the answers before the break, as a closed JSON array, and
// an error naming the request and the line of the offending byte, with
// encoding/json's words for what is wrong.
func TestSimulateMalformedRequestsEndTheBatch(t *testing.T) {
	ok, _ := batchRequest(2)
	tests := []struct {
		name    string
		in      string
		answers int
		stderr  string
	}{
		{
			name:    "a value missing in an object names the request after the good one",
			in:      "[" + ok + ", {\"action\": ]",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 1: invalid character ']' looking for beginning of value",
		},
		{
			name:    "the line is that of the offending byte, not of the request's start",
			in:      "[" + ok + ",\n{\"action\":\n \"x\" \"y\"}]",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 3: invalid character '\"' after object key:value pair",
		},
		{
			name:    "array elements need a comma between them",
			in:      "[" + ok + "\n" + ok + "]",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 2: expected comma after array element",
		},
		{
			name:    "a trailing comma in an array is refused",
			in:      "[" + ok + ",]",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 1: invalid character ']' looking for beginning of value",
		},
		{
			name:    "an array cut short after a request",
			in:      "[" + ok + ",\n",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 2: unexpected EOF",
		},
		{
			name:    "JSON Lines cut inside a request name its last line",
			in:      ok + "\n{\"action\":\n",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 3: unexpected EOF",
		},
		{
			name:    "an escaped quote does not end a string",
			in:      ok + "\n{\"action\": \"a\\\"}\n",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 2: invalid character '\\n' in string literal",
		},
		{
			name:    "a string left open ends at its newline, not at the input's end",
			in:      ok + "\n{\"action\": \"a\n" + ok + "\n",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 2: invalid character '\\n' in string literal",
		},
		{
			name:    "objects one after another take no commas",
			in:      ok + "," + ok,
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 1: invalid character ',' looking for beginning of value",
		},
		{
			name:    "data after the array is refused",
			in:      "[" + ok + "]\n{}",
			answers: 1,
			stderr:  "stdin: request 1: not valid JSON at line 2: unexpected data after the requests",
		},
		{
			name:    "a stray bracket after the requests is refused",
			in:      ok + "\n]",
			answers: 1,
			stderr:  "stdin: request 1: not valid JSON at line 2: invalid character ']' looking for beginning of value",
		},
		{
			name:    "brackets inside strings do not nest",
			in:      "[" + ok + ", {\"action\": \"]}[{\", \"x\" 1}]",
			answers: 1,
			stderr:  "stdin: request 2: not valid JSON at line 1: invalid character '1' after object key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := leash(t, tt.in, "simulate", "--request", "-", "--output", "json")
			var out []simulate.Outcome
			if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != tt.answers {
				t.Errorf("want %d answers as a valid array: %v\n%s", tt.answers, err, stdout)
			}
			if code != 2 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant it to say:\n%s", code, stderr, tt.stderr)
			}
		})
	}
}

// TestSimulateRequestsSplitAsWritten pins that the splitter finds each
// request whole however it is written: nested brackets and escapes in
// strings, a request across lines, numbers and literals that are not
// request objects, and requests named by the line they end on.
func TestSimulateRequestsSplitAsWritten(t *testing.T) {
	ok, _ := batchRequest(2)
	tricky := `{"action": "s3:GetObject", "principal": "arn:aws:iam::111122223333:user/a\"]}[{\\", "resource": "*",` +
		"\n" + `"identityPolicies": [{"name": "p", "document": {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}}]}`
	tests := []struct {
		name      string
		in        string
		decisions []string
		errs      []string // the Error of each answer, "" for none
	}{
		{
			name:      "an array across lines",
			in:        "[\n" + ok + ",\n\t" + tricky + "\n]\n",
			decisions: []string{"Allowed", "Allowed"},
			errs:      []string{"", ""},
		},
		{
			name:      "a number in an array is a bad request, and the batch goes on",
			in:        "[3, " + ok + ", true]",
			decisions: []string{"Error", "Allowed", "Error"},
			errs:      []string{"stdin: [0]: not a request object", "", "stdin: [2]: not a request object"},
		},
		{
			name:      "objects one after another are named by the line they end on",
			in:        tricky + "\n" + ok + " {\"action\": \"s3:GetObject\",\n\"nope\": 1}\n",
			decisions: []string{"Allowed", "Allowed", "Error"},
			errs:      []string{"", "", `stdin: line 4: not a request object: json: unknown field "nope"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stdout, stderr := leash(t, tt.in, "simulate", "--request", "-", "--output", "json")
			var out []simulate.Outcome
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatalf("output is not a JSON array: %v\n%s\nstderr: %s", err, stdout, stderr)
			}
			if got := decisions(out); strings.Join(got, ",") != strings.Join(tt.decisions, ",") {
				t.Fatalf("decisions %v, want %v\nstderr: %s", got, tt.decisions, stderr)
			}
			for i, o := range out {
				if !strings.HasPrefix(o.Error, tt.errs[i]) || (tt.errs[i] == "") != (o.Error == "") {
					t.Errorf("answer %d error %q, want it to start %q", i, o.Error, tt.errs[i])
				}
			}
		})
	}
}
