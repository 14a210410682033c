package catalog

import (
	"slices"
	"strings"
)

// maxSuggestions is how many names Suggest returns at most.
const maxSuggestions = 3

// Suggest returns up to three actions or action patterns, best first, close to
// a name or pattern that matches nothing: the service prefix is corrected
// first when it is unknown (by edit distance to every prefix), then the action
// name by edit distance to the service's action names; a pattern's literal
// start before its first wildcard is corrected the same way, as in
// "ec2:Descibe*" to "ec2:Describe*". A name without a colon is taken for a
// service prefix. Suggest returns nothing when no name is close.
func (c *Catalog) Suggest(name string) []string {
	prefix, action, hasColon := strings.Cut(name, ":")
	var rows [3][]int
	type candidate struct {
		s    *service
		dist int
	}
	var services []candidate
	if s := c.service(prefix); s != nil {
		services = append(services, candidate{s, 0})
	} else if !hasWildcard(prefix) {
		limit := tolerance(len(prefix), 2)
		for i := range c.services {
			s := &c.services[i]
			if abs(len(s.info.Prefix)-len(prefix)) > limit {
				continue
			}
			if d := distance(prefix, s.info.Prefix, limit, &rows); d <= limit {
				services = append(services, candidate{s, d})
			}
		}
		slices.SortStableFunc(services, func(a, b candidate) int { return a.dist - b.dist })
		services = services[:min(len(services), maxSuggestions)]
	}

	type suggestion struct {
		text string
		dist int
	}
	var out []suggestion
	add := func(text string, dist int) {
		for i := range out {
			if strings.EqualFold(out[i].text, text) {
				out[i].dist = min(out[i].dist, dist)
				return
			}
		}
		out = append(out, suggestion{text, dist})
	}
	for _, sc := range services {
		s := sc.s
		if !hasColon {
			add(s.info.Prefix+":*", sc.dist)
			continue
		}
		// The action part may be right and only the prefix wrong.
		if m := appendMatches(nil, s.actions, action); len(m) > 0 {
			if hasWildcard(action) {
				add(s.info.Prefix+":"+action, sc.dist)
			} else {
				add(m[0].String(), sc.dist)
			}
			continue
		}
		lit, wild := action, ""
		if i := strings.IndexAny(action, "*?"); i >= 0 {
			lit, wild = action[:i], action[i:]
		}
		if lit == "" {
			continue
		}
		limit := tolerance(len(lit), 3)
		for _, a := range s.actions {
			if wild == "" {
				if abs(len(a.Name)-len(lit)) > limit {
					continue
				}
				if d := distance(lit, a.Name, limit, &rows); d <= limit {
					add(a.String(), sc.dist+d)
				}
				continue
			}
			// The start of the name closest to the literal start, and
			// the pattern with it in place of the literal start.
			best, bestLen := limit+1, 0
			for n := max(1, len(lit)-limit); n <= min(len(a.Name), len(lit)+limit); n++ {
				if d := distance(lit, a.Name[:n], limit, &rows); d < best || (d == best && abs(n-len(lit)) < abs(bestLen-len(lit))) {
					best, bestLen = d, n
				}
			}
			if best <= limit {
				if p := a.Name[:bestLen] + wild; globFold(p, a.Name) {
					add(s.info.Prefix+":"+p, sc.dist+best)
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b suggestion) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		// Closer in length first: "DescribeInstance" suggests
		// DescribeInstances before DescribeInstanceStatus.
		if da, db := abs(len(a.text)-len(name)), abs(len(b.text)-len(name)); da != db {
			return da - db
		}
		return compareFold(a.text, b.text)
	})
	// Past the best, only names as close or one edit further.
	var texts []string
	for _, s := range out {
		if len(texts) == maxSuggestions || s.dist > out[0].dist+1 {
			break
		}
		texts = append(texts, s.text)
	}
	return texts
}

// tolerance is how many edits make a name of length n close: a third of it,
// at least one and at most ceiling.
func tolerance(n, ceiling int) int {
	return max(1, min(ceiling, n/3))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
