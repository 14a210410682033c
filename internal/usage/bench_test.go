package usage

import (
	"fmt"
	"testing"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
)

// BenchmarkReportProposeProve is the work leash audit --request --propose
// does after reading the trail: a request of 46 actions on "*" (the cloud
// controller manager's), 8 of them used on 200 instances each (so their
// resources stay as written, past MaxResources), set against
// the statements, narrowed and proven.
func BenchmarkReportProposeProve(b *testing.B) {
	actions := []string{"ec2:DescribeInstances", "ec2:CreateTags", "ec2:DescribeSecurityGroups", "ec2:ModifyInstanceAttribute",
		"elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:RegisterTargets", "kms:DescribeKey"}
	entry := leashv1.StatementEntry{Effect: "Allow", Action: append([]string{}, actions...), Resource: "*"}
	for i := range 38 {
		entry.Action = append(entry.Action, fmt.Sprintf("ec2:Describe%s", []string{"Vpcs", "Subnets", "RouteTables", "AvailabilityZones", "Regions", "Images", "Volumes", "Snapshots", "Addresses", "KeyPairs", "NetworkInterfaces", "Tags", "InstanceTypes", "InstanceStatus", "VolumeStatus", "Hosts", "Placementgroups", "PrefixLists", "VpcEndpoints"}[i%19]))
	}
	var uses []cloudtrail.Use
	for _, a := range actions {
		u := cloudtrail.Use{Action: a, Calls: 1000, Regions: []string{"us-east-1"}}
		for j := range 200 {
			u.Resources = append(u.Resources, fmt.Sprintf("arn:aws:ec2:us-east-1:111122223333:instance/i-%017x", j))
		}
		uses = append(uses, u)
	}
	entries := []leashv1.StatementEntry{entry}
	b.ReportAllocs()
	for b.Loop() {
		r := report(b, entries, uses...)
		prop, err := Propose(entries, r, false)
		if err != nil {
			b.Fatal(err)
		}
		proof, err := Prove(r, docOf(b, entries), docOf(b, prop))
		if err != nil || len(proof.Failures()) > 0 {
			b.Fatal(err, proof.Failures())
		}
	}
}
