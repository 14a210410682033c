package whocan

import (
	"testing"

	"leash.dev/leash/policy"
)

// The escalation graph's requests carry the model's default region as the
// question's do: under an SCP denying everything but global services
// outside eu-west-1 and eu-north-1 (AWS's example, "Deny access to AWS
// based on the requested AWS Region",
// https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps_examples_general.html),
// dave's path (iam:PassRole of ec2-admin with ec2:RunInstances, a regional
// action) to ec2-admin, which may iam:CreateUser (a global action the SCP
// leaves), is open in eu-west-1 and closed in us-east-1. Without the
// region in the graph's requests, the SCP's StringNotEquals would hold for
// every edge and close it in every region.
func TestGraphRequestsCarryTheDefaultRegion(t *testing.T) {
	scp := readPolicy(t, "../../../examples/check/deny-outside-eu.json", policy.SCP)
	cases := []struct {
		region string
		dave   bool
	}{
		{"eu-west-1", true},
		{"us-east-1", false},
	}
	for _, c := range cases {
		t.Run(c.region, func(t *testing.T) {
			m := testModel(t, Org{SCPs: [][]policy.Named{{*scp}}})
			m.Defaults = map[string][]string{"aws:RequestedRegion": {c.region}}
			a, err := m.WhoCanReach(Question{Action: "iam:CreateUser"}, m.Graph())
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, r := range a.Rows {
				if r.ARN == acct+"user/dave" {
					got = len(r.Path) == 1 && r.Path[0].Action == "iam:PassRole"
				}
			}
			if got != c.dave {
				t.Errorf("dave's path through ec2:RunInstances: %v, want %v: %v", got, c.dave, rowsText(a))
			}
		})
	}
	// The question's context stands over the default.
	m := testModel(t, Org{SCPs: [][]policy.Named{{*scp}}})
	m.Defaults = map[string][]string{"aws:RequestedRegion": {"us-east-1"}}
	a, err := m.WhoCan(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv", Context: map[string][]string{"aws:requestedregion": {"eu-north-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Allowed() {
		t.Errorf("s3:GetObject with the question's eu-north-1 over the default us-east-1: nobody, want bob and the admins: %v", rowsText(a))
	}
}
