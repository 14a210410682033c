package whocan

import (
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

const acct = "arn:aws:iam::111122223333:"

func testModel(t *testing.T, org Org) *Model {
	t.Helper()
	s, err := Parse(readTestdata(t, "../../../examples/check/account.json"), "account.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, org)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readPolicy(t *testing.T, file string, kind policy.Kind) *policy.Named {
	t.Helper()
	doc, err := policy.Parse(readTestdata(t, file), kind)
	if err != nil {
		t.Fatal(err)
	}
	return &policy.Named{Name: strings.TrimSuffix(file, ".json"), Document: doc}
}

// rowsText is each row as "ARN decision: statement; statement".
func rowsText(a *Answer) []string {
	var out []string
	for _, r := range a.Rows {
		names := make([]string, len(r.Statements))
		for i, s := range r.Statements {
			names[i] = s.Name()
		}
		out = append(out, fmt.Sprintf("%s %s: %s", r.ARN, r.Decision, strings.Join(names, "; ")))
	}
	return out
}

func TestWhoCanDirect(t *testing.T) {
	const object = "arn:aws:s3:::reports/q1.csv"
	admin := "managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]"
	reports := `group devs's managed policy arn:aws:iam::111122223333:policy/ReportsRead Statement[0] "Reports"`
	scp := readPolicy(t, "scp-deny-s3.json", policy.SCP)
	// frank's group and one of his managed policies are not in the
	// snapshot: where the others do not allow and the missing ones could,
	// his "no" is not known, and he is listed with it. An explicit deny
	// stands, and a trust policy naming someone else refuses him whatever
	// his missing policies say: both leave him out.
	frank := acct + "user/frank ImplicitDeny: "
	cases := []struct {
		name string
		org  Org
		q    Question
		want []string
	}{
		{"users allowed through a group's managed policy, admins by theirs; an explicit Deny in a group and a boundary refuse",
			Org{}, Question{Action: "s3:GetObject", Resource: object},
			[]string{
				acct + "role/service/ec2-admin Allowed: " + admin,
				acct + "user/admin Allowed: " + admin,
				acct + "user/bob Allowed: " + reports,
				acct + "user/frank Allowed: " + reports,
			}},
		{"--all shows the explicit Deny of carol's group and the boundary's implicit deny",
			Org{}, Question{Action: "s3:GetObject", Resource: object, All: true},
			[]string{
				acct + "role/service/ec2-admin Allowed: " + admin,
				acct + "user/admin Allowed: " + admin,
				acct + "user/bob Allowed: " + reports,
				acct + "user/frank Allowed: " + reports,
				acct + "role/a ImplicitDeny: ",
				acct + "role/b ImplicitDeny: ",
				acct + "role/bounded ImplicitDeny: inline policy all-s3 of role bounded Statement[0]",
				acct + "role/c ImplicitDeny: ",
				acct + "role/reader ImplicitDeny: ",
				acct + "user/alice ImplicitDeny: ",
				acct + `user/carol ExplicitDeny: inline policy deny-s3 of group no-s3 Statement[0] "NoS3"`,
				acct + "user/dave ImplicitDeny: ",
				acct + "user/erin ImplicitDeny: ",
				acct + "user/gina ImplicitDeny: ",
			}},
		{"a bucket policy naming a role session grants the session, not the role",
			Org{}, Question{Action: "s3:GetObject", Resource: object, ResourcePolicy: readPolicy(t, "bucket-policy.json", policy.Resource)},
			[]string{
				acct + "role/service/ec2-admin Allowed: " + admin,
				acct + "user/admin Allowed: " + admin,
				acct + "user/bob Allowed: " + reports,
				acct + "user/frank Allowed: " + reports,
				`arn:aws:sts::111122223333:assumed-role/reader/build-42 Allowed: resource policy bucket-policy Statement[0] "BuildReads"`,
			}},
		{"an SCP that denies leaves no one",
			Org{SCPs: [][]policy.Named{{*scp}}}, Question{Action: "s3:GetObject", Resource: object},
			nil},
		{"sts:AssumeRole on a role whose trust names the account: any principal its identity policies allow",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/bounded"},
			[]string{
				acct + "role/service/ec2-admin Allowed: " + admin + "; trust policy of role bounded Statement[0]",
				acct + "user/admin Allowed: " + admin + "; trust policy of role bounded Statement[0]",
				acct + "user/gina Allowed: inline policy assume-any of user gina Statement[0]; trust policy of role bounded Statement[0]",
				frank + "trust policy of role bounded Statement[0]",
			}},
		{"sts:AssumeRole on a role of the account is decided with its trust policy",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/a"},
			[]string{acct + `user/alice Allowed: inline policy assume-a of user alice Statement[0] "AssumeA"; trust policy of role a Statement[0]`}},
		{"a --resource-policy given for a role replaces its trust policy: a trust naming bob grants him alone",
			Org{}, Question{Action: "sts:AssumeRole", Resource: acct + "role/a", ResourcePolicy: trustNaming(t, acct+"user/bob")},
			[]string{acct + "user/bob Allowed: resource policy new-trust Statement[0]"}},
		{"an action only admins have",
			Org{}, Question{Action: "iam:CreateUser"},
			[]string{acct + "role/service/ec2-admin Allowed: " + admin, acct + "user/admin Allowed: " + admin, frank}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := testModel(t, c.org).WhoCan(c.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsText(a); !reflect.DeepEqual(got, c.want) {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			wantAllowed := strings.Contains(strings.Join(c.want, "\n"), " Allowed:")
			if a.Allowed() != wantAllowed {
				t.Errorf("Allowed() = %v, want %v", a.Allowed(), wantAllowed)
			}
		})
	}
}

func TestWhoCanIncompletePrincipal(t *testing.T) {
	a, err := testModel(t, Org{}).WhoCan(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"managed policy arn:aws:iam::111122223333:policy/Missing (attached to user frank) is not in the snapshot",
		"group ghosts is not in the snapshot",
	}
	for _, r := range a.Rows {
		if r.ARN == acct+"user/frank" {
			if !reflect.DeepEqual(r.Incomplete, want) {
				t.Errorf("frank's incomplete = %q, want %q", r.Incomplete, want)
			}
			return
		}
	}
	t.Errorf("frank, allowed by his group devs, is missing from %v", rowsText(a))
}

func TestWhoCanReachPaths(t *testing.T) {
	m := testModel(t, Org{})
	g := m.Graph()
	a, err := m.WhoCanReach(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"}, g)
	if err != nil {
		t.Fatal(err)
	}
	admin := "managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]"
	attach := `role/c may iam:AttachRolePolicy on role/c (inline policy self-attach of role c Statement[0] "AttachSelf"): any permission`
	want := map[string]string{
		acct + "role/c": attach,
		acct + "role/b": "role/b may sts:AssumeRole role/c (trust: Statement[0]) → " + attach,
		acct + "role/a": "role/a may sts:AssumeRole role/b (trust: Statement[0]) → role/b may sts:AssumeRole role/c (trust: Statement[0]) → " + attach,
		acct + "user/alice": "user/alice may sts:AssumeRole role/a (trust: Statement[0]) → role/a may sts:AssumeRole role/b (trust: Statement[0]) → " +
			"role/b may sts:AssumeRole role/c (trust: Statement[0]) → " + attach,
		acct + "user/dave": `user/dave may iam:PassRole role/ec2-admin to ec2.amazonaws.com (inline policy launch of user dave Statement[0] "Pass") with ec2:RunInstances (LEASH-ESC-014; the role trusts ec2.amazonaws.com) → role/ec2-admin is allowed s3:GetObject by ` + admin,
		acct + "user/erin": `user/erin may iam:CreateAccessKey for user/admin (inline policy keys of user erin Statement[0] "AdminKeys") and sign in as it → user/admin is allowed s3:GetObject by ` + admin,
	}
	got := map[string]string{}
	var order []string
	for _, r := range a.Rows {
		order = append(order, r.ARN)
		if len(r.Path) > 0 {
			got[r.ARN] = PathText(r, a.Action)
		}
	}
	for arn, w := range want {
		if got[arn] != w {
			t.Errorf("%s:\n got %q\nwant %q", arn, got[arn], w)
		}
	}
	for arn := range got {
		if _, ok := want[arn]; !ok {
			t.Errorf("%s has a path it should not: %s", arn, got[arn])
		}
	}
	wantOrder := []string{
		acct + "role/service/ec2-admin", acct + "user/admin", acct + "user/bob", acct + "user/frank",
		acct + "role/c", acct + "user/dave", acct + "user/erin", acct + "role/b", acct + "role/a", acct + "user/alice",
	}
	if !reflect.DeepEqual(order, wantOrder) {
		t.Errorf("order:\n%s\nwant allowed first, then by path length:\n%s", strings.Join(order, "\n"), strings.Join(wantOrder, "\n"))
	}
}

// The boundary of role bounded allows only ec2:Describe*: its own
// iam:AttachRolePolicy on itself is no edge, and s3:* is not allowed.
func TestGraphHonoursBoundaries(t *testing.T) {
	m := testModel(t, Org{})
	g := m.Graph()
	i, _ := m.Index(acct + "role/bounded")
	if len(g.Out[i]) != 0 {
		t.Errorf("role bounded has edges %v; its boundary refuses every action but ec2:Describe*", g.Out[i])
	}
}

// With an SCP denying the question's action, nobody reaches it: not even
// through "any permission", which the SCP still limits.
func TestWhoCanReachUnderSCP(t *testing.T) {
	m := testModel(t, Org{SCPs: [][]policy.Named{{*readPolicy(t, "scp-deny-s3.json", policy.SCP)}}})
	a, err := m.WhoCanReach(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"}, m.Graph())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) != 0 || a.Allowed() {
		t.Errorf("rows %v, want none", rowsText(a))
	}
}

func TestReachableFromAlice(t *testing.T) {
	m := testModel(t, Org{})
	g := m.Graph()
	i, _ := m.Index(acct + "user/alice")
	var got []string
	for _, p := range g.Reachable(i) {
		to := AnyPermission
		if p.To != g.Admin {
			to = m.Principals[p.To].ARN
		}
		got = append(got, fmt.Sprintf("%s in %d", to, len(p.Steps)))
	}
	want := []string{acct + "role/a in 1", acct + "role/b in 2", acct + "role/c in 3", "* in 4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reachable = %v, want %v", got, want)
	}
}

func TestWriteDot(t *testing.T) {
	m := testModel(t, Org{})
	a, err := m.WhoCanReach(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"}, m.Graph())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteDot(&b, a); err != nil {
		t.Fatal(err)
	}
	dot := b.String()
	for _, line := range []string{
		"digraph whocan {",
		`  "s3:GetObject on arn:aws:s3:::reports/q1.csv" [shape=doubleoctagon];`,
		`  "arn:aws:iam::111122223333:user/alice" -> "arn:aws:iam::111122223333:role/a" [label="sts:AssumeRole"];`,
		`  "arn:aws:iam::111122223333:role/c" -> "any permission" [label="iam:AttachRolePolicy"];`,
		`  "any permission" -> "s3:GetObject on arn:aws:s3:::reports/q1.csv" [label=""];`,
		`  "arn:aws:iam::111122223333:user/dave" -> "arn:aws:iam::111122223333:role/service/ec2-admin" [label="iam:PassRole"];`,
		`  "arn:aws:iam::111122223333:user/bob" -> "s3:GetObject on arn:aws:s3:::reports/q1.csv" [label="allowed"];`,
	} {
		if !strings.Contains(dot, line+"\n") {
			t.Errorf("dot output lacks %q:\n%s", line, dot)
		}
	}
	if !strings.HasSuffix(dot, "}\n") || strings.Count(dot, "{") != 1 {
		t.Errorf("dot output is not one digraph:\n%s", dot)
	}
	if strings.Contains(dot, "user/carol") {
		t.Errorf("dot output names carol, who cannot:\n%s", dot)
	}
	// Where Graphviz is installed, it must accept the output; in CI
	// (.ci/run installs it) a missing dot fails rather than passing unseen.
	path, err := exec.LookPath("dot")
	if err != nil && os.Getenv("CI") == "true" {
		t.Fatalf("Graphviz's dot is not installed (%v): install it with `apt-get install graphviz`, as .ci/run does", err)
	}
	if err == nil {
		cmd := exec.Command(path, "-Tsvg")
		cmd.Stdin = strings.NewReader(dot)
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "<svg") {
			t.Errorf("dot -Tsvg: %v\n%s", err, out)
		}
	}
}

// Any permission includes acting as any principal: when the question's
// answer is refused to "any permission" (a trust policy naming one user),
// the principals that reach any permission still reach it through that
// user.
func TestWhoCanReachThroughAnyPermission(t *testing.T) {
	m := testModel(t, Org{})
	a, err := m.WhoCanReach(Question{Action: "sts:AssumeRole", Resource: acct + "role/a"}, m.Graph())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range a.Rows {
		if len(r.Path) > 0 {
			got[r.ARN] = PathText(r, a.Action)
		} else {
			got[r.ARN] = r.Decision
		}
	}
	alice := `with any permission, may act as user/alice (iam:CreateAccessKey, iam:UpdateAssumeRolePolicy) → user/alice is allowed sts:AssumeRole by inline policy assume-a of user alice Statement[0] "AssumeA"; trust policy of role a Statement[0]`
	want := map[string]string{
		acct + "user/alice":             "Allowed",
		acct + "user/admin":             "user/admin may iam:PutUserPolicy on user/admin (managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]): any permission → " + alice,
		acct + "role/service/ec2-admin": "role/ec2-admin may iam:PutRolePolicy on role/ec2-admin (managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]): any permission → " + alice,
		acct + "role/c":                 `role/c may iam:AttachRolePolicy on role/c (inline policy self-attach of role c Statement[0] "AttachSelf"): any permission → ` + alice,
	}
	for arn, w := range want {
		if got[arn] != w {
			t.Errorf("%s:\n got %q\nwant %q", arn, got[arn], w)
		}
	}
	for _, arn := range []string{acct + "user/erin", acct + "user/dave", acct + "role/b", acct + "role/a"} {
		if got[arn] == "" {
			t.Errorf("%s does not reach alice's answer; it reaches a principal with any permission", arn)
		}
	}
	// frank's group and a managed policy of his are not in the snapshot:
	// his "no" is not known, and he is listed with it.
	if got[acct+"user/frank"] != "ImplicitDeny" {
		t.Errorf("frank, whose snapshot is incomplete: %q, want ImplicitDeny listed", got[acct+"user/frank"])
	}
	if len(got) != 9 {
		t.Errorf("rows %v: want alice, the 7 principals that reach her, and frank", got)
	}
}

func trustNaming(t *testing.T, arn string) *policy.Named {
	t.Helper()
	doc, err := policy.Parse([]byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"`+arn+`"},"Action":"sts:AssumeRole"}]}`), policy.Trust)
	if err != nil {
		t.Fatal(err)
	}
	return &policy.Named{Name: "new-trust", Document: doc}
}
