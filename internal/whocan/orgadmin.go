package whocan

import "sort"

// In one account the graph's Admin node is any permission in the account.
// In an organization any permission is only ever in the account of the
// principal that gains it: it acts as that account's principals, not as
// another account's. The search of WhoCanReach therefore gives each account
// its own Admin node, after the graph's nodes, reached by the edges to
// Admin of that account's principals; with one account the graph's Admin
// node is the only one, and the search is as it always was.
type adminNodes struct {
	g *Graph
	// accounts are the organization's accounts with principals, in order;
	// nil for one account.
	accounts []string
	byID     map[string]int
	// in is each account's Admin node's in-edges, as Graph.in holds them.
	in [][]int
}

func (g *Graph) adminNodes() adminNodes {
	ad := adminNodes{g: g}
	if g.m.org == nil {
		return ad
	}
	ad.byID = map[string]int{}
	for _, p := range g.m.Principals {
		if acct := accountOf(p.ARN); acct != "" {
			if _, ok := ad.byID[acct]; !ok {
				ad.byID[acct] = 0
				ad.accounts = append(ad.accounts, acct)
			}
		}
	}
	sort.Strings(ad.accounts)
	for i, acct := range ad.accounts {
		ad.byID[acct] = i
	}
	ad.in = make([][]int, len(ad.accounts))
	for _, code := range g.in[g.Admin] {
		k := ad.byID[accountOf(g.principal(int32(code>>32)).ARN)]
		ad.in[k] = append(ad.in[k], code)
	}
	return ad
}

// extra is how many nodes the search adds after the graph's.
func (ad adminNodes) extra() int { return len(ad.accounts) }

// nodes is every Admin node.
func (ad adminNodes) nodes() []int {
	if ad.accounts == nil {
		return []int{int(ad.g.Admin)}
	}
	out := make([]int, len(ad.accounts))
	for i := range out {
		out[i] = ad.g.nodes() + i
	}
	return out
}

// account is an Admin node's account ("" for the graph's own).
func (ad adminNodes) account(node int) string {
	if ad.accounts == nil {
		return ad.g.m.Account
	}
	return ad.accounts[node-ad.g.nodes()]
}

// of is the Admin node of principal p's account.
func (ad adminNodes) of(p *Principal) int {
	if ad.accounts == nil {
		return int(ad.g.Admin)
	}
	return ad.g.nodes() + ad.byID[accountOf(p.ARN)]
}

// isAdmin reports whether node is an Admin node.
func (ad adminNodes) isAdmin(node int) bool {
	if ad.accounts == nil {
		return node == int(ad.g.Admin)
	}
	return node >= ad.g.nodes()
}

// inEdges is node's in-edges, as Graph.in holds them.
func (ad adminNodes) inEdges(node int) []int {
	if ad.accounts != nil && node >= ad.g.nodes() {
		return ad.in[node-ad.g.nodes()]
	}
	return ad.g.in[node]
}

// to is the node an edge leads to: an edge to Admin leads to the Admin
// node of its principal's account.
func (ad adminNodes) to(e Edge) int {
	if e.To == ad.g.Admin {
		return ad.of(ad.g.principal(e.From))
	}
	return int(e.To)
}
