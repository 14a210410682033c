package whocan

// search is the breadth-first search from the answer's targets over the
// reversed edges: each node reached gets the edge of its shortest path. A
// class edge "every member but except" is followed from the first member
// reached that it does not except; each class keeps the edges still
// waiting, and an edge waits only while every member reached so far is one
// it excepts, so the search costs the edges plus their exceptions.
type search struct {
	g *Graph
	// ad are the Admin nodes: the graph's, or one per account of an
	// organization after the graph's nodes (orgadmin.go).
	ad      adminNodes
	reached []bool
	via     []via
	queue   []int32
	// waiting is, per class, the class edges (from<<32 | i) not yet
	// followed.
	waiting [][]int
	// depth is each reached node's path length; maxSteps, when above
	// zero, stops the search there, and cut says it left a node unsearched.
	depth    []int32
	maxSteps int32
	cut      bool
}

type viaKind uint8

const (
	viaEdge   viaKind = iota
	viaTarget         // the node is allowed itself
	viaAdmin          // Admin acting as the principal edge.To
	viaJoin           // the user joins group, and is then allowed
)

// via is how a node reaches a target: along edge, unless it is one.
type via struct {
	kind  viaKind
	edge  Edge
	group string
}

func (g *Graph) search() *search {
	ad := g.adminNodes()
	size := g.nodes() + ad.extra()
	s := &search{g: g, ad: ad, reached: make([]bool, size), via: make([]via, size), waiting: make([][]int, len(g.classes)), depth: make([]int32, size)}
	for c, in := range g.classIn {
		s.waiting[c] = append([]int(nil), in...)
	}
	return s
}

// target marks node i as allowed itself.
func (s *search) target(i int32) {
	if !s.reached[i] {
		s.reached[i], s.via[i] = true, via{kind: viaTarget}
		s.queue = append(s.queue, i)
	}
}

// joinTarget marks user i as allowed once it joins the group: one step
// from a target, so it is called after every target.
func (s *search) joinTarget(i int32, group string) {
	s.reach(i, via{kind: viaJoin, group: group}, 1)
}

func (s *search) reach(from int32, v via, depth int32) {
	if !s.reached[from] {
		s.reached[from], s.via[from], s.depth[from] = true, v, depth
		s.queue = append(s.queue, from)
	}
}

func (s *search) run() {
	g := s.g
	n := int32(len(g.m.Principals))
	for len(s.queue) > 0 {
		to := s.queue[0]
		s.queue = s.queue[1:]
		d := s.depth[to] + 1
		if s.maxSteps > 0 && d > s.maxSteps {
			if len(s.ad.inEdges(int(to))) > 0 || to < n && len(g.classesOf[to]) > 0 {
				s.cut = true
			}
			continue
		}
		// Any permission includes acting as any principal (a new access
		// key, a rewritten trust policy): Admin reaches the first principal
		// found, when the answer itself does not allow Admin.
		if to < n {
			if admin := int32(s.ad.of(g.m.Principals[to])); !s.reached[admin] {
				s.reach(admin, via{kind: viaAdmin, edge: Edge{From: admin, To: to}}, d)
			}
		}
		for _, code := range s.ad.inEdges(int(to)) {
			s.reach(int32(code>>32), via{edge: g.Out[code>>32][code&(1<<32-1)]}, d)
		}
		if to >= n {
			continue
		}
		for _, c := range g.classesOf[to] {
			kept := s.waiting[c][:0]
			for _, code := range s.waiting[c] {
				from := int32(code >> 32)
				if s.reached[from] {
					continue
				}
				ce := &g.ClassOut[from][code&(1<<32-1)]
				if ce.reaches(to) {
					s.reach(from, via{edge: ce.to(to)}, d)
					continue
				}
				kept = append(kept, code)
			}
			s.waiting[c] = kept
		}
	}
}
