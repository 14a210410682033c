package whocan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// On the example account alice reaches the reports bucket in four steps,
// role/a in three, role/b in two, role/c, dave and erin in one. Bounding
// the search to two steps lists those within two, and says what it left.
func TestMaxStepsBoundsTheSearchAndSaysSo(t *testing.T) {
	m := testModel(t, Org{})
	g := m.Graph()
	q := Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv", MaxSteps: 2}
	a, err := m.WhoCanReach(q, g)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range a.Rows {
		if len(r.Path) > 2 {
			t.Errorf("%s: a path of %d steps under --max-steps 2", r.ARN, len(r.Path))
		}
		if len(r.Path) > 0 {
			paths = append(paths, short(r.ARN))
		}
	}
	slices.Sort(paths)
	if want := "role/b role/c user/dave user/erin"; strings.Join(paths, " ") != want {
		t.Errorf("paths to %s, want %s", strings.Join(paths, " "), want)
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "more than 2 steps were not searched") {
		t.Errorf("warnings %q, want one saying paths of more than 2 steps were not searched", a.Warnings)
	}
	// Unbounded, nothing is said.
	q.MaxSteps = 0
	if a, _ = m.WhoCanReach(q, g); len(a.Warnings) != 0 {
		t.Errorf("unbounded search warns %q", a.Warnings)
	}
}

// A deadline already past builds no node's edges: only the principals
// allowed themselves are listed, and the answer says how much was left.
func TestTimeLimitAnswersWithWhatWasBuilt(t *testing.T) {
	m := testModel(t, Org{})
	g, err := m.BuildGraph(context.Background(), BuildOptions{Deadline: time.Now().Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	if g.Unbuilt != g.nodes() || g.Edges() != 0 {
		t.Fatalf("%d of %d nodes unbuilt, %d edges; want every node unbuilt and no edge", g.Unbuilt, g.nodes(), g.Edges())
	}
	a, err := m.WhoCanReach(Question{Action: "s3:GetObject", Resource: "arn:aws:s3:::reports/q1.csv"}, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Rows {
		if len(r.Path) > 0 {
			t.Errorf("%s has a path in a graph with no edges", r.ARN)
		}
	}
	if len(a.Warnings) != 1 || !strings.Contains(a.Warnings[0], "time limit stopped the graph") {
		t.Errorf("warnings %q, want one about the time limit", a.Warnings)
	}
}

// Building stops with the context's error as soon as the context ends,
// and reports progress until then, the last report once the work stops.
func TestBuildingStopsWhenTheContextEnds(t *testing.T) {
	m := generatedModel(t, 2000, 5, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reports [][2]int
	_, err := m.BuildGraph(ctx, BuildOptions{Progress: func(done, total int) {
		reports = append(reports, [2]int{done, total})
	}})
	if err != nil {
		t.Fatal(err)
	}
	last := reports[len(reports)-1]
	if last[0] != last[1] {
		t.Errorf("last progress report %d of %d, want every node done", last[0], last[1])
	}
	cancel()
	_, err = m.BuildGraph(ctx, BuildOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("building under an ended context: %v, want context.Canceled", err)
	}
}
