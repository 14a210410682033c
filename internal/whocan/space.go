package whocan

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"leash.dev/leash/policy"
)

// An edge action on every role or user of a large account is the graph's
// square: a principal that may iam:UpdateAssumeRolePolicy on "*" has an
// edge to every role. The graph instead splits each set of targets an edge
// action acts on (a space) into classes, whose members the engine cannot
// tell apart: the same account and the same resource policy, so that two
// requests differing only in the target get one decision unless some
// Resource pattern of the principal's names one and not the other (a
// request's context does not depend on its resource). For each principal
// the graph asks once per class, with a representative target no pattern
// names, then asks alone each member that one of the principal's own
// patterns singles out. An allowed representative is one class edge, "every
// member but these", where the enumeration would have drawn one edge per
// member.

// space is the targets of one edge action, split into classes.
type space struct {
	// members are target nodes, sorted by ARN; arns are their ARNs, and
	// byRev their indexes sorted by reversed ARN.
	members []int32
	arns    []string
	byRev   []int32
	// classOf is each member's class (an index into classes).
	classOf []int32
	classes []*class
	// repOf is the representative's ARN per account.
	repOf map[string]string
	// index is each member node's index in members.
	index map[int32]int
	cache sync.Map // resolved glob -> *matchSet
}

// class is members of a space that one request cannot tell apart.
type class struct {
	id      int32 // the graph's class number
	members []int32
	account string
	rep     string
	// trust is the resource policy every member shares, nil for none.
	trust *policy.Compiled
}

// repName is the name of the targets that represent a class: a name no
// policy of an account is expected to hold, and if one does the principal
// holding it is asked about each member instead.
const repName = "leash-who-can-any"

// newSpace splits targets into classes by account and by key (the
// resource policy's text, "" for none).
func (g *Graph) newSpace(targets []int32, key func(int32) string, trust func(int32) *policy.Compiled) *space {
	s := &space{repOf: map[string]string{}, index: make(map[int32]int, len(targets))}
	s.members = append([]int32(nil), targets...)
	sort.Slice(s.members, func(i, j int) bool { return g.m.Principals[s.members[i]].ARN < g.m.Principals[s.members[j]].ARN })
	s.arns = make([]string, len(s.members))
	byKey := map[string]*class{}
	s.classOf = make([]int32, len(s.members))
	for i, j := range s.members {
		s.index[j] = i
		p := g.m.Principals[j]
		s.arns[i] = p.ARN
		a, _ := policy.ParseARN(p.ARN)
		if _, ok := s.repOf[a.Account]; !ok {
			kind := "role/"
			if p.Kind == KindUser {
				kind = "user/"
			}
			s.repOf[a.Account] = "arn:" + a.Partition + ":iam::" + a.Account + ":" + kind + repName
		}
		k := a.Account + "\x00" + key(j)
		c, ok := byKey[k]
		if !ok {
			c = &class{id: int32(len(g.classes)), account: a.Account, rep: s.repOf[a.Account], trust: trust(j)}
			byKey[k] = c
			g.classes = append(g.classes, c)
			s.classes = append(s.classes, c)
		}
		c.members = append(c.members, j)
		s.classOf[i] = int32(slices.Index(s.classes, c))
	}
	s.byRev = make([]int32, len(s.members))
	for i := range s.byRev {
		s.byRev[i] = int32(i)
	}
	sort.Slice(s.byRev, func(x, y int) bool {
		return reverseLess(s.arns[s.byRev[x]], s.arns[s.byRev[y]])
	})
	for _, c := range s.classes {
		for _, j := range c.members {
			g.classesOf[j] = append(g.classesOf[j], c.id)
		}
	}
	return s
}

// reverseLess orders strings by their reversed bytes.
func reverseLess(a, b string) bool {
	for i, j := len(a)-1, len(b)-1; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if a[i] != b[j] {
			return a[i] < b[j]
		}
	}
	return len(a) < len(b)
}

// matchSet is what one glob names in a space.
type matchSet struct {
	once sync.Once
	glob policy.ARNGlob
	// matched are the member indexes the glob names; single those of them
	// in classes where the glob is not universal, as nodes.
	matched []int32
	single  []int32
	// universal is, per class index, whether the glob names every member
	// and the representative: then it tells no member from another.
	universal []bool
	// tainted are the classes whose representative the glob names while
	// it is not universal there: the representative stands for no one.
	tainted []int32
}

func (s *space) matches(glob string) *matchSet {
	v, _ := s.cache.LoadOrStore(glob, &matchSet{})
	ms := v.(*matchSet)
	ms.once.Do(func() { s.fill(ms, glob) })
	return ms
}

// fill finds the members a glob names, looking only at those that share
// its literal prefix or its literal suffix.
func (s *space) fill(ms *matchSet, glob string) {
	ms.glob = policy.CompileARNGlob(glob)
	lit := glob
	if i := strings.IndexAny(glob, "*?"); i >= 0 {
		lit = glob[:i]
	}
	lo := sort.SearchStrings(s.arns, lit)
	hi := lo + sort.Search(len(s.arns)-lo, func(k int) bool { return !strings.HasPrefix(s.arns[lo+k], lit) })
	suffix := glob[strings.LastIndexAny(glob, "*?")+1:]
	if strings.ContainsAny(glob, "*?") && len(suffix) > 0 {
		// Members ending in the suffix form one run of byRev.
		first := sort.Search(len(s.byRev), func(k int) bool { return !reverseLess(s.arns[s.byRev[k]], suffix) })
		last := first
		for last < len(s.byRev) && strings.HasSuffix(s.arns[s.byRev[last]], suffix) {
			last++
		}
		if last-first < hi-lo {
			for _, i := range s.byRev[first:last] {
				if ms.glob.Match(s.arns[i]) {
					ms.matched = append(ms.matched, i)
				}
			}
			slices.Sort(ms.matched)
			s.classify(ms)
			return
		}
	}
	for i := lo; i < hi; i++ {
		if ms.glob.Match(s.arns[i]) {
			ms.matched = append(ms.matched, int32(i))
		}
	}
	s.classify(ms)
}

func (s *space) classify(ms *matchSet) {
	count := make([]int, len(s.classes))
	for _, i := range ms.matched {
		count[s.classOf[i]]++
	}
	ms.universal = make([]bool, len(s.classes))
	for ci, c := range s.classes {
		rep := ms.glob.Match(c.rep)
		ms.universal[ci] = rep && count[ci] == len(c.members)
		if rep && !ms.universal[ci] {
			ms.tainted = append(ms.tainted, int32(ci))
		}
	}
	for _, i := range ms.matched {
		if !ms.universal[s.classOf[i]] {
			ms.single = append(ms.single, s.members[i])
		}
	}
}

// classIndex is the index in s.classes of member node j's class.
func (s *space) classIndex(j int32) int32 {
	return s.classOf[s.index[j]]
}

// classEdge is "From may act as every member of the class but except",
// by one edge kind.
type classEdge struct {
	From   int32
	class  int32
	kind   edgeKind
	aux    int32
	except []int32 // sorted nodes
}

// reaches reports whether the class edge leads to member j.
func (e *classEdge) reaches(j int32) bool {
	_, found := slices.BinarySearch(e.except, j)
	return !found
}

// reach asks which members of s p may act on with action, class by class:
// members asked alone are returned as nodes, whole classes as class edges.
// eligible limits the classes asked (nil for all).
func (g *Graph) reach(a *asking, s *space, action string, self int32, eligible func(*class) bool) (each []int32, classes []classEdge) {
	// The members p's own patterns single out, by class index, and the
	// classes whose representative they name.
	single := map[int32][]int32{}
	tainted := map[int32]bool{}
	all := false
	visit := func(rp policy.ResourcePattern) {
		if all {
			return
		}
		glob, res := rp.Resolve(&a.r.Context)
		switch res {
		case policy.MatchesNothing:
			return
		case policy.Unresolvable:
			all = true
			return
		}
		ms := s.matches(glob)
		for _, j := range ms.single {
			ci := s.classIndex(j)
			single[ci] = append(single[ci], j)
		}
		for _, ci := range ms.tainted {
			tainted[ci] = true
		}
	}
	for _, c := range a.p.identity {
		c.ResourcePatterns(action, visit)
	}
	if a.p.boundary != nil {
		a.p.boundary.ResourcePatterns(action, visit)
	}
	g.m.orgResourcePatterns(action, visit)
	for ci, c := range s.classes {
		if eligible != nil && !eligible(c) {
			continue
		}
		if all || tainted[int32(ci)] || g.opts.enumerate {
			for _, j := range c.members {
				if j != self && a.may(action, g.m.Principals[j].ARN, c.trust) {
					each = append(each, j)
				}
			}
			continue
		}
		alone := single[int32(ci)]
		slices.Sort(alone)
		alone = slices.Compact(alone)
		if a.may(action, c.rep, c.trust) {
			e := classEdge{class: c.id}
			for _, j := range alone {
				if !a.may(action, g.m.Principals[j].ARN, c.trust) {
					e.except = append(e.except, j)
				}
			}
			if slices.Contains(c.members, self) {
				e.except = append(e.except, self)
				slices.Sort(e.except)
				e.except = slices.Compact(e.except)
			}
			if len(e.except) < len(c.members) {
				classes = append(classes, e)
			}
			continue
		}
		for _, j := range alone {
			if j != self && a.may(action, g.m.Principals[j].ARN, c.trust) {
				each = append(each, j)
			}
		}
	}
	return each, classes
}

// to is the class edge's edge to member j.
func (e *classEdge) to(j int32) Edge {
	return Edge{From: e.From, To: j, kind: e.kind, aux: e.aux}
}
