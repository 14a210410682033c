package analyze

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// docOf parses a policy of the given kind written in a test.
func docOf(t *testing.T, kind policy.Kind, src string) *policy.Document {
	t.Helper()
	d, err := policy.Parse([]byte(src), kind)
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return d
}

// docFile parses a policy under testdata.
func docFile(t *testing.T, kind policy.Kind, name string) *policy.Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err := policy.Parse(b, kind)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// withID returns the findings that have the ID.
func withID(fs []Finding, id string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

func logFindings(t *testing.T, fs []Finding) {
	t.Helper()
	for _, f := range fs {
		t.Log(f)
	}
}

// stmts builds an identity policy from statements written as JSON objects.
func stmts(t *testing.T, statements ...string) *policy.Document {
	t.Helper()
	return docOf(t, policy.Identity, `{"Version":"2012-10-17","Statement":[`+strings.Join(statements, ",")+`]}`)
}

func allow(actions, resources string) string {
	return `{"Effect":"Allow","Action":` + actions + `,"Resource":` + resources + `}`
}

func deny(actions, resources string) string {
	return `{"Effect":"Deny","Action":` + actions + `,"Resource":` + resources + `}`
}

func setOf(docs ...*policy.Document) PolicySet {
	var s PolicySet
	for i, d := range docs {
		s.Policies = append(s.Policies, policy.Named{Name: "p" + string(rune('0'+i)), Document: d})
	}
	return s
}

// quoteList writes actions as a JSON array.
func quoteList(actions []string) string {
	return `["` + strings.Join(actions, `","`) + `"]`
}

// TestEscalationEveryPath grants each path's actions on "*" and expects its
// ID as critical; dropping the last required action closes the path.
func TestEscalationEveryPath(t *testing.T) {
	paths := []struct {
		id      string
		actions []string
	}{
		{"LEASH-ESC-001", []string{"iam:CreatePolicyVersion"}},
		{"LEASH-ESC-002", []string{"iam:SetDefaultPolicyVersion"}},
		{"LEASH-ESC-003", []string{"iam:AttachUserPolicy"}},
		{"LEASH-ESC-004", []string{"iam:AttachGroupPolicy"}},
		{"LEASH-ESC-005", []string{"iam:AttachRolePolicy"}},
		{"LEASH-ESC-006", []string{"iam:PutUserPolicy"}},
		{"LEASH-ESC-007", []string{"iam:PutGroupPolicy"}},
		{"LEASH-ESC-008", []string{"iam:PutRolePolicy"}},
		{"LEASH-ESC-009", []string{"iam:AddUserToGroup"}},
		{"LEASH-ESC-010", []string{"iam:CreateAccessKey"}},
		{"LEASH-ESC-011", []string{"iam:CreateLoginProfile"}},
		{"LEASH-ESC-012", []string{"iam:UpdateLoginProfile"}},
		{"LEASH-ESC-013", []string{"iam:UpdateAssumeRolePolicy"}},
		{"LEASH-ESC-014", []string{"iam:PassRole", "ec2:RunInstances"}},
		{"LEASH-ESC-015", []string{"iam:PassRole", "lambda:CreateFunction", "lambda:InvokeFunction"}},
		{"LEASH-ESC-016", []string{"iam:PassRole", "glue:CreateDevEndpoint"}},
		{"LEASH-ESC-017", []string{"iam:PassRole", "glue:CreateJob", "glue:StartJobRun"}},
		{"LEASH-ESC-018", []string{"iam:PassRole", "cloudformation:CreateStack"}},
		{"LEASH-ESC-019", []string{"iam:PassRole", "datapipeline:CreatePipeline", "datapipeline:PutPipelineDefinition"}},
		{"LEASH-ESC-020", []string{"iam:PassRole", "codebuild:CreateProject", "codebuild:StartBuild"}},
		{"LEASH-ESC-021", []string{"iam:PassRole", "sagemaker:CreateNotebookInstance"}},
		{"LEASH-ESC-022", []string{"iam:PassRole", "ecs:RegisterTaskDefinition", "ecs:RunTask"}},
		{"LEASH-ESC-023", []string{"iam:PassRole", "apprunner:CreateService"}},
		{"LEASH-ESC-024", []string{"lambda:UpdateFunctionCode"}},
		{"LEASH-ESC-025", []string{"glue:UpdateDevEndpoint"}},
		{"LEASH-ESC-026", []string{"cloudformation:UpdateStack"}},
		{"LEASH-ESC-027", []string{"cloudformation:CreateChangeSet", "cloudformation:ExecuteChangeSet"}},
		{"LEASH-ESC-028", []string{"ec2:ModifyInstanceAttribute", "ec2:StopInstances", "ec2:StartInstances"}},
		{"LEASH-ESC-029", []string{"ssm:SendCommand"}},
		{"LEASH-ESC-030", []string{"ssm:StartSession"}},
		{"LEASH-ESC-031", []string{"ecs:ExecuteCommand"}},
		{"LEASH-ESC-032", []string{"ec2-instance-connect:SendSSHPublicKey"}},
		{"LEASH-ESC-033", []string{"ec2:CreateLaunchTemplateVersion", "ec2:ModifyLaunchTemplate"}},
		{"LEASH-ESC-034", []string{"sagemaker:CreatePresignedNotebookInstanceUrl"}},
		{"LEASH-ESC-035", []string{"sagemaker:CreateNotebookInstanceLifecycleConfig", "sagemaker:StartNotebookInstance", "sagemaker:UpdateNotebookInstance"}},
		{"LEASH-ESC-036", []string{"bedrock-agentcore:StartCodeInterpreterSession", "bedrock-agentcore:InvokeCodeInterpreter"}},
		{"LEASH-ESC-037", []string{"iam:PassRole", "bedrock-agentcore:StartCodeInterpreterSession", "bedrock-agentcore:InvokeCodeInterpreter", "bedrock-agentcore:CreateCodeInterpreter"}},
		{"LEASH-ESC-038", []string{"iam:PassRole", "autoscaling:CreateAutoScalingGroup", "autoscaling:CreateLaunchConfiguration"}},
		{"LEASH-ESC-039", []string{"codebuild:StartBuild"}},
		{"LEASH-ESC-040", []string{"iam:PassRole", "codebuild:StartBuild", "codebuild:UpdateProject"}},
		{"LEASH-ESC-041", []string{"apprunner:UpdateService"}},
		{"LEASH-ESC-042", []string{"autoscaling:CreateAutoScalingGroup"}},
	}
	for _, p := range paths {
		t.Run(p.id+"/open", func(t *testing.T) {
			fs := withID(Escalation(setOf(stmts(t, allow(quoteList(p.actions), `"*"`))), ""), p.id)
			if len(fs) != 1 || fs[0].Severity != Critical || fs[0].Path != "Statement[0]" || fs[0].Policy != "p0" {
				t.Fatalf("%v on * gave %v, want one critical %s on p0 Statement[0]", p.actions, fs, p.id)
			}
			for _, a := range p.actions {
				if !strings.Contains(fs[0].Message, a) {
					t.Errorf("message %q does not name %s", fs[0].Message, a)
				}
			}
		})
		t.Run(p.id+"/closed", func(t *testing.T) {
			granted := append([]string{"iam:GetRole"}, p.actions[:len(p.actions)-1]...)
			if fs := withID(Escalation(setOf(stmts(t, allow(quoteList(granted), `"*"`))), ""), p.id); len(fs) != 0 {
				t.Errorf("without %s: %v", p.actions[len(p.actions)-1], fs)
			}
		})
	}
}

func TestEscalationRules(t *testing.T) {
	const role = "arn:aws:iam::111122223333:role/app"
	cases := []struct {
		name      string
		docs      []*policy.Document
		principal string
		id        string
		// severity is the want; -1 wants no finding with the ID.
		severity Severity
	}{
		{"wildcard action iam:Put* grants PutRolePolicy",
			[]*policy.Document{stmts(t, allow(`"iam:Put*"`, `"*"`))}, "", "LEASH-ESC-008", Critical},
		{"Action * grants PutRolePolicy",
			[]*policy.Document{stmts(t, allow(`"*"`, `"*"`))}, "", "LEASH-ESC-008", Critical},
		{"NotAction grants PutRolePolicy",
			[]*policy.Document{stmts(t, `{"Effect":"Allow","NotAction":"s3:*","Resource":"*"}`)}, "", "LEASH-ESC-008", Critical},
		{"NotAction excluding iam grants no PutRolePolicy",
			[]*policy.Document{stmts(t, `{"Effect":"Allow","NotAction":"iam:*","Resource":"*"}`)}, "", "LEASH-ESC-008", -1},
		{"role-name-scoped PutRolePolicy is high",
			[]*policy.Document{stmts(t, allow(`"iam:*"`, `"arn:aws:iam::*:role/app-*"`))}, "", "LEASH-ESC-008", High},
		{"role/* in one account is any role",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"arn:aws:iam::111122223333:role/*"`))}, "", "LEASH-ESC-008", Critical},
		{"PutRolePolicy on users only is no role path",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"arn:aws:iam::*:user/*"`))}, "", "LEASH-ESC-008", -1},
		{"deny on every role neutralizes",
			[]*policy.Document{stmts(t, allow(`"iam:*"`, `"*"`)), stmts(t, deny(`"iam:PutRolePolicy"`, `"arn:aws:iam::*:role/*"`))}, "", "LEASH-ESC-008", -1},
		{"deny on one role leaves the others",
			[]*policy.Document{stmts(t, allow(`"iam:*"`, `"*"`)), stmts(t, deny(`"iam:PutRolePolicy"`, `"arn:aws:iam::*:role/admin"`))}, "", "LEASH-ESC-008", Critical},
		{"conditional deny does not neutralize",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"*"`),
				`{"Effect":"Deny","Action":"iam:*","Resource":"*","Condition":{"StringNotEquals":{"aws:RequestedRegion":"eu-north-1"}}}`)}, "", "LEASH-ESC-008", Critical},
		{"conditional allow still opens the path",
			[]*policy.Document{stmts(t, `{"Effect":"Allow","Action":"iam:PutRolePolicy","Resource":"*","Condition":{"Bool":{"aws:MultiFactorAuthPresent":"true"}}}`)}, "", "LEASH-ESC-008", Critical},
		{"PassRole to any service with RunInstances",
			[]*policy.Document{stmts(t, allow(`["iam:PassRole","ec2:RunInstances"]`, `"*"`))}, "", "LEASH-ESC-014", Critical},
		{"PassRole and RunInstances in two policies",
			[]*policy.Document{stmts(t, allow(`"iam:PassRole"`, `"*"`)), stmts(t, allow(`"ec2:*"`, `"*"`))}, "", "LEASH-ESC-014", Critical},
		{"PassRole limited to eks is no EC2 path",
			[]*policy.Document{stmts(t, `{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"eks.amazonaws.com"}}}`,
				allow(`"ec2:RunInstances"`, `"*"`))}, "", "LEASH-ESC-014", -1},
		{"PassRole limited to ec2 is an EC2 path",
			[]*policy.Document{stmts(t, `{"Effect":"Allow","Action":"iam:PassRole","Resource":"*","Condition":{"StringEquals":{"iam:PassedToService":"ec2.amazonaws.com"}}}`,
				allow(`"ec2:RunInstances"`, `"*"`))}, "", "LEASH-ESC-014", Critical},
		{"PassRole on named roles is high",
			[]*policy.Document{stmts(t, allow(`"iam:PassRole"`, `"arn:aws:iam::111122223333:role/workers-*"`), allow(`"ec2:RunInstances"`, `"*"`))}, "", "LEASH-ESC-014", High},
		{"Lambda CreateFunction alone is no path",
			[]*policy.Document{stmts(t, allow(`["iam:PassRole","lambda:CreateFunction"]`, `"*"`))}, "", "LEASH-ESC-015", -1},
		{"Lambda CreateFunction with AddPermission",
			[]*policy.Document{stmts(t, allow(`["iam:PassRole","lambda:CreateFunction","lambda:AddPermission"]`, `"*"`))}, "", "LEASH-ESC-015", Critical},
		{"ECS RegisterTaskDefinition scoped to an ARN grants nothing",
			[]*policy.Document{stmts(t, allow(`["iam:PassRole","ecs:RunTask"]`, `"*"`), allow(`"ecs:RegisterTaskDefinition"`, `"arn:aws:ecs:*:*:task-definition/app*"`))}, "", "LEASH-ESC-022", -1},
		{"UpdateFunctionCode on named functions is high",
			[]*policy.Document{stmts(t, allow(`"lambda:UpdateFunctionCode"`, `"arn:aws:lambda:*:*:function:app-*"`))}, "", "LEASH-ESC-024", High},
		{"ModifyInstanceAttribute without StartInstances is no path",
			[]*policy.Document{stmts(t, allow(`["ec2:ModifyInstanceAttribute","ec2:StopInstances"]`, `"*"`))}, "", "LEASH-ESC-028", -1},
		{"CreateAccessKey on the caller's own user is not on others",
			[]*policy.Document{stmts(t, allow(`"iam:CreateAccessKey"`, `"arn:aws:iam::*:user/${aws:username}"`))}, "arn:aws:iam::111122223333:user/alice", "LEASH-ESC-010", -1},
		{"CreateAccessKey on any user",
			[]*policy.Document{stmts(t, allow(`"iam:CreateAccessKey"`, `"arn:aws:iam::*:user/*"`))}, "arn:aws:iam::111122223333:user/alice", "LEASH-ESC-010", Critical},
		{"a user joining groups is reported as self-escalation",
			[]*policy.Document{stmts(t, allow(`"iam:AddUserToGroup"`, `"*"`))}, "arn:aws:iam::111122223333:user/alice", "LEASH-ESC-009", -1},
		{"a role adding users to groups",
			[]*policy.Document{stmts(t, allow(`"iam:AddUserToGroup"`, `"*"`))}, role, "LEASH-ESC-009", Critical},
		{"a role's own ARN is left to the self check",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"`+role+`"`))}, role, "LEASH-ESC-008", -1},
		{"resource in another account is not granted",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"arn:aws:iam::999999999999:role/*"`))}, role, "LEASH-ESC-008", -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Escalation(setOf(c.docs...), c.principal)
			got := withID(fs, c.id)
			if c.severity < 0 {
				if len(got) != 0 {
					t.Errorf("want no %s, got %v", c.id, got)
				}
				return
			}
			if len(got) == 0 {
				logFindings(t, fs)
				t.Fatalf("want %s %s, got none", c.severity, c.id)
			}
			for _, f := range got {
				if f.Severity != c.severity {
					t.Errorf("want %s, got %v", c.severity, f)
				}
			}
		})
	}
}

func TestEscalationNamesEveryEnablingStatement(t *testing.T) {
	set := PolicySet{Policies: []policy.Named{
		{Name: "pass", Document: stmts(t, allow(`"iam:Get*"`, `"*"`), `{"Sid":"Pass","Effect":"Allow","Action":"iam:PassRole","Resource":"*"}`)},
		{Name: "compute", Document: stmts(t, `{"Sid":"Run","Effect":"Allow","Action":"ec2:RunInstances","Resource":"*"}`)},
	}}
	fs := withID(Escalation(set, ""), "LEASH-ESC-014")
	if len(fs) != 1 {
		t.Fatalf("got %v, want one finding", fs)
	}
	f := fs[0]
	if f.Policy != "pass" || f.Path != "Statement[1]" {
		t.Errorf("finding at %s %s, want the PassRole statement, pass Statement[1]", f.Policy, f.Path)
	}
	for _, want := range []string{`policy "pass" Statement[1] (Sid "Pass")`, `policy "compute" Statement[0] (Sid "Run")`, "iam:PassRole", "ec2:RunInstances"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("message %q does not name %s", f.Message, want)
		}
	}
	if f.Fix == "" {
		t.Error("no fix")
	}
}

func TestEscalationSelf(t *testing.T) {
	const role = "arn:aws:iam::111122223333:role/app-deployer"
	cases := []struct {
		name      string
		docs      []*policy.Document
		principal string
		// want are the actions reported as self-escalation, with severities.
		want  map[string]Severity
		guard bool
	}{
		{"role grants itself inline policies through its own prefix",
			[]*policy.Document{stmts(t, allow(`["iam:PutRolePolicy","iam:Attach*"]`, `"arn:aws:iam::*:role/app-*"`))}, role,
			map[string]Severity{"iam:PutRolePolicy": Critical, "iam:AttachRolePolicy": Critical}, false},
		{"role trust and boundary changes",
			[]*policy.Document{stmts(t, allow(`["iam:UpdateAssumeRolePolicy","iam:*PermissionsBoundary"]`, `"*"`))}, role,
			map[string]Severity{"iam:UpdateAssumeRolePolicy": High, "iam:PutRolePermissionsBoundary": High, "iam:DeleteRolePermissionsBoundary": High}, false},
		{"a prefix that does not match the role",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"arn:aws:iam::*:role/other-*"`))}, role, nil, false},
		{"a deny on its own ARN guards it",
			[]*policy.Document{stmts(t, allow(`"iam:*"`, `"arn:aws:iam::*:role/app-*"`)), stmts(t, deny(`["iam:PutRolePolicy","iam:AttachRolePolicy","iam:UpdateAssumeRolePolicy","iam:*RolePermissionsBoundary"]`, `"`+role+`"`))}, role,
			nil, true},
		{"a role session widens its role",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"arn:aws:iam::111122223333:role/app-*"`))}, "arn:aws:sts::111122223333:assumed-role/app-deployer/ci-run-7", map[string]Severity{"iam:PutRolePolicy": Critical}, false},
		{"unknown principal has no self",
			[]*policy.Document{stmts(t, allow(`"iam:PutRolePolicy"`, `"*"`))}, "", nil, false},
		{"user edits itself through ${aws:username}",
			[]*policy.Document{stmts(t, allow(`["iam:PutUserPolicy","iam:CreateAccessKey"]`, `"arn:aws:iam::*:user/${aws:username}"`))}, "arn:aws:iam::111122223333:user/alice",
			map[string]Severity{"iam:PutUserPolicy": Critical, "iam:CreateAccessKey": Medium}, false},
		{"user joins any group",
			[]*policy.Document{stmts(t, allow(`"iam:AddUserToGroup"`, `"*"`))}, "arn:aws:iam::111122223333:user/alice",
			map[string]Severity{"iam:AddUserToGroup": Critical}, false},
		{"user joins named groups",
			[]*policy.Document{stmts(t, allow(`"iam:AddUserToGroup"`, `"arn:aws:iam::*:group/readers-*"`))}, "arn:aws:iam::111122223333:user/alice",
			map[string]Severity{"iam:AddUserToGroup": High}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := Escalation(setOf(c.docs...), c.principal)
			got := map[string]Severity{}
			for _, f := range withID(fs, "LEASH-ESC-SELF") {
				action, _, _ := strings.Cut(f.Message, " ")
				got[action] = f.Severity
			}
			if len(got) != len(c.want) {
				logFindings(t, fs)
				t.Errorf("self-escalation %v, want %v", got, c.want)
			}
			for a, s := range c.want {
				if g, ok := got[a]; !ok || g != s {
					t.Errorf("%s: got %v (reported %v), want %s", a, g, ok, s)
				}
			}
			guards := withID(fs, "LEASH-ESC-SELF-GUARD")
			if c.guard != (len(guards) > 0) {
				t.Errorf("guard findings %v, want guard %v", guards, c.guard)
			}
			for _, g := range guards {
				if g.Severity != Info {
					t.Errorf("guard %v is not info", g)
				}
			}
		})
	}
}

// The seed's krops-ci-e2e role: role management on arn:aws:iam::*:role/krops-*
// matches the role's own ARN, and the krops-ci-e2e-self-deny policy guards it.
const kropsRole = "arn:aws:iam::120392301094:role/krops-ci-e2e"

func kropsSet(t *testing.T, guarded bool) PolicySet {
	set := PolicySet{Policies: []policy.Named{
		{Name: "krops-ci-e2e-ack-mgmt", Document: docFile(t, policy.Identity, "krops-ci-e2e/ack-mgmt.json")},
		{Name: "krops-ci-e2e-sweep", Document: docFile(t, policy.Identity, "krops-ci-e2e/sweep.json")},
	}}
	if guarded {
		set.Policies = append(set.Policies, policy.Named{Name: "krops-ci-e2e-self-deny", Document: docFile(t, policy.Identity, "krops-ci-e2e/self-deny.json")})
	}
	return set
}

func selfActions(fs []Finding) map[string]Finding {
	m := map[string]Finding{}
	for _, f := range withID(fs, "LEASH-ESC-SELF") {
		action, _, _ := strings.Cut(f.Message, " ")
		m[action] = f
	}
	return m
}

func TestKropsCIE2EWithoutGuardEscalatesItself(t *testing.T) {
	fs := Escalation(kropsSet(t, false), kropsRole)
	self := selfActions(fs)
	for action, sev := range map[string]Severity{"iam:PutRolePolicy": Critical, "iam:UpdateAssumeRolePolicy": High} {
		f, ok := self[action]
		if !ok {
			logFindings(t, fs)
			t.Fatalf("no self-escalation through %s", action)
		}
		if f.Severity != sev || f.Policy != "krops-ci-e2e-ack-mgmt" || f.Path != "Statement[0]" {
			t.Errorf("%s: %v, want %s at krops-ci-e2e-ack-mgmt Statement[0]", action, f, sev)
		}
		if !strings.Contains(f.Message, "arn:aws:iam::*:role/krops-*") || !strings.Contains(f.Message, kropsRole) {
			t.Errorf("message %q names neither the pattern nor the role", f.Message)
		}
	}
	// The seed's role actions do not include AttachRolePolicy or boundary changes.
	for _, action := range []string{"iam:AttachRolePolicy", "iam:PutRolePermissionsBoundary", "iam:DeleteRolePermissionsBoundary"} {
		if f, ok := self[action]; ok {
			t.Errorf("%s is not granted, yet: %v", action, f)
		}
	}
	if len(withID(fs, "LEASH-ESC-SELF-GUARD")) != 0 {
		t.Error("a guard reported without the self-deny policy")
	}
}

func TestKropsCIE2EWithAttachRolePolicyGranted(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		set := kropsSet(t, guarded)
		st := &set.Policies[0].Document.Statements[0]
		st.Action = append(st.Action, "iam:AttachRolePolicy")
		self := selfActions(Escalation(set, kropsRole))
		if _, ok := self["iam:AttachRolePolicy"]; ok == guarded {
			t.Errorf("guarded %v: AttachRolePolicy reported %v", guarded, ok)
		}
	}
}

func TestKropsCIE2ESelfDenyGuard(t *testing.T) {
	fs := Escalation(kropsSet(t, true), kropsRole)
	if self := withID(fs, "LEASH-ESC-SELF"); len(self) != 0 {
		t.Errorf("self-escalation despite the guard: %v", self)
	}
	guards := withID(fs, "LEASH-ESC-SELF-GUARD")
	if len(guards) != 1 || guards[0].Policy != "krops-ci-e2e-self-deny" || guards[0].Path != "Statement[0]" ||
		!strings.Contains(guards[0].Message, "iam:PutRolePolicy") || !strings.Contains(guards[0].Message, "iam:UpdateAssumeRolePolicy") {
		t.Errorf("guard findings %v, want one naming the self-deny statement and what it neutralizes", guards)
	}
	// Lifecycle on the other krops-* roles stays: a name-scoped surface the
	// seed accepts, high and not critical.
	for _, id := range []string{"LEASH-ESC-008", "LEASH-ESC-013"} {
		got := withID(fs, id)
		if len(got) != 1 || got[0].Severity != High || got[0].Policy != "krops-ci-e2e-ack-mgmt" || got[0].Path != "Statement[0]" ||
			!strings.Contains(got[0].Message, "arn:aws:iam::*:role/krops-*") {
			t.Errorf("%s: %v, want one high finding on the krops-* role statement", id, got)
		}
	}
	if got := withID(fs, "LEASH-ESC-006"); len(got) != 1 || got[0].Severity != High || got[0].Path != "Statement[1]" {
		t.Errorf("PutUserPolicy on krops-* users: %v, want one high finding", got)
	}
	for _, f := range fs {
		if f.Severity == Critical {
			t.Errorf("critical finding for the guarded role: %v", f)
		}
		if f.Policy == "krops-ci-e2e-sweep" {
			t.Errorf("the sweep policy's cleanup actions are no escalation: %v", f)
		}
	}
}
