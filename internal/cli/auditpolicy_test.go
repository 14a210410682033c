package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

func TestAuditPolicy(t *testing.T) {
	const (
		fixture = "../../examples/audit/trail"
		ciRole  = "arn:aws:iam::111122223333:role/ci/ci-deploy"
	)
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string // a line the policy on stdout holds
		stderr []string
	}{
		{"the policy on stdout, what it leaves out on stderr", []string{"--trail-dir", fixture, "--principal", ciRole, "--policy"}, ExitOK,
			`"arn:aws:s3:::example-ci-artifacts/builds/101/app.tar.gz"`,
			[]string{"leash audit: observed but refused: s3:GetObject on arn:aws:s3:::example-prod-secrets/db/password.txt (AccessDenied): not granted",
				`leash audit: ec2:RunInstances granted on "*"`}},
		{"the window bounds the calls granted", []string{"--trail-dir", fixture, "--principal", ciRole, "--policy", "--since", "2026-11-29T13:00:00Z"}, ExitOK,
			`"ec2:TerminateInstances"`, []string{"ec2:TerminateInstances on arn:aws:ec2:us-east-1:111122223333:instance/i-0fedcba9876543210 (Client.UnauthorizedOperation)"}},
		{"a policy is one principal's", []string{"--trail-dir", fixture, "--policy"}, ExitBadInput, "",
			[]string{"--policy: needs --principal"}},
		{"--denied selects only calls a policy never grants", []string{"--trail-dir", fixture, "--principal", ciRole, "--policy", "--denied"}, ExitBadInput, "",
			[]string{"drop --denied"}},
		{"--output formats the calls, not the policy", []string{"--trail-dir", fixture, "--principal", ciRole, "--policy", "--output", "json"}, ExitBadInput, "",
			[]string{"drop --output"}},
		{"no allowed call in the window is bad input", []string{"--trail-dir", fixture, "--principal", ciRole, "--policy", "--since", "2026-11-30T00:00:00Z"}, ExitBadInput, "",
			[]string{"0 calls selected", "nothing to grant", "widen the window"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			status := Run(context.Background(), append([]string{"audit"}, tt.args...), nil, &out, &errOut)
			if status != tt.status {
				t.Fatalf("status %d, want %d; stderr: %s", status, tt.status, errOut.String())
			}
			for _, w := range tt.stderr {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut.String())
				}
			}
			if tt.status != ExitOK {
				if out.Len() != 0 {
					t.Errorf("stdout on bad input: %s", out.String())
				}
				return
			}
			// stdout is a policy file and nothing else.
			if _, err := policy.Parse(out.Bytes(), policy.Identity); err != nil {
				t.Errorf("stdout is not a policy: %v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("policy lacks %s:\n%s", tt.stdout, out.String())
			}
		})
	}
}

// TestAuditPolicyOfAWSExampleRecords runs leash audit --policy on a trail of
// the example records AWS publishes (IAM User Guide, "Logging IAM and AWS
// STS API calls with AWS CloudTrail":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/cloudtrail-integration.html),
// records leash local did not write: the policy grants each principal's
// calls on the resources their request parameters name, and an AssumeRole
// that sets a source identity or passes session tags the sts:SetSourceIdentity
// and sts:TagSession it needs on the role (IAM User Guide, "Passing session
// tags in AWS STS": https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html;
// "Monitor and control actions taken with assumed roles":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html).
func TestAuditPolicyOfAWSExampleRecords(t *testing.T) {
	const fixture = "testdata/iam-user-guide-trail"
	tests := []struct {
		name      string
		principal string
		actions   []string
		resource  string
	}{
		{"GetUserPolicy is granted on the user requestParameters name", "arn:aws:iam::444455556666:user/JaneDoe",
			[]string{"iam:GetUserPolicy"}, "arn:aws:iam::444455556666:user/JaneDoe"},
		{"a cross-account AssumeRole that sets a source identity is granted with sts:SetSourceIdentity on the role, from the caller's record only", "arn:aws:iam::777788889999:user/JohnDoe",
			[]string{"sts:AssumeRole", "sts:SetSourceIdentity"}, "arn:aws:iam::111122223333:role/EC2-dev"},
		{"a chained AssumeRole from a session with a source identity, passing session tags, is granted to the session's role with both", "arn:aws:iam::111111111111:role/JohnRole1",
			[]string{"sts:AssumeRole", "sts:SetSourceIdentity", "sts:TagSession"}, "arn:aws:iam::111111111111:role/JohnRole2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			status := Run(context.Background(), []string{"audit", "--trail-dir", fixture, "--principal", tt.principal, "--policy"}, nil, &out, &errOut)
			if status != ExitOK {
				t.Fatalf("status %d; stderr: %s", status, errOut.String())
			}
			doc, err := policy.Parse(out.Bytes(), policy.Identity)
			if err != nil {
				t.Fatalf("stdout is not a policy: %v\n%s", err, out.String())
			}
			if len(doc.Statements) != 1 || doc.Statements[0].Effect != policy.Allow ||
				!reflect.DeepEqual(doc.Statements[0].Action, tt.actions) || !reflect.DeepEqual(doc.Statements[0].Resource, []string{tt.resource}) {
				t.Errorf("policy:\n%s\nwant one statement allowing %v on %s", out.String(), tt.actions, tt.resource)
			}
		})
	}
}

// TestAuditJSONIsTheRecordsThemselves: --output json gives each record of
// a CloudTrail file whole, the fields leash does not read included
// (invokedBy, sharedEventID, additionalEventData of CloudTrail's own), and
// adds none, so its lines can go on to any tool that reads CloudTrail.
func TestAuditJSONIsTheRecordsThemselves(t *testing.T) {
	const fixture = "testdata/iam-user-guide-trail"
	raw, err := os.ReadFile(filepath.Join(fixture, "records.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct{ Records []map[string]any }
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	// Records compared as JSON values, in any order: two of AWS's examples
	// share an eventID.
	canonical := func(r any) string { b, _ := json.Marshal(r); return string(b) }
	want := map[string]int{}
	for _, r := range file.Records {
		want[canonical(r)]++
	}
	var out, errOut bytes.Buffer
	if status := Run(context.Background(), []string{"audit", "--trail-dir", fixture, "--output", "json"}, nil, &out, &errOut); status != ExitOK {
		t.Fatalf("status %d; stderr: %s", status, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(file.Records) {
		t.Fatalf("%d lines for %d records:\n%s", len(lines), len(file.Records), out.String())
	}
	for _, line := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatalf("line is not a record: %v\n%s", err, line)
		}
		if want[canonical(got)] == 0 {
			t.Errorf("record is not one of the file's, or was given twice:\n%s", line)
		}
		want[canonical(got)]--
	}
}
