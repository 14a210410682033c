package whocan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// groupJoinModel is testdata/groupjoin.json: users that may add themselves
// to readers (s3:GetObject on reports), admins (AdministratorAccess) or
// operators (sts:AssumeRole role/ops, which may iam:CreateUser).
func groupJoinModel(t *testing.T) *Model {
	t.Helper()
	s, err := Parse(readTestdata(t, "groupjoin.json"), "groupjoin.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reachAnswers is who-can --escalation's answer as "ARN" → path text, or
// the decision for principals allowed directly.
func reachAnswers(t *testing.T, m *Model, q Question) (map[string]string, *Answer) {
	t.Helper()
	a, err := m.WhoCanReach(q, m.Graph())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range a.Rows {
		if _, dup := got[r.ARN]; dup {
			t.Errorf("%s is listed twice", r.ARN)
		}
		if len(r.Path) > 0 {
			got[r.ARN] = PathText(r, a.Action)
		} else {
			got[r.ARN] = r.Decision
		}
	}
	return got, a
}

func TestWhoCanReachByJoiningAGroup(t *testing.T) {
	const (
		join         = `user/joiner may iam:AddUserToGroup itself into group/%s (inline policy join of user joiner Statement[0] "Join")`
		readReports  = `group readers's managed policy arn:aws:iam::111122223333:policy/ReadReports Statement[0] "Read"`
		adminsPolicy = `group admins's managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]`
	)
	m := groupJoinModel(t)
	cases := []struct {
		name string
		q    Question
		// want is every row: path text, or "Allowed".
		want map[string]string
	}{
		{
			name: "a group that grants the action is one step; of two such groups, the one without any permission explains",
			q:    Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"},
			want: map[string]string{
				acct + "user/ann":    "Allowed",
				acct + "user/reader": "Allowed",
				acct + "user/joiner": strings.ReplaceAll(join, "%s", "readers") + " → as a member of group/readers, user/joiner is allowed s3:GetObject by " + readReports,
				acct + "user/reader-joiner": `user/reader-joiner may iam:AddUserToGroup itself into group/readers (inline policy join-readers of user reader-joiner Statement[0] "JoinReaders") → ` +
					"as a member of group/readers, user/reader-joiner is allowed s3:GetObject by " + readReports,
				acct + "user/group-writer": `user/group-writer may iam:AddUserToGroup itself into group/readers (inline policy join-and-write of user group-writer Statement[0] "JoinReaders") → ` +
					"as a member of group/readers, user/group-writer is allowed s3:GetObject by " + readReports,
				// Its boundary allows s3:*, so AdministratorAccess gives it
				// s3:GetObject, within the boundary.
				acct + "user/bounded-joiner": `user/bounded-joiner may iam:AddUserToGroup itself into group/admins (inline policy join-admins of user bounded-joiner Statement[0] "JoinAdmins"; boundary arn:aws:iam::111122223333:policy/S3AndJoin Statement[0] "S3") → ` +
					"as a member of group/admins, user/bounded-joiner is allowed s3:GetObject by " + adminsPolicy + `; boundary arn:aws:iam::111122223333:policy/S3AndJoin Statement[0] "S3"`,
			},
		},
		{
			// reader-joiner may join readers only: s3:GetObject, not
			// iam:*. bounded-joiner may join admins, but its boundary
			// allows s3 and joining only. group-manager may add anyone
			// to any group, but a role is in no group and adding others
			// gains it nothing.
			name: "joining gives the group's permissions only, under the user's boundary",
			q:    Question{Action: "iam:CreateUser"},
			want: map[string]string{
				acct + "role/ops":    "Allowed",
				acct + "user/ann":    "Allowed",
				acct + "user/joiner": strings.ReplaceAll(join, "%s", "admins") + " → as a member of group/admins, user/joiner is allowed iam:CreateUser by " + adminsPolicy,
				acct + "user/ops-joiner": `user/ops-joiner may iam:AddUserToGroup itself into group/operators (inline policy join-operators of user ops-joiner Statement[0] "JoinOperators") → ` +
					`as a member of group/operators, user/ops-joiner may sts:AssumeRole role/ops (trust: Statement[0]) → role/ops is allowed iam:CreateUser by inline policy create-users of role ops Statement[0] "CreateUsers"`,
				// readers grants no edge action, but group-writer's own
				// policy may write readers once it is in it.
				acct + "user/group-writer": `user/group-writer may iam:AddUserToGroup itself into group/readers (inline policy join-and-write of user group-writer Statement[0] "JoinReaders") → ` +
					`as a member of group/readers, user/group-writer may iam:PutGroupPolicy on group/readers (inline policy join-and-write of user group-writer Statement[1] "WriteReaders"): any permission`,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := reachAnswers(t, m, c.q)
			for arn, w := range c.want {
				if got[arn] != w {
					t.Errorf("%s:\n got %q\nwant %q", arn, got[arn], w)
				}
			}
			for arn, g := range got {
				if _, ok := c.want[arn]; !ok {
					t.Errorf("%s is listed and should not be: %s", arn, g)
				}
			}
		})
	}
}

// The member node is no principal: JSON rows are users and roles, and the
// join step names the group it joins for scripts.
func TestJoinStepInJSONAndDot(t *testing.T) {
	m := groupJoinModel(t)
	_, a := reachAnswers(t, m, Question{Action: "iam:CreateUser"})
	var b bytes.Buffer
	if err := WriteJSON(&b, a); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Principals []struct {
			ARN  string
			Kind string
			Path []Step
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var joiner []Step
	for _, p := range got.Principals {
		if p.Kind != "user" && p.Kind != "role" {
			t.Errorf("row %s has kind %q", p.ARN, p.Kind)
		}
		if p.ARN == acct+"user/joiner" {
			joiner = p.Path
		}
	}
	if len(joiner) != 1 || joiner[0].From != acct+"user/joiner" || joiner[0].To != acct+"user/joiner" ||
		joiner[0].ToGroup != acct+"group/admins" || joiner[0].FromGroup != "" || joiner[0].Action != "iam:AddUserToGroup" || joiner[0].Resource != acct+"group/admins" {
		t.Errorf("joiner's path = %+v, want one iam:AddUserToGroup step on group/admins to user/joiner with toGroup group/admins", joiner)
	}
	if !strings.Contains(b.String(), `"toGroup": "arn:aws:iam::111122223333:group/admins"`) {
		t.Errorf("JSON lacks toGroup:\n%s", b.String())
	}
	b.Reset()
	if err := WriteDot(&b, a); err != nil {
		t.Fatal(err)
	}
	member := `"arn:aws:iam::111122223333:user/ops-joiner as a member of arn:aws:iam::111122223333:group/operators"`
	for _, line := range []string{
		`  ` + member + ` [label="user/ops-joiner as a member of group/operators"];`,
		`  "arn:aws:iam::111122223333:user/ops-joiner" -> ` + member + ` [label="iam:AddUserToGroup"];`,
		`  ` + member + ` -> "arn:aws:iam::111122223333:role/ops" [label="sts:AssumeRole"];`,
		`  "arn:aws:iam::111122223333:user/joiner as a member of arn:aws:iam::111122223333:group/admins" -> "iam:CreateUser on *" [label="allowed"];`,
	} {
		if !strings.Contains(b.String(), line+"\n") {
			t.Errorf("dot output lacks %q:\n%s", line, b.String())
		}
	}
}

// leash check's chain findings from a user that may join groups: the path
// through the group, and no finding for the member node itself.
func TestChainFindingsThroughAGroup(t *testing.T) {
	m := groupJoinModel(t)
	g := m.Graph()
	cases := []struct {
		user string
		want []string // severity and message
	}{
		{"joiner", []string{
			`critical reaches any permission in 2 steps through other principals or by joining group/admins: ` +
				`user/joiner may iam:AddUserToGroup itself into group/admins (inline policy join of user joiner Statement[0] "Join") → ` +
				`as a member of group/admins, user/joiner may iam:PutUserPolicy on user/joiner (group admins's managed policy arn:aws:iam::aws:policy/AdministratorAccess Statement[0]): any permission`,
		}},
		{"ops-joiner", []string{
			`high can act as role arn:aws:iam::111122223333:role/ops in 2 step(s), with its permissions: ` +
				`user/ops-joiner may iam:AddUserToGroup itself into group/operators (inline policy join-operators of user ops-joiner Statement[0] "JoinOperators") → ` +
				`as a member of group/operators, user/ops-joiner may sts:AssumeRole role/ops (trust: Statement[0])`,
		}},
		{"reader-joiner", nil},
		{"bounded-joiner", nil},
	}
	for _, c := range cases {
		t.Run(c.user, func(t *testing.T) {
			i, ok := m.Index(acct + "user/" + c.user)
			if !ok {
				t.Fatalf("no user %s", c.user)
			}
			var got []string
			for _, f := range g.ChainFindings(i) {
				got = append(got, f.Severity.String()+" "+f.Message)
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// Member nodes are made only for groups a user may join and is not in:
// reader is in readers already, and roles join no group. A group that
// allows no edge action (readers) gets a member node only where joining
// it leads to writing it (group-writer); for the others it is a name a
// question asks about.
func TestMemberNodesOnlyForJoinableGroups(t *testing.T) {
	m := groupJoinModel(t)
	g := m.Graph()
	var got []string
	for _, mb := range g.members {
		got = append(got, m.Principals[mb.user].Name+"+"+mb.group)
	}
	want := "joiner+admins bounded-joiner+admins ops-joiner+operators group-writer+readers"
	if strings.Join(got, " ") != want {
		t.Errorf("member nodes %q, want %q", strings.Join(got, " "), want)
	}
	var only []string
	for _, name := range []string{"joiner", "reader-joiner"} {
		i, _ := m.Index(acct + "user/" + name)
		only = append(only, name+"+"+strings.Join(g.joinOnly[i], ","))
	}
	if want := "joiner+readers reader-joiner+readers"; strings.Join(only, " ") != want {
		t.Errorf("groups joined without a member node %q, want %q", strings.Join(only, " "), want)
	}
	// readers allows no action an edge is asked for: its member nodes are
	// asked only for the self edge, which group-writer's own grant gives.
	for n, mb := range g.members {
		node := g.Admin + 1 + int32(n)
		name := m.Principals[mb.user].Name + "+" + mb.group
		if wantEdges := mb.group != "readers"; mb.edges != wantEdges {
			t.Errorf("%s: asked for every edge %v, want %v", name, mb.edges, wantEdges)
		}
		if name == "group-writer+readers" && (len(g.Out[node]) != 1 || g.Out[node][0].To != g.Admin) {
			t.Errorf("%s: edges %v, want its self edge only", name, g.Out[node])
		}
	}
}
