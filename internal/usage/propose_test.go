package usage

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/policy"
)

const principal = "arn:aws:iam::111122223333:user/leash/c1/tagger"

// docOf is the policy of entries as the operator makes a request's: one
// statement per entry.
func docOf(t testing.TB, entries []leashv1.StatementEntry) *policy.Document {
	t.Helper()
	statements := make([]map[string]any, len(entries))
	for i, e := range entries {
		statements[i] = map[string]any{"Effect": e.Effect, "Action": e.Action, "Resource": e.Resource}
	}
	raw, _ := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": statements})
	doc, err := policy.Parse(raw, policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// report builds a report of uses against entries.
func report(t testing.TB, entries []leashv1.StatementEntry, uses ...cloudtrail.Use) *Report {
	t.Helper()
	r, err := Build("apps/tagger", principal, entries, docOf(t, entries), uses, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func use(action string, resources ...string) cloudtrail.Use {
	return cloudtrail.Use{Action: action, Resources: resources, Calls: 1, LastUsed: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
}

func TestProposeNarrowsWhatWasUsedAndNoMore(t *testing.T) {
	entries := []leashv1.StatementEntry{
		{Effect: "Allow", Action: []string{"ec2:CreateTags", "ec2:Describe*"}, Resource: "*"},
		{Effect: "Allow", Action: []string{"s3:GetObject"}, Resource: "arn:aws:s3:::bucket/*"},
		{Effect: "Deny", Action: []string{"ec2:TerminateInstances"}, Resource: "*"},
	}
	var many []string
	for i := range MaxResources + 1 {
		many = append(many, fmt.Sprintf("arn:aws:s3:::bucket/k%d", i))
	}
	tests := []struct {
		name          string
		uses          []cloudtrail.Use
		keepResources bool
		want          string
	}{
		{"a pattern becomes the actions called; a named resource narrows; the unused entry goes; the Deny stays",
			[]cloudtrail.Use{use("ec2:DescribeInstances", "*"), use("ec2:CreateTags", "arn:aws:ec2:us-east-1:111122223333:instance/i-1")}, false,
			`[{"effect":"Allow","action":["ec2:DescribeInstances"],"resource":"*"},{"effect":"Allow","action":["ec2:CreateTags"],"resource":"arn:aws:ec2:us-east-1:111122223333:instance/i-1"},{"effect":"Deny","action":["ec2:TerminateInstances"],"resource":"*"}]`},
		{"--keep-resources narrows the actions only",
			[]cloudtrail.Use{use("ec2:DescribeInstances", "*"), use("ec2:CreateTags", "arn:aws:ec2:us-east-1:111122223333:instance/i-1")}, true,
			`[{"effect":"Allow","action":["ec2:CreateTags","ec2:DescribeInstances"],"resource":"*"},{"effect":"Deny","action":["ec2:TerminateInstances"],"resource":"*"}]`},
		{"more resources than MaxResources keep the entry's resource",
			[]cloudtrail.Use{use("s3:GetObject", many...)}, false,
			`[{"effect":"Allow","action":["s3:GetObject"],"resource":"arn:aws:s3:::bucket/*"},{"effect":"Deny","action":["ec2:TerminateInstances"],"resource":"*"}]`},
		{"a use on a resource outside the entry's is not the entry's",
			[]cloudtrail.Use{use("s3:GetObject", "arn:aws:s3:::other/k"), use("ec2:DescribeInstances", "*")}, false,
			`[{"effect":"Allow","action":["ec2:DescribeInstances"],"resource":"*"},{"effect":"Deny","action":["ec2:TerminateInstances"],"resource":"*"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Propose(entries, report(t, entries, tt.uses...), tt.keepResources)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(got); string(b) != tt.want {
				t.Errorf("proposal\n%s\nwant\n%s", b, tt.want)
			}
		})
	}
	// A name with IAM's wildcard characters is granted as that name alone
	// (${*} is a literal "*", IAM User Guide, "IAM policy elements:
	// Variables and tags",
	// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_variables.html#policy-vars-specialchars),
	// and the proof asks about the object the call named: a principal that
	// reads an object named so can neither widen the proposal nor break it.
	t.Run("an object named with wildcard characters", func(t *testing.T) {
		r := report(t, entries, use("s3:GetObject", "arn:aws:s3:::bucket/report-${*}-${?}.csv"))
		got, err := Propose(entries, r, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Resource != "arn:aws:s3:::bucket/report-${*}-${?}.csv" {
			t.Fatalf("proposal %+v", got)
		}
		proof, err := Prove(r, docOf(t, entries), docOf(t, got))
		if err != nil || len(proof.Failures()) > 0 || proof.Allowed() != 1 {
			t.Errorf("proof: %v %v, %d allowed", err, proof.Failures(), proof.Allowed())
		}
		other, _ := Prove(report(t, entries, use("s3:GetObject", "arn:aws:s3:::bucket/report-x-y.csv")), docOf(t, entries), docOf(t, got))
		if other.Allowed() != 0 {
			t.Error("the proposal for the object named report-*-?.csv allows report-x-y.csv")
		}
	})
	t.Run("nothing used: no proposal", func(t *testing.T) {
		if _, err := Propose(entries, report(t, entries, use("s3:GetObject", "arn:aws:s3:::other/k")), false); !errors.Is(err, ErrNothingUsed) {
			t.Errorf("err %v, want ErrNothingUsed", err)
		}
	})
	t.Run("a use no entry covers is outside the request", func(t *testing.T) {
		r := report(t, entries, use("s3:GetObject", "arn:aws:s3:::other/k"), use("sts:GetCallerIdentity", "*"))
		if len(r.Outside) != 1 || r.Outside[0].Action != "s3:GetObject" {
			t.Errorf("outside %+v, want s3:GetObject alone (GetCallerIdentity needs no permission)", r.Outside)
		}
	})
}
