package whocan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// The organization of testdata/org-cross: the management account, and
// under the root the OU apps holding account B (data) and the OU dev,
// which holds account A.
const (
	orgID      = "o-exampleorg1"
	mgmtAcct   = "arn:aws:iam::111111111111:"
	acctA      = "arn:aws:iam::222222222222:"
	acctB      = "arn:aws:iam::333333333333:"
	secretOfB  = "arn:aws:secretsmanager:us-east-1:333333333333:secret:db-password-AbCdEf"
	queueOfB   = "arn:aws:sqs:us-east-1:333333333333:orders"
	devOU      = "ou-ex12-dev00001"
	accountAID = "222222222222"
	accountBID = "333333333333"
)

// orgFolder copies testdata/org-cross to a temporary folder and writes the
// given files over it (a nil content removes the file).
func orgFolder(t *testing.T, files map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("testdata", "org-cross")
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if content == nil {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content.(string)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func orgModel(t *testing.T, files map[string]any) *Model {
	t.Helper()
	org, err := LoadOrganization(orgFolder(t, files))
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewOrgModel(org)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// orgPolicy is a describe-policy output and the list-policies-for-target
// output attaching it (with the AWS managed full-access policy beside).
func orgPolicy(id, typ, content string) (describe, list string) {
	describe = fmt.Sprintf(`{"Policy": {"PolicySummary": {"Id": %q, "Name": %q, "Type": %q, "AwsManaged": false}, "Content": %q}}`, id, id, typ, content)
	full := "p-FullAWSAccess"
	if typ == "RESOURCE_CONTROL_POLICY" {
		full = "p-RCPFullAWSAccess"
	}
	list = fmt.Sprintf(`{"Policies": [{"Id": %q, "Name": %q, "Type": %q}, {"Id": %q, "Name": %q, "Type": %q}]}`, full, full[2:], typ, id, id, typ)
	return describe, list
}

// pathRows is each row as "ARN decision", then " via" and each step's To
// when it has a path.
func pathRows(a *Answer) []string {
	var out []string
	for _, r := range a.Rows {
		s := r.ARN + " " + r.Decision
		if len(r.Path) > 0 {
			var to []string
			for _, st := range r.Path {
				to = append(to, short(st.To))
			}
			s += " via " + strings.Join(to, ", ")
		}
		out = append(out, s)
	}
	return out
}

func TestOrgWhoCanReach(t *testing.T) {
	denyOtherAccounts, attachToDev := orgPolicy("p-denyxacct1", "SERVICE_CONTROL_POLICY",
		`{"Version":"2012-10-17","Statement":[{"Sid":"StayInTheAccount","Effect":"Deny","Action":"sts:AssumeRole","NotResource":"arn:aws:iam::222222222222:*"}]}`)
	denySecrets, attachToB := orgPolicy("p-nosecrets1", "SERVICE_CONTROL_POLICY",
		`{"Version":"2012-10-17","Statement":[{"Sid":"NoSecrets","Effect":"Deny","Action":"secretsmanager:GetSecretValue","Resource":"*"}]}`)
	cases := []struct {
		name  string
		files map[string]any
		want  []string
	}{
		{"alice of A reaches the secret of B only through the trust policy of B's reader, which names her; dev-admin of A, with any permission in A, acts as alice; ops, with any permission in the management account, reaches nothing in B",
			nil,
			[]string{
				acctB + "role/reader Allowed",
				acctB + "user/carol Allowed",
				acctA + "user/alice ImplicitDeny via role/reader",
				acctA + "user/dev-admin ImplicitDeny via *, user/alice, role/reader",
			}},
		{"an SCP on A's OU denying sts:AssumeRole outside A cuts the path: no one of A is listed",
			map[string]any{"policies/p-denyxacct1.json": denyOtherAccounts, "scps/" + devOU + ".json": attachToDev},
			[]string{
				acctB + "role/reader Allowed",
				acctB + "user/carol Allowed",
			}},
		{"an SCP on account B denying the final action leaves no one",
			map[string]any{"policies/p-nosecrets1.json": denySecrets, "scps/" + accountBID + ".json": attachToB},
			nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := orgModel(t, tc.files)
			ans, err := m.WhoCanReach(Question{Action: "secretsmanager:GetSecretValue", Resource: secretOfB}, m.Graph())
			if err != nil {
				t.Fatal(err)
			}
			if got := pathRows(ans); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestOrgWhoCanPathSteps(t *testing.T) {
	m := orgModel(t, nil)
	ans, err := m.WhoCanReach(Question{Action: "secretsmanager:GetSecretValue", Resource: secretOfB}, m.Graph())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ans.Rows {
		if r.ARN != acctA+"user/alice" {
			continue
		}
		step := r.Path[0]
		if step.Action != "sts:AssumeRole" || step.Resource != acctB+"role/reader" || !strings.Contains(step.Text, `trust: Statement[0] "AliceOfDev"`) {
			t.Errorf("alice's step: %+v; want sts:AssumeRole on B's reader by its trust statement AliceOfDev", step)
		}
		want := []string{`inline policy assume-data-reader of user alice Statement[0] "AssumeReader"`, `trust policy of role reader Statement[0] "AliceOfDev"`}
		var got []string
		for _, s := range step.Statements {
			if s.PolicyType == policy.Identity.String() || s.PolicyType == policy.Resource.String() {
				got = append(got, s.Name())
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("alice's step statements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		return
	}
	t.Fatalf("alice is not listed: %v", pathRows(ans))
}

// SCPs do not apply to the management account: "SCPs don't affect users or
// roles in the management account"
// (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_scps.html).
// The root's SCP DenyCreateUser stops dev-admin of A, not ops.
func TestOrgManagementAccountExemptFromSCPs(t *testing.T) {
	m := orgModel(t, nil)
	ans, err := m.WhoCan(Question{Action: "iam:CreateUser", Resource: acctA + "user/new", All: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range ans.Rows {
		got[r.ARN] = r.Decision
		if r.ARN == acctA+"user/dev-admin" {
			var names []string
			for _, s := range r.Statements {
				names = append(names, s.Name())
			}
			if !strings.Contains(strings.Join(names, "; "), `scp policy DenyCreateUser (p-rootguard1) Statement[0] "NoNewUsers"`) {
				t.Errorf("dev-admin's statements %q do not name the root's SCP", names)
			}
		}
	}
	// ops may create a user in its own account; in A it would need A's
	// trust, which no resource policy gives: ask both.
	if got[acctA+"user/dev-admin"] != "ExplicitDeny" {
		t.Errorf("dev-admin of A: %s, want ExplicitDeny by the root's SCP", got[acctA+"user/dev-admin"])
	}
	ans, err = m.WhoCan(Question{Action: "iam:CreateUser", Resource: mgmtAcct + "user/new"})
	if err != nil {
		t.Fatal(err)
	}
	if rows := pathRows(ans); strings.Join(rows, "\n") != mgmtAcct+"user/ops Allowed" {
		t.Errorf("who can create a user in the management account: %q, want only ops, whom no SCP restricts", rows)
	}
}

// A trust policy that lets in "*" on the condition aws:PrincipalOrgID
// admits the principals of the organization's other accounts whose own
// policies allow sts:AssumeRole, the management account's too: the requests
// carry the organization's ID. In the role's own account the trust's grant
// to everyone suffices, as the engine decides a same-account grant to "*".
func TestOrgTrustByPrincipalOrgID(t *testing.T) {
	m := orgModel(t, nil)
	ans, err := m.WhoCan(Question{Action: "sts:AssumeRole", Resource: acctB + "role/org-sender"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		mgmtAcct + "user/ops Allowed",
		acctA + "user/bob Allowed",
		acctA + "user/dev-admin Allowed",
		acctB + "role/org-sender Allowed",
		acctB + "role/reader Allowed",
		acctB + "user/carol Allowed",
	}
	if got := pathRows(ans); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The same trust with another organization's ID admits no one.
	other := orgModel(t, map[string]any{"organization.json": `{"Organization": {"Id": "o-otherorg999", "MasterAccountId": "111111111111"}}`})
	ans, err = other.WhoCan(Question{Action: "sts:AssumeRole", Resource: acctB + "role/org-sender"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Rows) != 0 {
		t.Errorf("under o-otherorg999, rows %q; want none", pathRows(ans))
	}
}

// RCPs apply by the resource's account: the RCP on B refuses callers
// outside the organization on B's queue, not on A's, and not the
// organization's own principals, whose requests carry aws:PrincipalOrgID.
func TestOrgRCPOnResourceAccount(t *testing.T) {
	orgOnly, attach := orgPolicy("p-orgonly001", "RESOURCE_CONTROL_POLICY",
		`{"Version":"2012-10-17","Statement":[{"Sid":"OnlyTheOrg","Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*",`+
			`"Condition":{"StringNotEqualsIfExists":{"aws:PrincipalOrgID":"o-exampleorg1"},"BoolIfExists":{"aws:PrincipalIsAWSService":"false"}}}]}`)
	m := orgModel(t, map[string]any{"policies/p-orgonly001.json": orgOnly, "rcps/" + accountBID + ".json": attach})
	queuePolicy := func(queue string) *policy.Named {
		doc, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["222222222222","444455556666"]},"Action":"sqs:SendMessage","Resource":"`+queue+`"}]}`), policy.Resource)
		if err != nil {
			t.Fatal(err)
		}
		return &policy.Named{Name: "queue policy", Document: doc}
	}
	anyPermission, err := policy.CompileOne(policy.Named{Name: "admin", Document: anyPermission}, policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	outsider := &Principal{ARN: "arn:aws:iam::444455556666:user/mallory", Kind: KindUser, Caller: "arn:aws:iam::444455556666:user/mallory", identity: []*policy.Compiled{anyPermission}}
	queueOfA := "arn:aws:sqs:us-east-1:222222222222:orders"
	cases := []struct {
		name      string
		queue     string
		principal func(m *Model) *Principal
		want      policy.Decision
	}{
		{"dev-admin of A sends to B's queue: the RCP spares the organization", queueOfB,
			func(m *Model) *Principal { p, _ := m.Lookup(acctA + "user/dev-admin"); return p }, policy.Allowed},
		{"a caller outside the organization is refused on B's queue by B's RCP", queueOfB,
			func(*Model) *Principal { return outsider }, policy.ExplicitDeny},
		{"the same caller on A's queue: B's RCP does not apply to A's resources", queueOfA,
			func(*Model) *Principal { return outsider }, policy.Allowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := m.asker(Question{Action: "sqs:SendMessage", Resource: tc.queue, ResourcePolicy: queuePolicy(tc.queue)})
			if err != nil {
				t.Fatal(err)
			}
			if got := a.decide(tc.principal(m)); got != tc.want {
				t.Errorf("decision %s, want %s", got, tc.want)
			}
		})
	}
}

func TestLoadOrganizationRefuses(t *testing.T) {
	snapshotOfA, err := os.ReadFile(filepath.Join("testdata", "org-cross", "snapshots", accountAID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		files map[string]any
		want  string
	}{
		{"a snapshot whose principals are of another account than its name",
			map[string]any{"snapshots/" + accountBID + ".json": string(snapshotOfA)},
			"snapshots/333333333333.json: arn:aws:iam::222222222222:user/alice is of account 222222222222, and the file's name says 333333333333"},
		{"a snapshot of an account not in the tree",
			map[string]any{"snapshots/444455556666.json": string(snapshotOfA)},
			"snapshots/444455556666.json: account 444455556666 is not in the organization's tree"},
		{"policies attached to a target not in the tree",
			map[string]any{"scps/ou-ex12-gone0001.json": `{"Policies": []}`},
			"scps/ou-ex12-gone0001.json: policies are attached to ou-ex12-gone0001, which is not in the tree"},
		{"an OU listed under two parents (a cycle)",
			map[string]any{"ous/" + devOU + ".json": `{"OrganizationalUnits": [{"Id": "ou-ex12-apps0001", "Name": "apps"}]}`},
			"ous/ou-ex12-dev00001.json: OU ou-ex12-apps0001 is listed under ou-ex12-dev00001 and already under r-ex12: the tree has a cycle or a duplicate"},
		{"two OUs that are each other's parent, out of the root's reach",
			map[string]any{
				"ous/ou-ex12-loopa001.json":      `{"OrganizationalUnits": [{"Id": "ou-ex12-loopb001", "Name": "b"}]}`,
				"ous/ou-ex12-loopb001.json":      `{"OrganizationalUnits": [{"Id": "ou-ex12-loopa001", "Name": "a"}]}`,
				"accounts/ou-ex12-loopa001.json": `{"Accounts": []}`,
			},
			"ou-ex12-loopa001 is not an OU reached from the root r-ex12: its OUs are in a cycle"},
		{"a parent's OU list missing, with the command that writes it",
			map[string]any{"ous/" + devOU + ".json": nil},
			"ous/ou-ex12-dev00001.json: missing: write it with `aws organizations list-organizational-units-for-parent --parent-id ou-ex12-dev00001 > ous/ou-ex12-dev00001.json`"},
		{"an account without its SCP list, while the organization has SCPs",
			map[string]any{"scps/" + accountAID + ".json": nil},
			"scps/222222222222.json: missing: write it with `aws organizations list-policies-for-target --target-id 222222222222 --filter SERVICE_CONTROL_POLICY"},
		{"a policy listed as an SCP that is an RCP",
			map[string]any{"scps/" + accountAID + ".json": `{"Policies": [{"Id": "p-RCPFullAWSAccess", "Name": "RCPFullAWSAccess", "Type": "RESOURCE_CONTROL_POLICY"}]}`},
			"scps/222222222222.json: Policies[0] p-RCPFullAWSAccess is of type RESOURCE_CONTROL_POLICY, not SERVICE_CONTROL_POLICY"},
		{"an attached policy whose document is missing",
			map[string]any{"policies/p-rootguard1.json": nil},
			"policies/p-rootguard1.json: missing: write it with `aws organizations describe-policy --policy-id p-rootguard1"},
		{"describe-organization output without the management account",
			map[string]any{"organization.json": `{"Organization": {"Id": "o-exampleorg1"}}`},
			`organization.json: Organization.MasterAccountId "": want the management account's 12-digit ID`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadOrganization(orgFolder(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLoadOrganizationWarnsOfAMissingSnapshot(t *testing.T) {
	org, err := LoadOrganization(orgFolder(t, map[string]any{"snapshots/" + accountBID + ".json": nil}))
	if err != nil {
		t.Fatal(err)
	}
	if len(org.Warnings) != 1 || !strings.Contains(org.Warnings[0], "account 333333333333 (data) has no snapshot") {
		t.Errorf("warnings %q; want one naming account 333333333333", org.Warnings)
	}
	m, err := NewOrgModel(org)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Lookup(acctA + "user/alice"); !ok {
		t.Error("the other accounts' principals are not in the model")
	}
}

// An organization of one account, with no SCPs or RCPs, answers as that
// account's snapshot does alone.
func TestOrgOfOneAccountAnswersAsTheAccount(t *testing.T) {
	dir := orgFolder(t, map[string]any{"snapshots/" + accountBID + ".json": nil, "snapshots/111111111111.json": nil})
	for _, d := range []string{"scps", "rcps"} {
		if err := os.RemoveAll(filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	org, err := LoadOrganization(dir)
	if err != nil {
		t.Fatal(err)
	}
	om, err := NewOrgModel(org)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(readTestdata(t, "org-cross/snapshots/222222222222.json"), "a.json")
	if err != nil {
		t.Fatal(err)
	}
	sm, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	for _, action := range []string{"iam:CreateUser", "sts:AssumeRole"} {
		q := Question{Action: action, All: true}
		oa, err := om.WhoCanReach(q, om.Graph())
		if err != nil {
			t.Fatal(err)
		}
		sa, err := sm.WhoCanReach(q, sm.Graph())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pathRows(oa), pathRows(sa); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: organization\n%s\naccount\n%s", action, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// An S3 ARN names no account: the question's ResourceAccount places the
// bucket, and a caller of another account then needs the bucket's policy,
// which this bucket does not have.
func TestOrgResourceAccountOfAnARNWithout(t *testing.T) {
	m := orgModel(t, nil)
	cases := []struct {
		name    string
		account string
		want    []string
	}{
		{"without it, each admin is asked as if the bucket were in its own account", "",
			[]string{mgmtAcct + "user/ops Allowed", acctA + "user/dev-admin Allowed"}},
		{"in B, no one: the admins are of other accounts, and B's principals have no S3 grant", accountBID, nil},
		{"in A, A's admin only", accountAID, []string{acctA + "user/dev-admin Allowed"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ans, err := m.WhoCan(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::data-of-b/report.csv", ResourceAccount: tc.account})
			if err != nil {
				t.Fatal(err)
			}
			if got := pathRows(ans); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestAccountOf(t *testing.T) {
	cases := map[string]string{
		"arn:aws:iam::111122223333:role/a":                        "111122223333",
		"arn:aws:sts::111122223333:assumed-role/a/s":              "111122223333",
		"arn:aws:sqs:us-east-1:111122223333:q":                    "111122223333",
		"arn:aws:s3:::bucket/key":                                 "",
		"arn:aws:iam::aws:policy/ReadOnlyAccess":                  "aws",
		"arn:aws:iam::111122223333":                               "",
		"ec2.amazonaws.com":                                       "",
		"*":                                                       "",
		"arn:aws-cn:secretsmanager:cn-north-1:111122223333:x:y:z": "111122223333",
	}
	for arn, want := range cases {
		if got := accountOf(arn); got != want {
			t.Errorf("accountOf(%q) = %q, want %q", arn, got, want)
		}
	}
}

// RCPs do not apply to the management account's resources: "RCPs don't
// affect resources in the management account"
// (https://docs.aws.amazon.com/organizations/latest/userguide/orgs_manage_policies_rcps.html).
// The same RCP at the root refuses a caller outside the organization on
// A's queue, not on the management account's.
func TestOrgManagementAccountExemptFromRCPs(t *testing.T) {
	orgOnly, attach := orgPolicy("p-orgonly001", "RESOURCE_CONTROL_POLICY",
		`{"Version":"2012-10-17","Statement":[{"Sid":"OnlyTheOrg","Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*",`+
			`"Condition":{"StringNotEqualsIfExists":{"aws:PrincipalOrgID":"o-exampleorg1"}}}]}`)
	m := orgModel(t, map[string]any{"policies/p-orgonly001.json": orgOnly, "rcps/r-ex12.json": attach})
	anyPermission, err := policy.CompileOne(policy.Named{Name: "admin", Document: anyPermission}, policy.Identity)
	if err != nil {
		t.Fatal(err)
	}
	outsider := &Principal{ARN: "arn:aws:iam::444455556666:user/mallory", Kind: KindUser, Caller: "arn:aws:iam::444455556666:user/mallory", identity: []*policy.Compiled{anyPermission}}
	for queue, want := range map[string]policy.Decision{
		"arn:aws:sqs:us-east-1:111111111111:orders": policy.Allowed,
		"arn:aws:sqs:us-east-1:222222222222:orders": policy.ExplicitDeny,
	} {
		doc, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"444455556666"},"Action":"sqs:SendMessage","Resource":"`+queue+`"}]}`), policy.Resource)
		if err != nil {
			t.Fatal(err)
		}
		a, err := m.asker(Question{Action: "sqs:SendMessage", Resource: queue, ResourcePolicy: &policy.Named{Name: "queue policy", Document: doc}})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.decide(outsider); got != want {
			t.Errorf("%s: %s, want %s", queue, got, want)
		}
	}
}

// The requests of an organization's principal carry its ID and the path
// of the account's OU, as AWS sets aws:PrincipalOrgPaths
// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalorgpaths);
// a value the question gives stands.
func TestOrgPrincipalKeys(t *testing.T) {
	m := orgModel(t, nil)
	alice, ok := m.Lookup(acctA + "user/alice")
	if !ok {
		t.Fatal("no alice")
	}
	r := m.request(alice, "s3:GetObject", "*", nil)
	if v, _ := r.Context.Get("aws:PrincipalOrgID"); len(v) != 1 || v[0] != orgID {
		t.Errorf("aws:PrincipalOrgID = %q, want %s", v, orgID)
	}
	if v, _ := r.Context.Get("aws:PrincipalOrgPaths"); len(v) != 1 || v[0] != "o-exampleorg1/r-ex12/ou-ex12-apps0001/ou-ex12-dev00001/" || !r.Context.IsMultivalued("aws:PrincipalOrgPaths") {
		t.Errorf("aws:PrincipalOrgPaths = %q, want the one path o-exampleorg1/r-ex12/ou-ex12-apps0001/ou-ex12-dev00001/", v)
	}
	r = m.request(alice, "s3:GetObject", "*", map[string][]string{"aws:PrincipalOrgID": {"o-given00001"}})
	if v, _ := r.Context.Get("aws:PrincipalOrgID"); len(v) != 1 || v[0] != "o-given00001" {
		t.Errorf("aws:PrincipalOrgID = %q, want the question's o-given00001", v)
	}
	single := testModel(t, Org{})
	p, _ := single.Lookup(acct + "user/alice")
	if _, ok := single.request(p, "s3:GetObject", "*", nil).Context.Get("aws:PrincipalOrgID"); ok {
		t.Error("one account's requests carry aws:PrincipalOrgID, which no input gives")
	}
}

// FuzzLoadOrganization writes arbitrary bytes as one file of the folder:
// the reader refuses or reads, and never panics.
func FuzzLoadOrganization(f *testing.F) {
	names := []string{"organization.json", "roots.json", "ous/r-ex12.json", "accounts/ou-ex12-dev00001.json", "scps/222222222222.json", "policies/p-rootguard1.json", "snapshots/222222222222.json"}
	for i, name := range names {
		data, err := os.ReadFile(filepath.Join("testdata", "org-cross", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), data)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		dir := orgFolder(t, map[string]any{names[int(which)%len(names)]: string(data)})
		org, err := LoadOrganization(dir)
		if err != nil {
			return
		}
		if _, err := NewOrgModel(org); err != nil && !strings.Contains(err.Error(), dir) {
			t.Errorf("model error %q does not name the folder", err)
		}
	})
}
