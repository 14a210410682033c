package analyze

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"leash.dev/leash/policy"
)

// PolicySet is the identity-based policies of one principal (its inline and
// attached managed policies, and those of its groups), which Escalation
// reads together so that a Deny in one policy neutralizes an Allow in
// another.
type PolicySet struct {
	Policies []policy.Named
	// Boundary is the principal's permissions boundary, nil for none. A
	// path whose actions the boundary does not allow is not reported.
	Boundary *policy.Named
	// SCPs are the service control policies over the principal's account,
	// one list per organization level, root first, as policy.Set holds
	// them. A path an SCP refuses is not reported.
	SCPs [][]policy.Named
	// Now is the analysis clock, against which conditions on dates are
	// decided; the zero time means the time Escalation is called.
	Now time.Time
}

// Escalation reports the known privilege-escalation paths the set opens
// (the catalogue in escalation_paths.json, read by esccatalogue.go): a
// path is reported when every action it needs is allowed by the set on some
// resource of the right type, as the policy engine decides with the set's
// explicit denies applied.
//
// principal is the ARN of the user or role holding the policies, or ""
// when unknown. For a user or role (or a role session) Escalation also
// reports, as LEASH-ESC-SELF, each action the set allows on the
// principal's own ARN that widens the principal itself, and, as an info
// finding LEASH-ESC-SELF-GUARD, each Deny statement that keeps such an
// allowed action from applying to it. Other paths leave the principal's
// own ARN to that check, and for a user, joining a group (LEASH-ESC-009) is
// reported as self-escalation.
//
// IDs and severities: LEASH-ESC-001 to LEASH-ESC-042, critical or high;
// LEASH-ESC-SELF, critical (inline or attached policies), high (trust,
// boundary, group membership) or medium (a user's own keys and password);
// LEASH-ESC-SELF-GUARD, info; LEASH-ESC-ATTACH-GUARD, info, for an
// Attach*Policy grant whose iam:PolicyARN condition keeps its path closed;
// LEASH-ESC-000, high, when the set does not
// compile. Each finding's Path is the JSON path of the enabling statement
// (Statement[i]) and its Message names the actions, resources and every
// statement the path uses.
//
// The resources asked about are a representative ARN of each resource type
// ("any role") and one ARN instantiated from each resource pattern of the
// set's Allow statements (arn:aws:iam::*:role/krops-* gives a krops-* role
// in the principal's account). A path open on the representative ARN
// reaches arbitrary resources and is critical; one open only on
// name-scoped resources is high.
//
// Each action is asked of the set with its permissions boundary and SCPs,
// when given: what they refuse opens no path.
//
// Most conditions cannot be known statically. Allow statements are taken
// as though their conditions hold, except those Escalation decides (see
// escconditions.go): iam:PassedToService, evaluated with the service each
// iam:PassRole path passes the role to; iam:PolicyARN, evaluated for the
// Attach*Policy actions with AdministratorAccess and with a customer
// managed policy; autoscaling:LaunchConfigurationName, evaluated for the
// Auto Scaling group actions with a launch configuration named; and dates
// (aws:CurrentTime, aws:EpochTime, aws:TokenIssueTime) against set.Now: a
// statement that can no longer
// apply opens no path, one that applies only later is reported with a
// note. Deny statements with any other condition are left out: only
// unconditional denies (and denies on decided keys) neutralize a path. The
// findings say when an enabling statement has conditions.
func Escalation(set PolicySet, principal string) []Finding {
	a, err := newEscAnalyzer(set, principal)
	if err != nil {
		return []Finding{{
			ID: "LEASH-ESC-000", Severity: High,
			Message: "the policies could not be compiled for escalation analysis: " + err.Error(),
			Fix:     "fix the policy so that it parses and compiles (leash check reports where)",
		}}
	}
	var out []Finding
	for i := range escCatalogue.paths {
		out = append(out, a.path(&escCatalogue.paths[i])...)
	}
	out = append(out, a.selfEscalation()...)
	out = append(out, a.policyARNGuards(out)...)
	return out
}

// escFiller stands for the text a wildcard matches in a representative
// resource name.
const escFiller = "leash-any"

// candidate is a resource asked about.
type candidate struct {
	arn string
	// broad: the candidate stands for any resource of its type.
	broad bool
	// sources are the resource patterns it was made from.
	sources []string
}

// hit is one allowed action on one candidate, and the Allow statements that
// allowed it.
type hit struct {
	action string
	cand   *candidate
	stmts  []stmtID
}

// stmtID names a statement of the set: policy index and statement index.
type stmtID struct{ policy, stmt int }

// escAnalyzer holds a set compiled two ways: with its (unconditional)
// denies, and with its allows only, to tell an action never granted from
// one a deny neutralizes.
type escAnalyzer struct {
	set       PolicySet
	principal string
	// self is the principal's own role or user ARN; selfKind is resRole or
	// resUser; both empty when the principal is neither.
	self      string
	selfKind  resourceKind
	partition string
	account   string

	full, allowOnly *policy.Policies
	// fullIndex and allowIndex map, per policy, a statement's index in the
	// compiled document to its index in the original.
	fullIndex, allowIndex [][]int

	// later holds, for each Allow statement that applies only from a date
	// to come, the conditions that say when.
	later map[stmtID][]policy.Condition

	// patterns are the resource patterns of the set's Allow statements.
	patterns []string
	cands    map[resourceKind][]*candidate
	hits     map[hitKey][]hit
}

func newEscAnalyzer(set PolicySet, principal string) (*escAnalyzer, error) {
	a := &escAnalyzer{set: set, principal: principal, partition: "aws", account: "123456789012",
		cands: map[resourceKind][]*candidate{}, later: map[stmtID][]policy.Condition{}, hits: map[hitKey][]hit{}}
	now := set.Now
	if now.IsZero() {
		now = time.Now()
	}
	if p, ok := policy.ParseARN(principal); ok {
		a.partition = p.Partition
		if p.Account != "" {
			a.account = p.Account
		}
		res := p.Resource
		switch {
		case p.Service == "iam" && strings.HasPrefix(res, "role/"):
			a.self, a.selfKind = principal, resRole
		case p.Service == "iam" && strings.HasPrefix(res, "user/"):
			a.self, a.selfKind = principal, resUser
		case p.Service == "sts" && strings.HasPrefix(res, "assumed-role/"):
			// A role session widens its role; the role's path is not in
			// the session ARN, so this is the role's ARN without a path.
			if role, _, ok := strings.Cut(res[len("assumed-role/"):], "/"); ok {
				a.self, a.selfKind = policy.ARN{Partition: p.Partition, Service: "iam", Account: p.Account, Resource: "role/" + role}.String(), resRole
			}
		}
	}
	var full, allowOnly policy.Set
	seen := map[string]bool{}
	for pi, n := range set.Policies {
		name := strconv.Itoa(pi)
		if n.Document == nil {
			a.fullIndex = append(a.fullIndex, nil)
			a.allowIndex = append(a.allowIndex, nil)
			continue
		}
		fd := &policy.Document{Version: n.Document.Version}
		ad := &policy.Document{Version: n.Document.Version}
		var fi, ai []int
		for si, st := range n.Document.Statements {
			conds, others := splitDecided(st.Conditions)
			switch st.Effect {
			case policy.Allow:
				live, pending := dateLiveness(others, now)
				if live == liveNever {
					continue
				}
				if live == liveLater {
					a.later[stmtID{pi, si}] = pending
				}
				st.Conditions = conds
				fd.Statements, fi = append(fd.Statements, st), append(fi, si)
				ad.Statements, ai = append(ad.Statements, st), append(ai, si)
				for _, r := range st.Resource {
					if !seen[r] {
						seen[r] = true
						a.patterns = append(a.patterns, r)
					}
				}
			case policy.Deny:
				if len(others) == 0 {
					fd.Statements, fi = append(fd.Statements, st), append(fi, si)
				}
			}
		}
		full.Identity = append(full.Identity, policy.Named{Name: name, Document: fd})
		allowOnly.Identity = append(allowOnly.Identity, policy.Named{Name: name, Document: ad})
		a.fullIndex = append(a.fullIndex, fi)
		a.allowIndex = append(a.allowIndex, ai)
	}
	if set.Boundary != nil {
		b := *set.Boundary
		b.Name = "boundary"
		b.Document = capDocument(b.Document, now)
		full.Boundary = &b
	}
	for li, level := range set.SCPs {
		var l []policy.Named
		for i, n := range level {
			l = append(l, policy.Named{Name: fmt.Sprintf("scp-%d-%d", li, i), Document: capDocument(n.Document, now)})
		}
		full.SCPs = append(full.SCPs, l)
	}
	var err error
	if a.full, err = policy.Compile(full); err != nil {
		return nil, err
	}
	if a.allowOnly, err = policy.Compile(allowOnly); err != nil {
		return nil, err
	}
	return a, nil
}

// capDocument prepares a permissions boundary or an SCP as the identity
// policies are prepared: Allow statements taken as though their undecided
// conditions hold (dropped when their dates have passed), Deny statements
// kept only when unconditional or conditioned on decided keys. A cap read
// this way refuses only what it refuses whatever the request's context.
func capDocument(doc *policy.Document, now time.Time) *policy.Document {
	if doc == nil {
		return nil
	}
	out := &policy.Document{Version: doc.Version, ID: doc.ID}
	for _, st := range doc.Statements {
		decided, others := splitDecided(st.Conditions)
		switch st.Effect {
		case policy.Allow:
			if live, _ := dateLiveness(others, now); live == liveNever {
				continue
			}
			st.Conditions = decided
		case policy.Deny:
			if len(others) > 0 {
				continue
			}
		}
		out.Statements = append(out.Statements, st)
	}
	return out
}

// ask evaluates one request against p; compiled is fullIndex or allowIndex.
func (a *escAnalyzer) ask(p *policy.Policies, index [][]int, action, resource, passTo string) (policy.Decision, []stmtID) {
	r := &policy.Request{Principal: a.principal, Action: action, Resource: resource}
	if a.principal != "" {
		r.Context.AddPrincipalKeys(a.principal)
	}
	if passTo != "" && strings.EqualFold(action, "iam:PassRole") {
		r.Context.Set("iam:PassedToService", passTo)
	}
	var res policy.Result
	if key, values := a.decidedValues(action); key != "" {
		// Open when any of the values is allowed.
		for i, v := range values {
			r.Context.Set(key, v)
			if got := p.Explain(r); i == 0 || got.Decision == policy.Allowed {
				res = got
				if got.Decision == policy.Allowed {
					break
				}
			}
		}
	} else {
		res = p.Explain(r)
	}
	var ids []stmtID
	for _, s := range res.Statements {
		pi, err := strconv.Atoi(s.Policy)
		if err != nil || pi >= len(index) || s.Index >= len(index[pi]) {
			continue
		}
		ids = append(ids, stmtID{pi, index[pi][s.Index]})
	}
	return res.Decision, ids
}

// candidates returns the resources to ask about for a resource type: the
// representative one, then one per resource pattern of the set that can
// name a resource of the type. The principal's own ARN is left out; the
// self-escalation check asks about it.
func (a *escAnalyzer) candidates(k resourceKind) []*candidate {
	if c, ok := a.cands[k]; ok {
		return c
	}
	if k.anyOnly {
		c := []*candidate{{arn: "*", broad: true, sources: []string{"*"}}}
		a.cands[k] = c
		return c
	}
	byARN := map[string]*candidate{}
	var out []*candidate
	add := func(arn string, broad bool, source string) {
		if arn == a.self {
			return
		}
		c := byARN[arn]
		if c == nil {
			c = &candidate{arn: arn}
			byARN[arn] = c
			out = append(out, c)
		}
		c.broad = c.broad || broad
		c.sources = append(c.sources, source)
	}
	sample := k.sample
	if sample == "" {
		sample = escFiller
	}
	add(a.arnOf(k, sample), true, "*")
	var ctx policy.Context
	if a.principal != "" {
		ctx.AddPrincipalKeys(a.principal)
	}
	for _, p := range a.patterns {
		if arn, broad, ok := a.instantiate(k, p, &ctx); ok {
			add(arn, broad, p)
		}
	}
	a.cands[k] = out
	return out
}

func (a *escAnalyzer) arnOf(k resourceKind, name string) string {
	region := ""
	if k.region {
		region = "us-east-1"
	}
	return "arn:" + a.partition + ":" + k.service + ":" + region + ":" + a.account + ":" + k.prefix + name
}

// instantiate makes from a resource pattern an ARN of type k that the
// pattern may match, with each wildcard replaced by sample text; the
// engine then decides whether it is allowed. broad is set when the pattern
// leaves the resource's name entirely to wildcards.
func (a *escAnalyzer) instantiate(k resourceKind, pattern string, ctx *policy.Context) (arn string, broad, ok bool) {
	if pattern == "*" {
		return "", false, false // the representative ARN stands for it
	}
	p, ok := policy.ParseARN(pattern)
	if !ok {
		return "", false, false
	}
	// A variable may stand for the account (${aws:PrincipalAccount}) as
	// well as in the resource.
	for _, part := range []*string{&p.Partition, &p.Region, &p.Account} {
		if *part, ok = substituteVariables(*part, ctx); !ok {
			return "", false, false
		}
	}
	region := ""
	if k.region {
		region = "us-east-1"
	}
	fillPart := func(p, whole string) string {
		if strings.Trim(p, "*") == "" {
			return whole
		}
		return strings.NewReplacer("*", "", "?", "x").Replace(p)
	}
	service := p.Service
	if !strings.ContainsAny(service, "*?") && !strings.EqualFold(service, k.service) {
		return "", false, false
	}
	res, ok := substituteVariables(p.Resource, ctx)
	if !ok {
		return "", false, false
	}
	lit := res
	if i := strings.IndexAny(res, "*?"); i >= 0 {
		lit = res[:i]
	}
	var rest string
	switch {
	case strings.HasPrefix(lit, k.prefix):
		rest = res[len(k.prefix):]
	case strings.HasPrefix(k.prefix, lit) && len(lit) < len(res):
		// "*", "role*", "*krops*": the wildcard after lit can absorb the
		// rest of the prefix.
		rest = res[len(lit):]
	default:
		return "", false, false
	}
	name := strings.NewReplacer("*", escFiller, "?", "x").Replace(rest)
	arn = "arn:" + fillPart(p.Partition, a.partition) + ":" + fillPart(service, k.service) + ":" +
		fillPart(p.Region, region) + ":" + fillPart(p.Account, a.account) + ":" + k.prefix + name
	return arn, rest != "" && strings.Trim(rest, "*") == "", true
}

// substituteVariables replaces the policy variables of a resource pattern
// with their values in ctx (or their defaults); ok is false when one has
// neither.
func substituteVariables(s string, ctx *policy.Context) (string, bool) {
	if !strings.Contains(s, "${") {
		return s, true
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), true
		}
		b.WriteString(s[:i])
		body := s[i+2 : i+end]
		s = s[i+end+1:]
		key, def, hasDef := strings.Cut(body, ",")
		if v, found := ctx.Get(strings.TrimSpace(key)); found && len(v) == 1 {
			b.WriteString(v[0])
			continue
		}
		def = strings.Trim(strings.TrimSpace(def), "'")
		if !hasDef {
			return "", false
		}
		b.WriteString(def)
	}
}

// stepHits returns what the set allows of a step's actions.
func (a *escAnalyzer) stepHits(step escStep, passTo string) []hit {
	var hits []hit
	for _, action := range step.actions {
		hits = append(hits, a.actionHits(action, passTo)...)
	}
	return hits
}

// hitKey names one action asked of every candidate: passTo only matters to
// iam:PassRole.
type hitKey struct{ action, passTo string }

// actionHits returns what the set allows of one action, asked once per
// analysis: several paths share actions (codebuild:StartBuild, iam:PassRole
// to ec2.amazonaws.com).
func (a *escAnalyzer) actionHits(action, passTo string) []hit {
	key := hitKey{action: strings.ToLower(action)}
	if key.action == "iam:passrole" {
		key.passTo = passTo
	}
	if h, ok := a.hits[key]; ok {
		return h
	}
	k, ok := escCatalogue.actionKinds[key.action]
	if !ok {
		k = resAny
	}
	var hits []hit
	for _, c := range a.candidates(k) {
		d, ids := a.ask(a.full, a.fullIndex, action, c.arn, passTo)
		if d == policy.Allowed {
			hits = append(hits, hit{action: action, cand: c, stmts: ids})
		}
	}
	a.hits[key] = hits
	return hits
}

// path reports one escalation path: one finding per Allow statement that
// grants its pivot step, naming the statements that grant the other steps.
func (a *escAnalyzer) path(p *escPath) []Finding {
	if p.id == "LEASH-ESC-009" && a.selfKind == resUser {
		return nil // for a user, joining a group is self-escalation, reported as such
	}
	hits := make([][]hit, len(p.steps))
	for i, s := range p.steps {
		hits[i] = a.stepHits(s, p.passTo)
		if len(hits[i]) == 0 && !s.optional {
			return nil
		}
	}
	k := escCatalogue.actionKinds[strings.ToLower(p.steps[p.pivot].actions[0])]
	var companions []string
	for i, s := range p.steps {
		if i == p.pivot {
			continue
		}
		if len(hits[i]) == 0 {
			companions = append(companions, s.missing)
			continue
		}
		companions = append(companions, "with "+a.describeHits(hits[i]))
	}
	var out []Finding
	for _, g := range groupByStatement(hits[p.pivot]) {
		sev := High
		if g.broad {
			sev = Critical
		}
		msg := fmt.Sprintf("%s on %s, granted by %s, lets the principal %s", strings.Join(g.actions, ", "),
			a.resourceText(k, g), a.stmtLabel(g.id), p.effect)
		if len(companions) > 0 {
			msg += "; " + strings.Join(companions, "; ")
		}
		msg += a.conditionNote(g.id)
		out = append(out, Finding{
			ID: p.id, Severity: sev, Policy: a.set.Policies[g.id.policy].Name,
			Path: fmt.Sprintf("Statement[%d]", g.id.stmt), Message: msg, Fix: p.fix,
		})
	}
	return out
}

// stmtHits is what one statement allows of a step.
type stmtHits struct {
	id      stmtID
	actions []string
	broad   bool
	sources []string
}

func groupByStatement(hits []hit) []*stmtHits {
	byID := map[stmtID]*stmtHits{}
	var out []*stmtHits
	for _, h := range hits {
		for _, id := range h.stmts {
			g := byID[id]
			if g == nil {
				g = &stmtHits{id: id}
				byID[id] = g
				out = append(out, g)
			}
			g.actions = appendNew(g.actions, h.action)
			g.broad = g.broad || h.cand.broad
			for _, s := range h.cand.sources {
				g.sources = appendNew(g.sources, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].id.policy != out[j].id.policy {
			return out[i].id.policy < out[j].id.policy
		}
		return out[i].id.stmt < out[j].id.stmt
	})
	return out
}

func appendNew(list []string, s string) []string {
	for _, e := range list {
		if e == s {
			return list
		}
	}
	return append(list, s)
}

// describeHits names the actions of a step and the statements allowing
// them.
func (a *escAnalyzer) describeHits(hits []hit) string {
	var parts []string
	for _, g := range groupByStatement(hits) {
		k := escCatalogue.actionKinds[strings.ToLower(g.actions[0])]
		parts = append(parts, strings.Join(g.actions, ", ")+" on "+a.resourceText(k, g)+" granted by "+a.stmtLabel(g.id))
	}
	return strings.Join(parts, ", ")
}

// resourceText says which resources a statement's grant reaches.
func (a *escAnalyzer) resourceText(k resourceKind, g *stmtHits) string {
	if g.broad {
		return "any " + k.noun
	}
	// Prefer the patterns the statement itself wrote.
	st := a.set.Policies[g.id.policy].Document.Statements[g.id.stmt]
	var own []string
	for _, s := range g.sources {
		for _, r := range st.Resource {
			if r == s {
				own = appendNew(own, s)
			}
		}
	}
	if len(own) == 0 {
		own = g.sources
	}
	return k.noun + "s matching " + strings.Join(own, ", ")
}

func (a *escAnalyzer) stmtLabel(id stmtID) string {
	n := a.set.Policies[id.policy]
	s := fmt.Sprintf("policy %q Statement[%d]", n.Name, id.stmt)
	if sid := n.Document.Statements[id.stmt].Sid; sid != "" {
		s += fmt.Sprintf(" (Sid %q)", sid)
	}
	return s
}

// conditionNote says when the statement's grant depends on conditions the
// analysis assumed to hold.
func (a *escAnalyzer) conditionNote(id stmtID) string {
	_, others := splitDecided(a.set.Policies[id.policy].Document.Statements[id.stmt].Conditions)
	pending := a.later[id]
	var keys, when []string
	for _, c := range others {
		if containsCondition(pending, c) {
			when = appendNew(when, c.Operator+" "+c.Key+" "+strings.Join(c.Values, ", "))
			continue
		}
		keys = appendNew(keys, c.Operator+" "+c.Key)
	}
	note := ""
	if len(keys) > 0 {
		note = "; the statement has conditions (" + strings.Join(keys, ", ") + "), taken to hold"
	}
	if len(when) > 0 {
		note += "; the statement does not apply yet (" + strings.Join(when, "; ") + "): the path opens when that date comes"
	}
	return note
}

// selfEscalation reports what the set lets the principal do to itself.
func (a *escAnalyzer) selfEscalation() []Finding {
	var actions []selfAction
	switch a.selfKind {
	case resRole:
		actions = escCatalogue.roleSelf
	case resUser:
		actions = escCatalogue.userSelf
	default:
		return nil
	}
	var out []Finding
	type guard struct {
		id      stmtID
		actions []string
	}
	var guards []*guard
	guardOf := map[stmtID]*guard{}
	for _, sa := range actions {
		d, ids := a.ask(a.full, a.fullIndex, sa.action, a.self, "")
		switch d {
		case policy.Allowed:
			for _, id := range ids {
				out = append(out, Finding{
					ID: "LEASH-ESC-SELF", Severity: sa.severity, Policy: a.set.Policies[id.policy].Name,
					Path: fmt.Sprintf("Statement[%d]", id.stmt),
					Message: fmt.Sprintf("%s is allowed on the principal's own ARN %s by %s, which matches it: the principal can %s%s",
						sa.action, a.self, a.matchingText(id), sa.effect, a.conditionNote(id)),
					Fix: fmt.Sprintf("add an explicit Deny of %s on %s (a self-deny guard), or narrow the statement's resources so they do not match the principal's own ARN", sa.action, a.self),
				})
			}
		case policy.ExplicitDeny:
			if ad, _ := a.ask(a.allowOnly, a.allowIndex, sa.action, a.self, ""); ad != policy.Allowed {
				continue
			}
			for _, id := range ids {
				g := guardOf[id]
				if g == nil {
					g = &guard{id: id}
					guardOf[id] = g
					guards = append(guards, g)
				}
				g.actions = appendNew(g.actions, sa.action)
			}
		}
	}
	if a.selfKind == resUser {
		// Joining a group gives the user the group's permissions; the
		// resource is the group.
		hits := a.stepHits(one("iam:AddUserToGroup"), "")
		for _, g := range groupByStatement(hits) {
			sev := High
			if g.broad {
				sev = Critical
			}
			out = append(out, Finding{
				ID: "LEASH-ESC-SELF", Severity: sev, Policy: a.set.Policies[g.id.policy].Name,
				Path: fmt.Sprintf("Statement[%d]", g.id.stmt),
				Message: fmt.Sprintf("iam:AddUserToGroup is allowed on %s by %s: the principal %s can add itself to them and gain their permissions%s",
					a.resourceText(resGroup, g), a.stmtLabel(g.id), a.self, a.conditionNote(g.id)),
				Fix: "remove iam:AddUserToGroup, or scope it to groups with no more permission than the principal has",
			})
		}
	}
	for _, g := range guards {
		out = append(out, Finding{
			ID: "LEASH-ESC-SELF-GUARD", Severity: Info, Policy: a.set.Policies[g.id.policy].Name,
			Path: fmt.Sprintf("Statement[%d]", g.id.stmt),
			Message: fmt.Sprintf("%s explicitly denies %s on the principal's own ARN %s, which other statements allow: the self-escalation guard works",
				a.stmtLabel(g.id), strings.Join(g.actions, ", "), a.self),
			Fix: "none needed; keep this Deny while the allowing statements' resource patterns match the principal's own ARN",
		})
	}
	return out
}

// matchingText names the statement and its resource patterns.
func (a *escAnalyzer) matchingText(id stmtID) string {
	st := a.set.Policies[id.policy].Document.Statements[id.stmt]
	switch {
	case len(st.NotResource) > 0:
		return a.stmtLabel(id) + " with NotResource " + strings.Join(st.NotResource, ", ")
	case len(st.Resource) > 0:
		return a.stmtLabel(id) + " on " + strings.Join(st.Resource, ", ")
	}
	return a.stmtLabel(id)
}

func containsCondition(list []policy.Condition, c policy.Condition) bool {
	for _, e := range list {
		if e.Operator == c.Operator && strings.EqualFold(e.Key, c.Key) && slices.Equal(e.Values, c.Values) {
			return true
		}
	}
	return false
}
