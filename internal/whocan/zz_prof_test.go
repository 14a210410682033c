package whocan

import (
	"os"
	"testing"
	"time"
)

func TestZZProfile(t *testing.T) {
	f := os.Getenv("WHOCAN_FILE")
	if f == "" {
		return
	}
	t0 := time.Now()
	data, _ := os.ReadFile(f)
	t1 := time.Now()
	s, err := Parse(data, f)
	if err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	m, err := NewModel(s, Org{})
	if err != nil {
		t.Fatal(err)
	}
	t3 := time.Now()
	a, _ := m.WhoCan(Question{Action: "s3:GetObject"})
	t4 := time.Now()
	var g *Graph
	if os.Getenv("WHOCAN_ESC") != "" {
		g = m.Graph()
		pe, me, ce := 0, 0, 0
		for i := range g.Out {
			if g.isMember(int32(i)) {
				me += len(g.Out[i])
			} else {
				pe += len(g.Out[i])
			}
			ce += len(g.ClassOut[i])
		}
		t.Logf("members %d, principal edges %d, member edges %d, class edges %d, classes %d", len(g.members), pe, me, ce, len(g.classes))
		_, _ = m.WhoCanReach(Question{Action: "s3:GetObject"}, g)
	}
	t5 := time.Now()
	t.Logf("read %v parse %v model %v ask %v (%d rows) graph+reach %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), len(a.Rows), t5.Sub(t4))
}
