package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWhoCanRegion pins the region who-can's requests carry. Under AWS's
// example SCP denying every action but global services' outside eu-west-1
// and eu-north-1 ("Deny access to AWS based on the requested AWS Region",
// https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps_examples_general.html),
// nobody may read the reports object in an assumed us-east-1, which is
// the true answer there, and the answer says which region it assumed;
// given eu-west-1, the administrators and bob may. The region is --context
// aws:RequestedRegion, else $AWS_REGION, else $AWS_DEFAULT_REGION, else
// us-east-1.
func TestWhoCanRegion(t *testing.T) {
	const scp = "../../examples/check/deny-outside-eu.json"
	const assumedNote = " (give --context aws:RequestedRegion=... to ask about another)\n"
	admin := "arn:aws:iam::111122223333:user/admin\tuser\tAllowed by scp policy deny-outside-eu Statement[0] \"AllowAll\"; managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]\n"
	cases := []struct {
		name               string
		awsRegion, defRegn string
		args               []string
		wantCode           int
		want, refuse       []string
	}{
		{"no region given: us-east-1 is assumed and said; the SCP refuses everyone there",
			"", "", nil, ExitNo,
			[]string{"no principal can s3:GetObject on " + whoCanObject + "\n", "# region assumed: us-east-1" + assumedNote}, []string{admin}},
		{"--context aws:RequestedRegion=eu-west-1: the admin is listed, and no region is assumed",
			"", "", []string{"--context", "aws:RequestedRegion=eu-west-1"}, ExitOK,
			[]string{admin}, []string{"# region assumed"}},
		{"$AWS_DEFAULT_REGION is taken when $AWS_REGION is empty",
			"", "eu-north-1", nil, ExitOK,
			[]string{admin, "# region assumed: eu-north-1" + assumedNote}, nil},
		{"$AWS_REGION goes before $AWS_DEFAULT_REGION",
			"us-west-2", "eu-north-1", nil, ExitNo,
			[]string{"# region assumed: us-west-2" + assumedNote}, []string{admin}},
		{"--context goes before the environment",
			"us-west-2", "", []string{"--context", "aws:RequestedRegion=eu-west-1"}, ExitOK,
			[]string{admin}, []string{"# region assumed"}},
		{"--escalation: the graph's requests carry the region too (dave's ec2:RunInstances step)",
			"", "", []string{"--escalation", "--context", "aws:RequestedRegion=eu-west-1"}, ExitOK,
			[]string{"arn:aws:iam::111122223333:user/dave\tuser\tvia 1 step(s)\n  user/dave may iam:PassRole role/ec2-admin to ec2.amazonaws.com"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("AWS_REGION", c.awsRegion)
			t.Setenv("AWS_DEFAULT_REGION", c.defRegn)
			out, stderr, code := run(t, append([]string{"who-can", "s3:GetObject", whoCanObject, "--account", whoCanSnapshot, "--scp", scp}, c.args...)...)
			if code != c.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.wantCode, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, r := range c.refuse {
				if strings.Contains(out, r) {
					t.Errorf("output has %q:\n%s", r, out)
				}
			}
		})
	}
	// JSON says the region asked, and whether it was assumed.
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_DEFAULT_REGION", "")
	for _, c := range []struct {
		args    []string
		region  string
		assumed bool
	}{
		{nil, "us-east-1", true},
		{[]string{"--context", "aws:RequestedRegion=eu-west-1"}, "eu-west-1", false},
	} {
		out, stderr, _ := run(t, append([]string{"who-can", "s3:GetObject", whoCanObject, "--account", whoCanSnapshot, "--output", "json"}, c.args...)...)
		var got struct {
			Region        string `json:"region"`
			RegionAssumed bool   `json:"regionAssumed"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s%s", err, out, stderr)
		}
		if got.Region != c.region || got.RegionAssumed != c.assumed {
			t.Errorf("%v: region %q assumed %v, want %q %v", c.args, got.Region, got.RegionAssumed, c.region, c.assumed)
		}
	}
}
