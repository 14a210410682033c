package cloudtrail

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"leash.dev/leash/internal/simulate"
	"leash.dev/leash/localaws/audit"
)

const (
	ciRole    = "arn:aws:iam::111122223333:role/ci/ci-deploy"
	ciSession = "arn:aws:sts::111122223333:assumed-role/ci-deploy/gha-run-101"
	artifact  = "arn:aws:s3:::example-ci-artifacts/builds/101/app.tar.gz"
	instance  = "arn:aws:ec2:us-east-1:111122223333:instance/i-0123456789abcdef0"
)

// The policy generated from the CloudTrail fixture's calls of the CI role,
// evaluated as `leash simulate` evaluates (package simulate over the
// engine), allows every call the role made and was allowed, and nothing
// else: not another action of the same service, not the same action on
// another bucket, key or instance, not the calls AWS refused, not the calls
// of principals the selection leaves out.
func TestPolicyFromCloudTrailFolderAllowsExactlyTheObservedCalls(t *testing.T) {
	events := fixtureEvents(t, ciRole)
	doc, notes, err := Policy(events)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated policy: %s", data)
	for _, n := range notes {
		t.Logf("note: %s", n)
	}
	tests := []struct {
		rule, action, resource, want string
	}{
		{"observed: DescribeInstances", "ec2:DescribeInstances", "*", "Allowed"},
		{"observed: RunInstances, on * as noted", "ec2:RunInstances", instance, "Allowed"},
		{"observed: PutObject of the build", "s3:PutObject", artifact, "Allowed"},
		{"observed: GetObject of the build", "s3:GetObject", artifact, "Allowed"},
		{"observed: TerminateInstances of the instance it started", "ec2:TerminateInstances", instance, "Allowed"},

		{"another S3 action on the same object", "s3:DeleteObject", artifact, "ImplicitDeny"},
		{"another EC2 action on the same instance", "ec2:StopInstances", instance, "ImplicitDeny"},
		{"the same action on another key", "s3:GetObject", "arn:aws:s3:::example-ci-artifacts/builds/102/app.tar.gz", "ImplicitDeny"},
		{"the same action on another bucket", "s3:GetObject", "arn:aws:s3:::other-bucket/builds/101/app.tar.gz", "ImplicitDeny"},
		{"the bucket itself is not the object", "s3:GetObject", "arn:aws:s3:::example-ci-artifacts", "ImplicitDeny"},
		{"the same action on another instance", "ec2:TerminateInstances", "arn:aws:ec2:us-east-1:111122223333:instance/i-0aaaaaaaaaaaaaaaa", "ImplicitDeny"},
		{"the same instance in another region", "ec2:TerminateInstances", "arn:aws:ec2:eu-west-1:111122223333:instance/i-0123456789abcdef0", "ImplicitDeny"},
		{"refused: the production secret", "s3:GetObject", "arn:aws:s3:::example-prod-secrets/db/password.txt", "ImplicitDeny"},
		{"refused: terminating the other instance", "ec2:TerminateInstances", "arn:aws:ec2:us-east-1:111122223333:instance/i-0fedcba9876543210", "ImplicitDeny"},
		{"another principal's call: the staging role's object", "s3:GetObject", "arn:aws:s3:::example-ci-artifacts/builds/55/app.tar.gz", "ImplicitDeny"},
		{"another principal's call: bob's ListUsers", "iam:ListUsers", "*", "ImplicitDeny"},
	}
	cases := make([]simulate.Case, len(tests))
	for i, tt := range tests {
		cases[i] = simulate.Case{
			Principal: ciSession, Action: tt.action, Resource: tt.resource,
			IdentityPolicies: []simulate.NamedDocument{{Name: "observed.json", Document: data}},
		}
	}
	outcomes, err := simulate.Run(cases, "generated policy")
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		if got := outcomes[i].Decision; got != tt.want {
			t.Errorf("%s: %s on %s = %s, want %s", tt.rule, tt.action, tt.resource, got, tt.want)
		}
	}

	var text []string
	for _, n := range notes {
		text = append(text, n.String())
	}
	for _, want := range []string{
		"observed but refused: s3:GetObject on arn:aws:s3:::example-prod-secrets/db/password.txt (AccessDenied): not granted",
		"observed but refused: ec2:TerminateInstances on arn:aws:ec2:us-east-1:111122223333:instance/i-0fedcba9876543210 (Client.UnauthorizedOperation): not granted",
		`ec2:RunInstances granted on "*"`,
	} {
		if !strings.Contains(strings.Join(text, "\n"), want) {
			t.Errorf("notes lack %q:\n%s", want, strings.Join(text, "\n"))
		}
	}
}

// fixtureEvents reads the CloudTrail fixture folder's records that the
// principal selects, as `leash audit --trail-dir` does.
func fixtureEvents(t *testing.T, principal string) []*audit.Event {
	t.Helper()
	var events []*audit.Event
	src := Folder{Root: fixture, Skip: func(what string, err error) { t.Errorf("skipped %s: %v", what, err) }}
	if err := Collect(context.Background(), src, audit.Filter{Principal: principal}, func(e *audit.Event) error {
		events = append(events, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return events
}

// An object whose name holds IAM's wildcard characters is granted as
// itself: the engine allows that object and not the others the name would
// match as a pattern.
func TestPolicyGrantsAWildcardNameLiterally(t *testing.T) {
	doc, _, err := Policy([]*audit.Event{event("s3", "GetObject", `{"bucketName":"logs","key":"report-*.csv"}`)})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(doc)
	for _, tt := range []struct{ resource, want string }{
		{"arn:aws:s3:::logs/report-*.csv", "Allowed"},
		{"arn:aws:s3:::logs/report-2026.csv", "ImplicitDeny"},
	} {
		out, err := simulate.Run([]simulate.Case{{
			Principal: testRole, Action: "s3:GetObject", Resource: tt.resource,
			IdentityPolicies: []simulate.NamedDocument{{Name: "observed.json", Document: data}},
		}}, "generated policy")
		if err != nil {
			t.Fatal(err)
		}
		if out[0].Decision != tt.want {
			t.Errorf("%s under %s = %s, want %s", tt.resource, data, out[0].Decision, tt.want)
		}
	}
}
