package whocan

import (
	"fmt"
	"sort"
	"strings"

	"leash.dev/leash/policy"
)

// Kind is what sort of principal a row of an answer is.
type Kind string

// The principals of an account.
const (
	KindUser    Kind = "user"
	KindRole    Kind = "role"
	KindSession Kind = "role-session"
)

// SessionName is the session name under which a role is asked about: a
// role acts only through sessions, and no policy names this one.
const SessionName = "leash-who-can"

// Org is the organization policies above the account: one list per level,
// root first, as `leash simulate --scp/--rcp` takes them.
type Org struct {
	SCPs, RCPs [][]policy.Named
}

// Principal is one user, role or role session of the account, with its
// policies compiled.
type Principal struct {
	// ARN is the user's or role's ARN, or the role session's.
	ARN  string
	Kind Kind
	// Name is the user or role name (a session's role name).
	Name string
	// Caller is the principal of the requests asked for it: the user's ARN,
	// a session of the role, or the session itself.
	Caller string
	// Role is a session's role ARN.
	Role string
	// Incomplete lists policies the snapshot names but does not hold: the
	// principal may have more permissions (or denies) than its answer says.
	Incomplete []string

	identity []*policy.Compiled
	boundary *policy.Compiled
	// origins says where each of its documents comes from, by compiled name;
	// a member node's holds its added group's, and inherited its user's.
	origins   map[string]Origin
	inherited map[string]Origin
	user      *User
	role      *Role
	trust     *policy.Compiled // a role's trust policy
}

// Origin is where a principal's policy comes from.
type Origin struct {
	// Type is "inline", "managed" or "boundary".
	Type string `json:"type"`
	// Policy is the inline policy's name or the managed policy's ARN.
	Policy string `json:"policy"`
	// Via is the principal or group holding it, such as "group devs".
	Via string `json:"via"`
}

// Model is a snapshot compiled for questions: every managed policy compiled
// once and shared by the principals it is attached to.
type Model struct {
	Snapshot   *Snapshot
	Principals []*Principal
	// Account is the account's ID, from the principals' ARNs; "" for an
	// organization (NewOrgModel), whose principals are of several.
	Account   string
	partition string
	byARN     map[string]int
	base      *policy.Policies // the organization's policies, shared
	org       *orgPolicies     // an organization's, by account (org.go)
	managed   map[string]*policy.Compiled
	groups    map[string]*compiledGroup
	// Defaults are condition keys every request carries unless the
	// question's context sets them, the escalation graph's requests
	// included: aws:RequestedRegion, which every real request has.
	Defaults map[string][]string
	// action is the one action the model's documents are compiled for, ""
	// for every action.
	action string
}

// compile compiles one of the snapshot's documents for the model's
// questions.
func (m *Model) compile(n policy.Named, kind policy.Kind) (*policy.Compiled, error) {
	if m.action == "" {
		return policy.CompileOne(n, kind)
	}
	return policy.CompileOneFor(n, kind, m.action)
}

type compiledGroup struct {
	identity []*policy.Compiled
	names    []string // compiled names, parallel to identity
}

// NewModel compiles the snapshot's policies under the organization's.
func NewModel(s *Snapshot, org Org) (*Model, error) {
	return NewModelFor(s, org, "")
}

// NewModelFor is NewModel for questions about one action alone (all
// actions when action is ""): the statements that cannot apply to it are
// not compiled (policy.CompileOneFor), which is most of the work of one
// question. Such a model answers WhoCan for that action only, and builds
// no escalation graph.
func NewModelFor(s *Snapshot, org Org, action string) (*Model, error) {
	base, err := policy.Compile(policy.Set{SCPs: org.SCPs, RCPs: org.RCPs})
	if err != nil {
		return nil, err
	}
	m := &Model{Snapshot: s, base: base, action: action, byARN: map[string]int{}, managed: make(map[string]*policy.Compiled, len(s.Policies)), groups: map[string]*compiledGroup{}}
	var arns []string
	for _, arn := range sortedKeys(s.Policies) {
		if s.Policies[arn].Document != nil {
			arns = append(arns, arn)
		}
	}
	compiled := make([]*policy.Compiled, len(arns))
	err = parallel(len(arns), func(i int) error {
		var err error
		compiled[i], err = m.compile(policy.Named{Name: arns[i], Document: s.Policies[arns[i]].Document}, policy.Identity)
		if err != nil {
			return fmt.Errorf("%s: managed policy %s: %w", s.Source, arns[i], err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, arn := range arns {
		m.managed[arn] = compiled[i]
	}
	for name, g := range s.Groups {
		cg := &compiledGroup{}
		for _, in := range g.Inline {
			key := g.ARN + "#" + in.Name
			c, err := m.compile(policy.Named{Name: key, Document: in.Document}, policy.Identity)
			if err != nil {
				return nil, fmt.Errorf("%s: group %s inline policy %s: %w", s.Source, name, in.Name, err)
			}
			cg.identity = append(cg.identity, c)
			cg.names = append(cg.names, key)
		}
		m.groups[name] = cg
	}
	// Users then roles, each compiled on every core; the first error in
	// that order is the one reported.
	ps := make([]*Principal, len(s.Users)+len(s.Roles))
	err = parallel(len(ps), func(i int) error {
		var err error
		if i < len(s.Users) {
			ps[i], err = m.newUser(&s.Users[i])
		} else {
			ps[i], err = m.newRole(&s.Roles[i-len(s.Users)])
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		m.add(p)
	}
	for _, p := range m.Principals {
		if a, ok := policy.ParseARN(p.ARN); ok && m.Account == "" {
			m.Account, m.partition = a.Account, a.Partition
		}
	}
	if m.partition == "" {
		m.partition = "aws"
	}
	return m, nil
}

func (m *Model) add(p *Principal) {
	m.byARN[p.ARN] = len(m.Principals)
	m.Principals = append(m.Principals, p)
}

// attach adds a managed policy to p, or notes that the snapshot lacks it.
func (m *Model) attach(p *Principal, arn, via string) {
	c, ok := m.managed[arn]
	if !ok {
		p.Incomplete = append(p.Incomplete, fmt.Sprintf("managed policy %s (attached to %s) is not in the snapshot", arn, via))
		return
	}
	if _, dup := p.originOf(arn); dup {
		return
	}
	p.identity = append(p.identity, c)
	p.origins[arn] = Origin{Type: "managed", Policy: arn, Via: via}
}

func (m *Model) inline(p *Principal, holderARN, via string, list []Inline) error {
	for _, in := range list {
		key := holderARN + "#" + in.Name
		c, err := m.compile(policy.Named{Name: key, Document: in.Document}, policy.Identity)
		if err != nil {
			return fmt.Errorf("%s: %s inline policy %s: %w", m.Snapshot.Source, via, in.Name, err)
		}
		p.identity = append(p.identity, c)
		p.origins[key] = Origin{Type: "inline", Policy: in.Name, Via: via}
	}
	return nil
}

func (m *Model) setBoundary(p *Principal, arn, via string) error {
	if arn == "" {
		return nil
	}
	mp, ok := m.Snapshot.Policies[arn]
	if !ok {
		p.Incomplete = append(p.Incomplete, fmt.Sprintf("permissions boundary %s of %s is not in the snapshot (taken as absent)", arn, via))
		return nil
	}
	// A boundary is compiled as a boundary (its statements explain as
	// such), apart from the identity copy of the same managed policy.
	key := "boundary:" + arn
	c, err := m.compile(policy.Named{Name: arn, Document: mp.Document}, policy.Boundary)
	if err != nil {
		return fmt.Errorf("%s: boundary %s: %w", m.Snapshot.Source, arn, err)
	}
	p.boundary = c
	p.origins[key] = Origin{Type: "boundary", Policy: arn, Via: via}
	return nil
}

func (m *Model) newUser(u *User) (*Principal, error) {
	via := "user " + u.Name
	p := &Principal{ARN: u.ARN, Kind: KindUser, Name: u.Name, Caller: u.ARN, user: u, origins: map[string]Origin{}}
	if err := m.inline(p, u.ARN, via, u.Inline); err != nil {
		return nil, err
	}
	for _, arn := range u.Attached {
		m.attach(p, arn, via)
	}
	for _, gname := range u.Groups {
		m.addGroup(p, gname)
	}
	if err := m.setBoundary(p, u.Boundary, via); err != nil {
		return nil, err
	}
	return p, nil
}

// addGroup adds a group's inline and attached policies to user p, as
// AWS does for a member; the escalation graph adds one more group this way
// to a user that may join it.
func (m *Model) addGroup(p *Principal, gname string) {
	g, ok := m.Snapshot.Groups[gname]
	if !ok {
		p.Incomplete = append(p.Incomplete, fmt.Sprintf("group %s is not in the snapshot", gname))
		return
	}
	gvia := "group " + gname
	cg := m.groups[gname]
	for i, c := range cg.identity {
		p.identity = append(p.identity, c)
		p.origins[cg.names[i]] = Origin{Type: "inline", Policy: strings.TrimPrefix(cg.names[i], g.ARN+"#"), Via: gvia}
	}
	for _, arn := range g.Attached {
		m.attach(p, arn, gvia)
	}
}

func (m *Model) newRole(r *Role) (*Principal, error) {
	via := "role " + r.Name
	p := &Principal{ARN: r.ARN, Kind: KindRole, Name: r.Name, Caller: sessionARN(r.ARN, SessionName), role: r, origins: map[string]Origin{}}
	if err := m.inline(p, r.ARN, via, r.Inline); err != nil {
		return nil, err
	}
	for _, arn := range r.Attached {
		m.attach(p, arn, via)
	}
	if err := m.setBoundary(p, r.Boundary, via); err != nil {
		return nil, err
	}
	if r.Trust != nil {
		c, err := m.compile(policy.Named{Name: "trust policy of role " + r.Name, Document: r.Trust}, policy.Trust)
		if err != nil {
			return nil, fmt.Errorf("%s: role %s trust policy: %w", m.Snapshot.Source, r.Name, err)
		}
		p.trust = c
	}
	return p, nil
}

// sessionARN is the ARN of a session of a role: the role's path is not part
// of it.
func sessionARN(roleARN, session string) string {
	a, ok := policy.ParseARN(roleARN)
	if !ok {
		return roleARN
	}
	name := a.Resource[strings.LastIndex(a.Resource, "/")+1:]
	return policy.ARN{Partition: a.Partition, Service: "sts", Account: a.Account, Resource: "assumed-role/" + name + "/" + session}.String()
}

// roleOfSession returns the role principal whose session arn is, if the
// snapshot has that role.
func (m *Model) roleOfSession(arn string) (*Principal, bool) {
	a, ok := policy.ParseARN(arn)
	if !ok || a.Service != "sts" || !strings.HasPrefix(a.Resource, "assumed-role/") {
		return nil, false
	}
	parts := strings.Split(a.Resource, "/")
	if len(parts) != 3 {
		return nil, false
	}
	for _, p := range m.Principals {
		if p.Kind == KindRole && p.Name == parts[1] {
			if ra, _ := policy.ParseARN(p.ARN); ra.Account == a.Account {
				return p, true
			}
		}
	}
	return nil, false
}

// session is a principal for a role session: the role's policies, asked as
// the session itself.
func session(role *Principal, arn string) *Principal {
	s := *role
	s.ARN, s.Kind, s.Caller, s.Role = arn, KindSession, arn, role.ARN
	return &s
}

// Lookup returns the principal with the ARN (a user's or role's).
func (m *Model) Lookup(arn string) (*Principal, bool) {
	i, ok := m.byARN[arn]
	if !ok {
		return nil, false
	}
	return m.Principals[i], true
}

// Short is the principal as paths print it: user/alice, role/a, or the
// session's assumed-role/a/name.
func (p *Principal) Short() string {
	a, ok := policy.ParseARN(p.ARN)
	if !ok {
		return p.ARN
	}
	if p.Kind == KindUser || p.Kind == KindRole {
		return string(p.Kind) + "/" + p.Name
	}
	return a.Resource
}

// policies is the principal's compiled policies with a resource policy.
func (m *Model) policies(p *Principal, resource *policy.Compiled) decider {
	return m.with(policy.Parts{Identity: p.identity, Boundary: p.boundary, Resource: resource})
}

// mayAllow reports whether any identity document of p may allow action.
func (p *Principal) mayAllow(action string) bool {
	for _, c := range p.identity {
		if c.MayAllow(action) {
			return true
		}
	}
	return false
}

// origin names the policy a statement of p's comes from.
func (p *Principal) origin(ref policy.StatementRef) Origin {
	if ref.PolicyType == policy.Boundary.String() {
		return Origin{Type: "boundary", Policy: ref.Policy, Via: p.Short()}
	}
	if o, ok := p.originOf(ref.Policy); ok {
		return o
	}
	return Origin{Type: ref.PolicyType, Policy: ref.Policy}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// originOf is where the document compiled under name comes from.
func (p *Principal) originOf(name string) (Origin, bool) {
	if o, ok := p.origins[name]; ok {
		return o, true
	}
	o, ok := p.inherited[name]
	return o, ok
}

// eachOrigin calls fn with every document's origin.
func (p *Principal) eachOrigin(fn func(Origin)) {
	for _, o := range p.inherited {
		fn(o)
	}
	for _, o := range p.origins {
		fn(o)
	}
}
