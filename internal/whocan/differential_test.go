package whocan

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"leash.dev/leash/policy"
)

// generatedModel compiles an account that bench/cmd/accountgen writes: no
// one on the project wrote its principals, and its broad-IAM profile gives
// a few of them IAM writes on "*".
func generatedModel(t *testing.T, principals, broad int, seed uint64) *Model {
	t.Helper()
	file := filepath.Join(t.TempDir(), "account.json")
	cmd := exec.Command("go", "run", "../../bench/cmd/accountgen", "-seed", fmt.Sprint(seed),
		"-principals", fmt.Sprint(principals), "-policies", fmt.Sprint(principals), "-broad-iam", fmt.Sprint(broad), "-o", file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("accountgen: %v\n%s", err, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data, file)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ownSet is principal p's policies as `leash simulate` takes them, built
// from the snapshot alone: the model's compiled, shared documents play no
// part.
func ownSet(t *testing.T, m *Model, p *Principal) *policy.Policies {
	t.Helper()
	s := m.Snapshot
	var set policy.Set
	managed := func(arn string) {
		if mp, ok := s.Policies[arn]; ok && mp.Document != nil {
			set.Identity = append(set.Identity, policy.Named{Name: arn, Document: mp.Document})
		}
	}
	inline := func(list []Inline) {
		for _, in := range list {
			set.Identity = append(set.Identity, policy.Named{Name: in.Name, Document: in.Document})
		}
	}
	boundary := ""
	switch p.Kind {
	case KindUser:
		inline(p.user.Inline)
		seen := map[string]bool{}
		for _, arn := range p.user.Attached {
			seen[arn] = true
			managed(arn)
		}
		for _, name := range p.user.Groups {
			g := s.Groups[name]
			inline(g.Inline)
			for _, arn := range g.Attached {
				if !seen[arn] {
					seen[arn] = true
					managed(arn)
				}
			}
		}
		boundary = p.user.Boundary
	case KindRole:
		inline(p.role.Inline)
		for _, arn := range p.role.Attached {
			managed(arn)
		}
		boundary = p.role.Boundary
	}
	if mp, ok := s.Policies[boundary]; ok {
		set.Boundary = &policy.Named{Name: boundary, Document: mp.Document}
	}
	ps, err := policy.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// questions are the actions asked of generated accounts, on a resource or
// on "*".
var questions = []Question{
	{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"},
	{Action: "iam:CreateUser", Resource: "arn:aws:iam::123456789012:user/new"},
	{Action: "ec2:RunInstances"},
	{Action: "dynamodb:PutItem", Resource: "arn:aws:dynamodb:us-east-1:123456789012:table/orders"},
	{Action: "kms:Decrypt"},
	{Action: "lambda:CreateFunction"},
	{Action: "iam:PassRole"},
	{Action: "logs:PutLogEvents"},
}

// TestWhoCanEqualsEachPrincipalsOwnDecision asks generated accounts random
// questions and checks every principal's decision against the engine asked
// for that principal alone, as `leash simulate` would be.
func TestWhoCanEqualsEachPrincipalsOwnDecision(t *testing.T) {
	m := generatedModel(t, 400, 5, 3)
	r := rand.New(rand.NewPCG(3, 4))
	for range 6 {
		q := questions[r.IntN(len(questions))]
		q.All = true
		ans, err := m.WhoCan(q)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, row := range ans.Rows {
			got[row.ARN] = row.Decision
		}
		// A model compiled for the question's action alone answers alike,
		// to the deciding statements.
		one, err := NewModelFor(m.Snapshot, Org{}, q.Action)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := one.WhoCan(q)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := rowsText(alone), rowsText(ans); !slices.Equal(a, b) {
			t.Errorf("%s: the model for the action alone answers %d rows, the whole model %d", q.Action, len(a), len(b))
		}
		resource := q.Resource
		if resource == "" {
			resource = "*"
		}
		for _, p := range m.Principals {
			req := &policy.Request{Principal: p.Caller, Action: q.Action, Resource: resource}
			req.Context.AddPrincipalKeys(p.Caller)
			want := ownSet(t, m, p).Decide(req).String()
			if got[p.ARN] != want {
				t.Errorf("%s %s: who-can says %s, the engine alone %s", q.Action, p.ARN, got[p.ARN], want)
			}
		}
	}
}

// TestClassEdgesReachWhatAskingEveryTargetReaches builds the escalation
// graph twice over generated accounts, with class edges (a trust name's
// roles asked class by class from two roles on) and by asking every target
// alone, and checks that every question gets the same principals at the
// same path lengths, and that each step of each path is one the engine
// allows.
func TestClassEdgesReachWhatAskingEveryTargetReaches(t *testing.T) {
	for _, tc := range []struct {
		name              string
		principals, broad int
	}{
		{"typical", 300, 0},
		{"broad IAM", 300, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := generatedModel(t, tc.principals, tc.broad, 11)
			classes, every := bothGraphs(t, m)
			if classes.Edges() >= every.Edges() {
				t.Fatalf("class graph: %d edges; asking every target: %d edges", classes.Edges(), every.Edges())
			}
			compareGraphs(t, m, classes, every)
		})
	}
}

// lengths is each row's path length, -1 for an allowed principal.
func lengths(a *Answer) map[string]int {
	out := map[string]int{}
	for _, r := range a.Rows {
		if r.Decision == policy.Allowed.String() {
			out[r.ARN] = -1
		} else {
			out[r.ARN] = len(r.Path)
		}
	}
	return out
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func firstDifference(a, b map[string]int) string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		va, oka := a[k]
		vb, okb := b[k]
		if oka != okb || va != vb {
			return fmt.Sprintf("%s: %d (%v) against %d (%v)", k, va, oka, vb, okb)
		}
	}
	return "none"
}

// checkSteps asks the engine whether each step's principal may take the
// step's action on its resource.
func checkSteps(t *testing.T, m *Model, g *Graph, row Row) {
	t.Helper()
	for _, st := range row.Path {
		if st.From == AnyPermission {
			continue
		}
		p, ok := m.Lookup(st.From)
		if !ok {
			t.Fatalf("%s: step from %s, not a principal", row.ARN, st.From)
		}
		if st.FromGroup != "" {
			p = m.withGroup(p, groupName(m, st.FromGroup))
		}
		var res *policy.Compiled
		if q, ok := m.Lookup(st.Resource); ok && st.Action == "sts:AssumeRole" {
			res = q.trust
		}
		contexts := []map[string][]string{nil}
		if st.Action == "iam:PassRole" {
			contexts = nil
			for _, sp := range g.paths {
				contexts = append(contexts, map[string][]string{"iam:PassedToService": {sp.Service}})
			}
		}
		allowed := false
		for _, ctx := range contexts {
			if m.policies(p, res).Decide(m.request(p, st.Action, st.Resource, ctx)) == policy.Allowed {
				allowed = true
				break
			}
		}
		if !allowed {
			t.Errorf("%s: step %q: the engine does not allow %s %s on %s", row.ARN, st.Text, st.From, st.Action, st.Resource)
		}
	}
}

func groupName(m *Model, arn string) string {
	for name, g := range m.Snapshot.Groups {
		if g.ARN == arn {
			return name
		}
	}
	return ""
}

func countClassEdges(g *Graph) int {
	n := 0
	for _, es := range g.ClassOut {
		n += len(es)
	}
	return n
}

// TestClassEdgesReachWhatAskingEveryTargetReachesInAnOrganization is the
// same over a generated organization: roles trusting other accounts and
// aws:PrincipalOrgID, SCPs at three levels, an RCP at the root, each
// request under its caller's and its resource's.
func TestClassEdgesReachWhatAskingEveryTargetReachesInAnOrganization(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "org")
	cmd := exec.Command("go", "run", "../../bench/cmd/accountgen", "-seed", "5", "-accounts", "3",
		"-principals", "200", "-policies", "150", "-broad-iam", "5", "-o", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("accountgen: %v\n%s", err, out)
	}
	org, err := LoadOrganization(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewOrgModel(org)
	if err != nil {
		t.Fatal(err)
	}
	m.Defaults = map[string][]string{"aws:RequestedRegion": {"us-east-1"}}
	classes, every := bothGraphs(t, m)
	crossed := compareGraphs(t, m, classes, every)
	if crossed == 0 {
		t.Error("no path crosses accounts: the organization does not exercise cross-account edges")
	}
}

// bothGraphs builds m's graph with class edges (a trust name's roles asked
// class by class from two roles on) and by asking every target alone.
func bothGraphs(t *testing.T, m *Model) (classes, every *Graph) {
	t.Helper()
	classes, err := m.graph(context.Background(), graphOptions{spaceMin: 2})
	if err != nil {
		t.Fatal(err)
	}
	every, err = m.graph(context.Background(), graphOptions{spaceMin: 2, enumerate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d principals; classes %d, class edges %d, edges %d against %d", len(m.Principals), len(classes.classes), countClassEdges(classes), classes.Edges(), every.Edges())
	if countClassEdges(classes) == 0 {
		t.Fatal("no class edge: the account does not exercise them")
	}
	return classes, every
}

// compareGraphs asks every question of both graphs: the same principals
// at the same path lengths, and each step of each path one the engine
// allows. It returns how many steps cross accounts.
func compareGraphs(t *testing.T, m *Model, classes, every *Graph) (crossed int) {
	t.Helper()
	for _, q := range questions {
		a, err := m.WhoCanReach(q, classes)
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.WhoCanReach(q, every)
		if err != nil {
			t.Fatal(err)
		}
		if ga, gb := lengths(a), lengths(b); !mapsEqual(ga, gb) {
			t.Errorf("%s: class edges give %d principals, asking every target %d; first difference: %s", q.Action, len(ga), len(gb), firstDifference(ga, gb))
		}
		paths := 0
		for _, row := range a.Rows {
			checkSteps(t, m, classes, row)
			if len(row.Path) > 0 {
				paths++
			}
			for _, st := range row.Path {
				if st.From != AnyPermission && accountOf(st.Resource) != "" && accountOf(st.From) != accountOf(st.Resource) {
					crossed++
				}
			}
		}
		t.Logf("%s: %d principals, %d by a path", q.Action, len(a.Rows), paths)
	}
	return crossed
}
