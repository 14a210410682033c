package analyze

import (
	"strings"
	"testing"
	"time"

	"leash.dev/leash/policy"
)

// escClock is the analysis clock of the cases: dates before it have passed.
var escClock = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// TestEscalationSuitePaths runs each path as the public suites and lists
// deploy it (testdata/escalation/esc-*.json: one principal's attached
// policy) and expects its ID at its severity.
func TestEscalationSuitePaths(t *testing.T) {
	cases := []struct {
		file     string
		id       string
		severity Severity
	}{
		{"esc-034-sagemaker-presigned-url.json", "LEASH-ESC-034", Critical},
		{"esc-035-sagemaker-lifecycle-config.json", "LEASH-ESC-035", Critical},
		{"esc-036-agentcore-existing-interpreter.json", "LEASH-ESC-036", Critical},
		{"esc-037-agentcore-new-interpreter.json", "LEASH-ESC-037", Critical},
		{"esc-038-autoscaling-create-group.json", "LEASH-ESC-038", Critical},
		{"esc-038-autoscaling-update-group.json", "LEASH-ESC-038", Critical},
		{"esc-039-codebuild-start-build.json", "LEASH-ESC-039", Critical},
		{"esc-039-codebuild-start-build-batch.json", "LEASH-ESC-039", Critical},
		{"esc-040-codebuild-update-project.json", "LEASH-ESC-040", Critical},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			set := PolicySet{Policies: []policy.Named{{Name: c.file, Document: docFile(t, policy.Identity, "escalation/"+c.file)}}, Now: escClock}
			fs := withID(Escalation(set, "arn:aws:iam::111122223333:user/privesc"), c.id)
			if len(fs) != 1 || fs[0].Severity != c.severity {
				logFindings(t, fs)
				t.Fatalf("got %d %s findings, want one %v", len(fs), c.id, c.severity)
			}
		})
	}
}

// TestEscalationNewPathsNeedEveryStep closes each new path by leaving out
// one required action, and checks the severity of name-scoped grants.
func TestEscalationNewPathsNeedEveryStep(t *testing.T) {
	cases := []struct {
		name     string
		doc      string
		id       string
		severity Severity // -1: no finding
	}{
		{"lifecycle config without StartNotebookInstance is closed",
			allow(`["sagemaker:CreateNotebookInstanceLifecycleConfig","sagemaker:UpdateNotebookInstance","sagemaker:StopNotebookInstance"]`, `"*"`), "LEASH-ESC-035", -1},
		{"lifecycle config without StopNotebookInstance is open (a stopped notebook)",
			allow(`["sagemaker:CreateNotebookInstanceLifecycleConfig","sagemaker:UpdateNotebookInstance","sagemaker:StartNotebookInstance"]`, `"*"`), "LEASH-ESC-035", Critical},
		{"lifecycle config on named notebooks is high",
			allow(`["sagemaker:*"]`, `["arn:aws:sagemaker:*:*:notebook-instance/ml-*","arn:aws:sagemaker:*:*:notebook-instance-lifecycle-config/*"]`), "LEASH-ESC-035", High},
		{"code interpreter session without invoke is closed",
			allow(`"bedrock-agentcore:StartCodeInterpreterSession"`, `"*"`), "LEASH-ESC-036", -1},
		{"code interpreters matching a name are high",
			allow(`["bedrock-agentcore:StartCodeInterpreterSession","bedrock-agentcore:InvokeCodeInterpreter"]`, `"arn:aws:bedrock-agentcore:us-east-1:111122223333:code-interpreter-custom/analytics-*"`), "LEASH-ESC-036", High},
		{"AWS's built-in code interpreters have no execution role to act with",
			allow(`["bedrock-agentcore:StartCodeInterpreterSession","bedrock-agentcore:InvokeCodeInterpreter"]`, `"arn:aws:bedrock-agentcore:us-east-1:aws:code-interpreter/aws.codeinterpreter.v1"`), "LEASH-ESC-036", -1},
		{"new code interpreter without PassRole is closed",
			allow(`["bedrock-agentcore:CreateCodeInterpreter","bedrock-agentcore:StartCodeInterpreterSession","bedrock-agentcore:InvokeCodeInterpreter"]`, `"*"`), "LEASH-ESC-037", -1},
		{"PassRole limited to AgentCore opens the new interpreter path",
			`{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"bedrock-agentcore.amazonaws.com"}}},` +
				allow(`"bedrock-agentcore:*"`, `"*"`), "LEASH-ESC-037", Critical},
		{"PassRole limited to lambda closes the AgentCore path",
			`{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"lambda.amazonaws.com"}}},` +
				allow(`"bedrock-agentcore:*"`, `"*"`), "LEASH-ESC-037", -1},
		{"launch configuration without a group is closed",
			allow(`["iam:PassRole","autoscaling:CreateLaunchConfiguration"]`, `"*"`), "LEASH-ESC-038", -1},
		{"launch configuration on every launchConfigurationName is any",
			allow(`["iam:PassRole","autoscaling:CreateAutoScalingGroup"]`, `"*"`) + `,` +
				allow(`"autoscaling:CreateLaunchConfiguration"`, `"arn:aws:autoscaling:*:*:launchConfiguration:*:launchConfigurationName/*"`), "LEASH-ESC-038", Critical},
		{"StartBuild on named projects is high",
			allow(`"codebuild:StartBuild"`, `"arn:aws:codebuild:us-east-1:111122223333:project/ci-*"`), "LEASH-ESC-039", High},
		{"UpdateProject without a build is closed",
			allow(`["iam:PassRole","codebuild:UpdateProject"]`, `"*"`), "LEASH-ESC-040", -1},
	}
	// says holds what a case's message must say: a launch configuration
	// pattern naming every launchConfigurationName reaches any of them.
	says := map[string]string{
		"launch configuration on every launchConfigurationName is any": "autoscaling:CreateLaunchConfiguration on any Auto Scaling launch configuration",
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
			if w := says[c.name]; !strings.Contains(fs[0].Message, w) {
				t.Errorf("message %q does not say %q", fs[0].Message, w)
			}
		})
	}
}

// TestEscalationDecidedConditionsStayClean pins the false positives of
// conditions Escalation can decide: each case (testdata/escalation/clean-*)
// opens no path; the same statement without its condition does.
func TestEscalationDecidedConditionsStayClean(t *testing.T) {
	cases := []struct {
		file string
		ids  []string // the paths the statement opens without its condition
	}{
		{"clean-attach-user-policy-readonly.json", []string{"LEASH-ESC-003"}},
		{"clean-attach-group-policy-stringequals.json", []string{"LEASH-ESC-004"}},
		{"clean-attach-role-policy-arnlike.json", []string{"LEASH-ESC-005"}},
		{"clean-token-issued-before-past-date.json", []string{"LEASH-ESC-008"}},
		{"clean-current-time-before-past-date.json", []string{"LEASH-ESC-014"}},
		{"clean-epoch-time-before-past-date.json", []string{"LEASH-ESC-010"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			doc := docFile(t, policy.Identity, "escalation/"+c.file)
			set := PolicySet{Policies: []policy.Named{{Name: c.file, Document: doc}}, Now: escClock}
			for _, f := range Escalation(set, "") {
				if f.Severity >= High {
					t.Errorf("reported: %v", f)
				}
			}
			bare := *doc
			bare.Statements = append([]policy.Statement(nil), doc.Statements...)
			for i := range bare.Statements {
				bare.Statements[i].Conditions = nil
			}
			set.Policies[0].Document = &bare
			fs := Escalation(set, "")
			for _, id := range c.ids {
				if len(withID(fs, id)) == 0 {
					t.Errorf("without its condition the statement opens no %s: the case pins nothing", id)
				}
			}
		})
	}
}

// TestEscalationPolicyARNCondition decides iam:PolicyARN: a condition
// that lets AdministratorAccess or any customer managed policy through
// keeps the path open; the fix leash gives for ESC-003..005 closes it.
func TestEscalationPolicyARNCondition(t *testing.T) {
	cond := func(op, values string) string {
		return `{"Effect":"Allow","Action":["iam:AttachUserPolicy","iam:AttachGroupPolicy","iam:AttachRolePolicy"],"Resource":"*","Condition":{"` + op + `":{"iam:PolicyARN":` + values + `}}}`
	}
	cases := []struct {
		name string
		doc  string
		open bool
	}{
		{"StringEquals ReadOnlyAccess is closed", cond("StringEquals", `"arn:aws:iam::aws:policy/ReadOnlyAccess"`), false},
		{"ArnEquals on a named customer policy is closed", cond("ArnEquals", `"arn:aws:iam::111122223333:policy/app-read"`), false},
		{"ArnEquals AdministratorAccess is open", cond("ArnEquals", `["arn:aws:iam::aws:policy/ReadOnlyAccess","arn:aws:iam::aws:policy/AdministratorAccess"]`), true},
		{"ArnLike every AWS managed policy is open", cond("ArnLike", `"arn:aws:iam::aws:policy/*"`), true},
		{"ArnLike every customer managed policy is open", cond("ArnLike", `"arn:aws:iam::*:policy/*"`), true},
		{"StringNotEquals AdministratorAccess still lets customer policies through", cond("StringNotEquals", `"arn:aws:iam::aws:policy/AdministratorAccess"`), true},
		{"a Deny of every policy but ReadOnlyAccess closes an unconditioned Allow",
			allow(`"iam:AttachRolePolicy"`, `"*"`) + `,{"Effect":"Deny","Action":"iam:AttachRolePolicy","Resource":"*","Condition":{"ArnNotEquals":{"iam:PolicyARN":"arn:aws:iam::aws:policy/ReadOnlyAccess"}}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := setOf(stmts(t, c.doc))
			all := Escalation(set, "")
			fs := withID(all, "LEASH-ESC-005")
			if got := len(fs) > 0; got != c.open {
				t.Fatalf("ESC-005 reported %v, want %v: %v", got, c.open, fs)
			}
			// A closed path conditioned on iam:PolicyARN is said, as info,
			// with the policies the condition names.
			guards := withID(all, "LEASH-ESC-ATTACH-GUARD")
			conditioned := strings.Contains(c.doc, `"Effect":"Allow","Action":["iam:AttachUserPolicy"`)
			if wantGuard := conditioned && !c.open; (len(guards) == 1) != wantGuard {
				t.Errorf("guards %v, want one: %v", guards, wantGuard)
			}
			if len(guards) == 1 && (guards[0].Severity != Info || !strings.Contains(guards[0].Message, "iam:AttachRolePolicy")) {
				t.Errorf("guard %v: want info naming iam:AttachRolePolicy", guards[0])
			}
		})
	}
	// The fix's condition also clears self-escalation.
	set := setOf(stmts(t, cond("StringEquals", `"arn:aws:iam::aws:policy/ReadOnlyAccess"`)))
	if fs := withID(Escalation(set, "arn:aws:iam::111122223333:role/app"), "LEASH-ESC-SELF"); len(fs) != 0 {
		t.Errorf("self-escalation reported with the fix's condition: %v", fs)
	}
}

// TestEscalationDates decides conditions on dates against the clock.
func TestEscalationDates(t *testing.T) {
	stmt := func(op, key, value string) string {
		return `{"Effect":"Allow","Action":"iam:PutRolePolicy","Resource":"*","Condition":{"` + op + `":{"` + key + `":"` + value + `"}}}`
	}
	cases := []struct {
		name string
		doc  string
		// want: "" no finding; "live" a finding without a pending note;
		// "later" a finding that says the path opens later.
		want string
	}{
		{"CurrentTime before a past date never applies", stmt("DateLessThan", "aws:CurrentTime", "2026-11-30T00:00:00Z"), ""},
		{"CurrentTime before a future date applies", stmt("DateLessThan", "aws:CurrentTime", "2027-01-01T00:00:00Z"), "live"},
		{"CurrentTime after a future date applies later", stmt("DateGreaterThan", "aws:CurrentTime", "2027-01-01T00:00:00Z"), "later"},
		{"CurrentTime after a past date applies", stmt("DateGreaterThan", "aws:CurrentTime", "2026-01-01T00:00:00Z"), "live"},
		{"EpochTime before a past second never applies", stmt("NumericLessThan", "aws:EpochTime", "1764547200"), ""},
		{"TokenIssueTime before now minus 36 h never applies", stmt("DateLessThan", "aws:TokenIssueTime", "2026-11-29T11:00:00Z"), ""},
		{"TokenIssueTime before now minus 24 h applies to sessions still valid", stmt("DateLessThan", "aws:TokenIssueTime", "2026-11-30T00:00:00Z"), "live"},
		{"TokenIssueTime after a past date applies", stmt("DateGreaterThan", "aws:TokenIssueTime", "2026-11-01T00:00:00Z"), "live"},
		{"TokenIssueTime IfExists before a past date applies to long-term keys", stmt("DateLessThanIfExists", "aws:TokenIssueTime", "2026-06-01T00:00:00Z"), "live"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := setOf(stmts(t, c.doc))
			set.Now = escClock
			fs := withID(Escalation(set, ""), "LEASH-ESC-008")
			switch c.want {
			case "":
				if len(fs) != 0 {
					t.Fatalf("reported: %v", fs)
				}
			default:
				if len(fs) != 1 {
					t.Fatalf("got %v, want one finding", fs)
				}
				if later := strings.Contains(fs[0].Message, "does not apply yet"); later != (c.want == "later") {
					t.Errorf("message %q: pending note %v, want %v", fs[0].Message, later, c.want == "later")
				}
			}
		})
	}
}

// TestEscalationCaps applies the permissions boundary and SCPs: a path
// they refuse is not reported.
func TestEscalationCaps(t *testing.T) {
	const role = "arn:aws:iam::111122223333:role/app"
	iamAll := stmts(t, allow(`"iam:*"`, `"*"`))
	s3Boundary := stmts(t, allow(`"s3:*"`, `"*"`))
	denyIAM := docOf(t, policy.SCP, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"iam:*","Resource":"*"}]}`)
	fullAccess := docOf(t, policy.SCP, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}`)
	denyPutRole := docOf(t, policy.SCP, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"},{"Effect":"Deny","Action":"iam:PutRolePolicy","Resource":"*"}]}`)
	cases := []struct {
		name     string
		boundary *policy.Document
		scps     [][]*policy.Document
		open     map[string]bool
	}{
		{"without caps iam:* opens the IAM paths", nil, nil,
			map[string]bool{"LEASH-ESC-005": true, "LEASH-ESC-008": true, "LEASH-ESC-SELF": true}},
		{"a boundary of s3:* closes every IAM path", s3Boundary, nil,
			map[string]bool{"LEASH-ESC-005": false, "LEASH-ESC-008": false, "LEASH-ESC-SELF": false}},
		{"an SCP denying iam:* closes every IAM path", nil, [][]*policy.Document{{denyIAM}},
			map[string]bool{"LEASH-ESC-005": false, "LEASH-ESC-008": false, "LEASH-ESC-SELF": false}},
		{"an SCP denying iam:* below a full-access root closes them", nil, [][]*policy.Document{{fullAccess}, {denyIAM}},
			map[string]bool{"LEASH-ESC-005": false, "LEASH-ESC-008": false}},
		{"an SCP denying PutRolePolicy closes only that path", nil, [][]*policy.Document{{denyPutRole}},
			map[string]bool{"LEASH-ESC-005": true, "LEASH-ESC-008": false}},
		{"a boundary conditioned on region is taken to hold", stmts(t, `{"Effect":"Allow","Action":"iam:*","Resource":"*","Condition":{"StringEquals":{"aws:RequestedRegion":"us-east-1"}}}`), nil,
			map[string]bool{"LEASH-ESC-008": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := setOf(iamAll)
			if c.boundary != nil {
				set.Boundary = &policy.Named{Name: "boundary.json", Document: c.boundary}
			}
			for i, level := range c.scps {
				var l []policy.Named
				for _, d := range level {
					l = append(l, policy.Named{Name: "scp" + string(rune('0'+i)), Document: d})
				}
				set.SCPs = append(set.SCPs, l)
			}
			fs := Escalation(set, role)
			for id, want := range c.open {
				if got := len(withID(fs, id)) > 0; got != want {
					logFindings(t, fs)
					t.Errorf("%s reported %v, want %v", id, got, want)
				}
			}
		})
	}
}

// TestServicePathsIncludeTheNewPassRolePaths pins that the new paths that
// pass a role flow into ServicePaths with their service and steps.
func TestServicePathsIncludeTheNewPassRolePaths(t *testing.T) {
	want := map[string]struct {
		service string
		steps   int
	}{
		"LEASH-ESC-037": {"bedrock-agentcore.amazonaws.com", 3},
		"LEASH-ESC-038": {"ec2.amazonaws.com", 2},
		"LEASH-ESC-040": {"codebuild.amazonaws.com", 2},
	}
	got := map[string]ServicePath{}
	for _, p := range ServicePaths() {
		got[p.ID] = p
	}
	for id, w := range want {
		if p, ok := got[id]; !ok || p.Service != w.service || len(p.Steps) != w.steps {
			t.Errorf("%s = %+v, want service %s with %d steps", id, p, w.service, w.steps)
		}
	}
	for _, id := range []string{"LEASH-ESC-034", "LEASH-ESC-035", "LEASH-ESC-036", "LEASH-ESC-039"} {
		if _, ok := got[id]; ok {
			t.Errorf("%s passes no role and is not a service path", id)
		}
	}
}
