package main

import (
	"strings"
	"testing"

	"leash.dev/leash/internal/whocan"
)

// TestOrganizationReadsAsWhoCanOrg writes a small organization and reads it
// as leash who-can --org does: every account's principals, SCPs at three
// levels that cut member accounts and spare the management account, and
// trust policies that cross accounts.
func TestOrganizationReadsAsWhoCanOrg(t *testing.T) {
	dir := t.TempDir()
	if err := run([]string{"-seed", "3", "-accounts", "3", "-principals", "200", "-policies", "30", "-o", dir}, nil); err != nil {
		t.Fatal(err)
	}
	org, err := whocan.LoadOrganization(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(org.Warnings) != 0 || len(org.Snapshots) != 3 || org.Management != orgAccountID(0) {
		t.Fatalf("warnings %q, %d snapshots, management %s; want none, 3, %s", org.Warnings, len(org.Snapshots), org.Management, orgAccountID(0))
	}
	m, err := whocan.NewOrgModel(org)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Principals) != 600 {
		t.Errorf("principals = %d, want 600", len(m.Principals))
	}
	account := func(arn string) string { return strings.Split(arn, ":")[4] }
	orgTrusts := 0
	for _, s := range org.Snapshots {
		for _, r := range s.Roles {
			for _, st := range r.Trust.Statements {
				if len(st.Conditions) > 0 && strings.EqualFold(st.Conditions[0].Key, "aws:PrincipalOrgID") {
					orgTrusts++
				}
			}
		}
	}
	if orgTrusts == 0 {
		t.Error("no role trusts aws:PrincipalOrgID")
	}
	g := m.Graph()
	cross := 0
	for _, es := range g.Out {
		for _, e := range es {
			if e.To < g.Admin && e.From < g.Admin && account(m.Principals[e.From].ARN) != account(m.Principals[e.To].ARN) {
				cross++
			}
		}
	}
	if cross == 0 {
		t.Error("no edge crosses accounts")
	}
	// The workloads OU denies Redshift, the root every region but two:
	// only the management account's principals may.
	for _, q := range []whocan.Question{
		{Action: "redshift:DescribeClusters", Context: map[string][]string{"aws:RequestedRegion": {"us-east-1"}}},
		{Action: "ec2:DescribeInstances", Context: map[string][]string{"aws:RequestedRegion": {"eu-north-1"}}},
	} {
		ans, err := m.WhoCan(q)
		if err != nil {
			t.Fatal(err)
		}
		allowed := 0
		for _, r := range ans.Rows {
			if r.Decision != "Allowed" {
				continue
			}
			allowed++
			if account(r.ARN) != orgAccountID(0) {
				t.Errorf("%s in %v: %s of a member account is allowed", q.Action, q.Context, r.ARN)
			}
		}
		if allowed == 0 {
			t.Errorf("%s in %v: no one of the management account is allowed", q.Action, q.Context)
		}
	}
}

func TestAccountsFlagNeedsAFolder(t *testing.T) {
	err := run([]string{"-accounts", "2"}, nil)
	if err == nil || !strings.Contains(err.Error(), "-accounts writes a folder: give it with -o DIR") {
		t.Errorf("error %v; want the -o DIR fix", err)
	}
}
