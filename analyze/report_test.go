package analyze

import (
	"bytes"
	"encoding/json"
	"testing"
)

var reportFindings = []Finding{
	{ID: "LEASH-ESC-SELF", Severity: Critical, Policy: "ci.json", Path: "Statement[1]", Message: "widens itself", Fix: "deny it"},
	{ID: "LEASH-LP-007", Severity: Medium, Policy: "ci.json", Path: "Statement[0].Resource", Message: "every resource"},
	{ID: "LEASH-ASSERT-ALLOW", Severity: High, Policy: "", Path: "", Message: "--must-allow x fails"},
}

func TestSummarizeCountsAtOrAboveFailOn(t *testing.T) {
	s := Summarize(reportFindings, High, 2)
	if s.Policies != 2 || s.Findings != 3 || s.Failing != 2 || s.FailOn != "high" ||
		s.BySeverity["critical"] != 1 || s.BySeverity["high"] != 1 || s.BySeverity["medium"] != 1 || len(s.BySeverity) != 3 {
		t.Errorf("got %+v", s)
	}
	if s := Summarize(nil, Info, 1); s.Failing != 0 || s.Findings != 0 || len(s.BySeverity) != 0 {
		t.Errorf("no findings: %+v", s)
	}
}

// TestWriteText pins check's text format: one line a finding, the policy
// and path only when known, the fix in parentheses, and a summary line in
// the unit reviewed.
func TestWriteText(t *testing.T) {
	tests := []struct {
		name      string
		findings  []Finding
		policies  int
		one, many string
		want      string
	}{
		{"findings then a summary by severity, most severe first", reportFindings, 1, "policy", "policies",
			"critical LEASH-ESC-SELF ci.json Statement[1]: widens itself (fix: deny it)\n" +
				"medium LEASH-LP-007 ci.json Statement[0].Resource: every resource\n" +
				"high LEASH-ASSERT-ALLOW: --must-allow x fails\n" +
				"3 findings in 1 policy (1 critical, 1 high, 1 medium); 2 at or above --fail-on high\n"},
		{"one finding is singular, pods are the unit", reportFindings[1:2], 3, "pod", "pods",
			"medium LEASH-LP-007 ci.json Statement[0].Resource: every resource\n" +
				"1 finding in 3 pods (1 medium); 0 at or above --fail-on high\n"},
		{"no findings says what was reviewed", nil, 2, "policy", "policies", "no findings in 2 policies\n"},
		{"a document's own words are escaped, so a finding stays one line", []Finding{{ID: "LEASH-LP-007", Severity: Medium,
			Policy: "ci\x1b[8m.json", Path: "Statement[0].Condition.StringLike.a\nb", Message: "allows s3:* on arn:aws:s3:::b\ninfo LEASH-OK ok.json: fine\u202e", Fix: "scope\tit"}}, 1, "policy", "policies",
			`medium LEASH-LP-007 ci\x1b[8m.json Statement[0].Condition.StringLike.a\nb: allows s3:* on arn:aws:s3:::b\ninfo LEASH-OK ok.json: fine\u202e (fix: scope\tit)` + "\n" +
				"1 finding in 1 policy (1 medium); 0 at or above --fail-on high\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, tt.findings, Summarize(tt.findings, High, tt.policies), tt.one, tt.many); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, reportFindings, Summarize(reportFindings, High, 1)); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Findings []map[string]string
		Summary  struct {
			Policies, Findings, Failing int
			FailOn                      string
			BySeverity                  map[string]int
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := map[string]string{"id": "LEASH-ESC-SELF", "severity": "critical", "policy": "ci.json", "path": "Statement[1]", "message": "widens itself", "fix": "deny it"}
	if len(got.Findings) != 3 || len(got.Findings[0]) != len(want) {
		t.Fatalf("findings %v", got.Findings)
	}
	for k, v := range want {
		if got.Findings[0][k] != v {
			t.Errorf("findings[0].%s = %q, want %q", k, got.Findings[0][k], v)
		}
	}
	if got.Summary.Policies != 1 || got.Summary.Findings != 3 || got.Summary.Failing != 2 || got.Summary.FailOn != "high" || got.Summary.BySeverity["critical"] != 1 {
		t.Errorf("summary %+v", got.Summary)
	}

	b.Reset()
	if err := WriteJSON(&b, nil, Summarize(nil, High, 1)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"findings": []`)) {
		t.Errorf("no findings: want an empty list, not null:\n%s", b.String())
	}
}
