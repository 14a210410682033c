package analyze

import (
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// TestEscalationExistingResourceRoles covers the paths that take over the
// role an existing resource already runs with, where AWS asks no
// iam:PassRole, and the near-misses that must stay closed.
//
// LEASH-ESC-041: UpdateService changes an existing service's source
// configuration (code repository or image) and instance configuration;
// only the name and encryption are fixed at creation
// (https://docs.aws.amazon.com/apprunner/latest/api/API_UpdateService.html).
// It is authorized against the service resource type, service/NAME/ID
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsapprunner.html).
//
// LEASH-ESC-042: CreateAutoScalingGroup needs iam:PassRole only for a
// non-default service-linked role, a lifecycle hook's role, or a launch
// template that names an instance profile — not for a launch configuration
// (https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-api-permissions.html);
// a group from a launch configuration needs only
// autoscaling:CreateAutoScalingGroup and iam:CreateServiceLinkedRole
// (https://docs.aws.amazon.com/autoscaling/ec2/userguide/control-access-using-iam.html),
// and its launch configuration is named in autoscaling:LaunchConfigurationName.
func TestEscalationExistingResourceRoles(t *testing.T) {
	groupActions := `["autoscaling:CreateAutoScalingGroup","autoscaling:UpdateAutoScalingGroup"]`
	lcCond := func(effect, op, value string) string {
		return `{"Effect":"` + effect + `","Action":` + groupActions + `,"Resource":"*","Condition":{"` + op + `":{"autoscaling:LaunchConfigurationName":"` + value + `"}}}`
	}
	cases := []struct {
		name     string
		doc      string
		id       string
		severity Severity // -1: no finding
		says     string
	}{
		{"UpdateService on any service takes over any service's instance role, with no PassRole",
			allow(`"apprunner:UpdateService"`, `"*"`), "LEASH-ESC-041", Critical, "existing App Runner services"},
		{"UpdateService on services matching a name is high",
			allow(`"apprunner:UpdateService"`, `"arn:aws:apprunner:*:111122223333:service/web-*"`), "LEASH-ESC-041", High, "App Runner services matching arn:aws:apprunner:*:111122223333:service/web-*"},
		{"near-miss: UpdateService on connections, not services, is closed",
			allow(`"apprunner:UpdateService"`, `"arn:aws:apprunner:*:*:connection/*"`), "LEASH-ESC-041", -1, ""},
		{"near-miss: UpdateService allowed and explicitly denied on every service is closed",
			allow(`"apprunner:*"`, `"*"`) + `,` + deny(`"apprunner:UpdateService"`, `"arn:aws:apprunner:*:*:service/*"`), "LEASH-ESC-041", -1, ""},
		{"near-miss: CreateService alone is no take-over (and no ESC-023 without PassRole)",
			allow(`"apprunner:CreateService"`, `"*"`), "LEASH-ESC-041", -1, ""},
		{"CreateAutoScalingGroup alone launches from an existing launch configuration",
			allow(`"autoscaling:CreateAutoScalingGroup"`, `"*"`), "LEASH-ESC-042", Critical, "existing launch configuration"},
		{"UpdateAutoScalingGroup alone points a group at an existing launch configuration",
			allow(`"autoscaling:UpdateAutoScalingGroup"`, `"*"`), "LEASH-ESC-042", Critical, "autoscaling:UpdateAutoScalingGroup on any Auto Scaling group"},
		{"group actions on groups matching a name are high",
			allow(groupActions, `"arn:aws:autoscaling:*:111122223333:autoScalingGroup:*:autoScalingGroupName/web-*"`), "LEASH-ESC-042", High, ""},
		{"an Allow for one named launch configuration still takes over its role",
			lcCond("Allow", "StringEquals", "web-lc"), "LEASH-ESC-042", Critical, ""},
		{"near-miss: a Deny whenever a launch configuration is named (launch templates required) closes it",
			allow(groupActions, `"*"`) + `,` + lcCond("Deny", "Null", "false"), "LEASH-ESC-042", -1, ""},
		{"near-miss: an Allow only when no launch configuration is named is closed",
			lcCond("Allow", "Null", "true"), "LEASH-ESC-042", -1, ""},
		{"near-miss: CreateLaunchConfiguration without a group action is closed",
			allow(`["autoscaling:CreateLaunchConfiguration","iam:PassRole"]`, `"*"`), "LEASH-ESC-042", -1, ""},
		{"near-miss: the group actions explicitly denied are closed",
			allow(`"autoscaling:*"`, `"*"`) + `,` + deny(groupActions, `"*"`), "LEASH-ESC-042", -1, ""},
		{"the launch-template requirement also closes a new launch configuration with a passed role",
			allow(`["iam:PassRole","autoscaling:CreateLaunchConfiguration"]`, `"*"`) + `,` + allow(groupActions, `"*"`) + `,` + lcCond("Deny", "Null", "false"), "LEASH-ESC-038", -1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := setOf(stmts(t, c.doc))
			set.Now = escClock
			fs := withID(Escalation(set, ""), c.id)
			if c.severity < 0 {
				if len(fs) != 0 {
					t.Fatalf("want no %s, got %v", c.id, fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Severity != c.severity {
				logFindings(t, fs)
				t.Fatalf("got %d %s findings, want one %v", len(fs), c.id, c.severity)
			}
			for _, w := range []string{c.says, "no iam:PassRole"} {
				if !strings.Contains(fs[0].Message, w) {
					t.Errorf("message %q does not say %q", fs[0].Message, w)
				}
			}
		})
	}
}

// TestEscalationExistingResourceSuiteFiles runs the files the suites deploy
// for the two paths, and the launch-template requirement that closes the
// group path.
func TestEscalationExistingResourceSuiteFiles(t *testing.T) {
	cases := []struct {
		file string
		id   string // "" for no escalation finding at all
	}{
		{"esc-041-apprunner-update-service.json", "LEASH-ESC-041"},
		{"esc-042-autoscaling-existing-launch-configuration.json", "LEASH-ESC-042"},
		{"clean-autoscaling-require-launch-templates.json", ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			set := PolicySet{Policies: []policy.Named{{Name: c.file, Document: docFile(t, policy.Identity, "escalation/"+c.file)}}, Now: escClock}
			fs := Escalation(set, "arn:aws:iam::111122223333:user/privesc")
			var ids []string
			for _, f := range fs {
				ids = append(ids, f.ID)
			}
			want := []string{}
			if c.id != "" {
				want = []string{c.id}
			}
			if strings.Join(ids, " ") != strings.Join(want, " ") {
				logFindings(t, fs)
				t.Fatalf("findings %v, want %v", ids, want)
			}
			if c.id != "" && fs[0].Severity != Critical {
				t.Errorf("severity %v, want critical", fs[0].Severity)
			}
		})
	}
}
