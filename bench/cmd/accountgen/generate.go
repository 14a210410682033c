package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"leash.dev/leash/policy/catalog"
)

// config sizes the account.
type config struct {
	Seed       uint64
	Principals int
	Policies   int
	Encoded    bool
	// BroadIAM is the percent of principals with IAM writes on "*".
	BroadIAM int
	// Account is the account's ID; "" for AWS's documented example.
	Account string
	// Org, when set, is the organization the account is one of: some
	// roles trust its other accounts, some any principal of it.
	Org *orgTrust
}

// orgTrust is what an account of a generated organization knows of it.
type orgTrust struct {
	ID     string   // the organization's ID
	Others []string // the other accounts' IDs
}

// account is the account every snapshot is of: AWS's documented example.
const account = "123456789012"

// dateFormat is how the AWS CLI prints dates.
const dateFormat = "2006-01-02T15:04:05+00:00"

// generator draws every choice from one seeded source, in a fixed order,
// so that a seed names one account.
type generator struct {
	cfg     config
	r       *rand.Rand
	cat     *catalog.Catalog
	pool    *actionPool
	account string
	epoch   time.Time
}

// principal is a user or role before it is rendered.
type principal struct {
	name, path, id string
	created        time.Time
	groups         []string
	inline         []named
	attached       []int // indices into policies
	boundary       int   // index into policies, -1 for none
	tags           []tag
	trust          document // roles only
	lastUsed       roleLastUsed
}

type named struct {
	name string
	doc  document
}

// managed is a managed policy before it is rendered.
type managed struct {
	name, path, arn, id string
	created             time.Time
	versions            []document // oldest first; the last is the default
	attached, bounds    int
}

type group struct {
	name, id string
	created  time.Time
	inline   []named
	attached []int
}

func generate(cfg config) *snapshot {
	g := &generator{
		cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		cat: catalog.Default(), account: cmpOr(cfg.Account, account),
		epoch: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	g.pool = newActionPool(g.cat)

	policies, boundaries := g.policies()
	nUsers := (cfg.Principals*6 + 5) / 10
	nRoles := cfg.Principals - nUsers
	groups := g.groups(nUsers, policies, boundaries)
	users := make([]principal, nUsers)
	for i := range users {
		users[i] = g.principal(fmt.Sprintf("user-%05d", i), "AIDA", policies, boundaries)
		for range g.groupCount() {
			if len(groups) > 0 {
				users[i].groups = appendNew(users[i].groups, groups[g.r.IntN(len(groups))].name)
			}
		}
	}
	roles := make([]principal, nRoles)
	for i := range roles {
		roles[i] = g.principal(fmt.Sprintf("role-%05d", i), "AROA", policies, boundaries)
		if g.r.IntN(3) == 0 {
			roles[i].lastUsed = roleLastUsed{LastUsedDate: g.date().Format(dateFormat), Region: "us-east-1"}
		}
	}
	g.trusts(users, roles)
	g.privileged(users, roles)
	g.broadIAM(users, roles, cfg.BroadIAM)
	g.orgAssumers(users, roles)
	// Every AWS managed policy is attached once at least: the API lists
	// only those in use.
	for i := range policies {
		if policies[i].isAWS() {
			p := &users[i%nUsers]
			if i%2 == 1 && nRoles > 0 {
				p = &roles[i%nRoles]
			}
			if !slices.Contains(p.attached, i) {
				p.attached = append(p.attached, i)
			}
		}
	}
	return g.render(users, roles, groups, policies)
}

func (p *managed) isAWS() bool { return strings.HasPrefix(p.arn, "arn:aws:iam::aws:") }

// date is a time in the account's five years.
func (g *generator) date() time.Time {
	return g.epoch.Add(time.Duration(g.r.Int64N(int64(5 * 365 * 24 * time.Hour)))).Truncate(time.Second)
}

// id is an IAM unique ID: a four-letter type prefix and 17 characters.
func (g *generator) id(prefix string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := []byte(prefix)
	for range 17 {
		b = append(b, alphabet[g.r.IntN(len(alphabet))])
	}
	return string(b)
}

// policies are the managed policies: AWS managed ones (one in ten, up to
// the known set), a few permissions boundaries, and customer managed
// permissions. boundaries are the boundaries' indices.
func (g *generator) policies() ([]managed, []int) {
	nAWS := min(len(awsManaged), g.cfg.Policies/10)
	nCustomer := g.cfg.Policies - nAWS
	nBoundary := 0
	if nCustomer >= 2 {
		nBoundary = max(1, nCustomer/20)
	}
	var out []managed
	var boundaries []int
	for i := range nAWS {
		m := awsManaged[i]
		out = append(out, managed{
			name: m.name, path: m.path, arn: "arn:aws:iam::aws:policy" + m.path + m.name, id: g.id("ANPA"),
			created: g.epoch, versions: []document{m.doc},
		})
	}
	for i := range nCustomer {
		p := managed{path: "/", id: g.id("ANPA"), created: g.date()}
		if i < nBoundary {
			p.name = fmt.Sprintf("boundary-%04d", i)
			p.versions = []document{g.boundaryDocument()}
			boundaries = append(boundaries, len(out))
		} else {
			p.name = fmt.Sprintf("policy-%05d", i)
			if g.r.IntN(4) == 0 {
				p.path = "/app/"
			}
			n := 1
			if g.r.IntN(4) == 0 {
				n += 1 + g.r.IntN(2)
			}
			for range n {
				p.versions = append(p.versions, g.permissions())
			}
		}
		p.arn = "arn:aws:iam::" + g.account + ":policy" + p.path + p.name
		out = append(out, p)
	}
	return out, boundaries
}

// attachable picks a managed policy that is not a boundary, AWS managed
// ones less often than the account's own.
func (g *generator) attachable(policies []managed, boundaries []int) int {
	first := len(boundaries)
	nAWS := 0
	for nAWS < len(policies) && policies[nAWS].isAWS() {
		nAWS++
	}
	own := len(policies) - nAWS - first
	if nAWS > 0 && (own == 0 || g.r.IntN(7) == 0) {
		return g.r.IntN(nAWS)
	}
	if own == 0 {
		return -1
	}
	return nAWS + first + g.r.IntN(own)
}

func (g *generator) attachments(policies []managed, boundaries []int) []int {
	var out []int
	for range g.r.IntN(4) {
		if i := g.attachable(policies, boundaries); i >= 0 && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

func (g *generator) inlines(prefix string) []named {
	var out []named
	if g.r.IntN(10) < 3 {
		for i := range 1 + g.r.IntN(2) {
			out = append(out, named{fmt.Sprintf("%s-inline-%d", prefix, i), g.permissions()})
		}
	}
	return out
}

// groupCount is how many groups a user is in: 0 to 3, mostly 1.
func (g *generator) groupCount() int {
	return []int{0, 1, 1, 1, 2, 2, 3}[g.r.IntN(7)]
}

// maxGroups bounds the groups of an account.
const maxGroups = 500

func (g *generator) groups(nUsers int, policies []managed, boundaries []int) []group {
	if nUsers == 0 {
		return nil
	}
	// One group for eight users, up to maxGroups: IAM's quota on groups per
	// account is a few hundred
	// (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html),
	// whatever the users.
	out := make([]group, min(maxGroups, max(1, nUsers/8)))
	for i := range out {
		name := fmt.Sprintf("group-%04d", i)
		out[i] = group{name: name, id: g.id("AGPA"), created: g.date(), inline: g.inlines(name), attached: g.attachments(policies, boundaries)}
	}
	return out
}

func (g *generator) principal(name, idPrefix string, policies []managed, boundaries []int) principal {
	p := principal{name: name, path: "/", id: g.id(idPrefix), created: g.date(), boundary: -1}
	if g.r.IntN(5) == 0 {
		p.path = "/teams/"
	}
	p.inline = g.inlines(name)
	p.attached = g.attachments(policies, boundaries)
	if len(boundaries) > 0 && g.r.IntN(10) == 0 {
		p.boundary = boundaries[g.r.IntN(len(boundaries))]
	}
	if g.r.IntN(3) == 0 {
		p.tags = []tag{{"team", fmt.Sprintf("team-%d", g.r.IntN(20))}, {"env", []string{"prod", "staging", "dev"}[g.r.IntN(3)]}}
	}
	return p
}

func (g *generator) userARN(u principal) string {
	return "arn:aws:iam::" + g.account + ":user" + u.path + u.name
}

func (g *generator) roleARN(r principal) string {
	return "arn:aws:iam::" + g.account + ":role" + r.path + r.name
}

// trusts writes the roles' trust policies: most trust a service; some the
// account, with or without MFA; some a user or an earlier role, which is
// given sts:AssumeRole on it, so that roles trusting the role before them
// form assume-role chains several roles deep.
func (g *generator) trusts(users, roles []principal) {
	for i := range roles {
		if g.orgTrust(&roles[i]) {
			continue
		}
		switch n := g.r.IntN(20); {
		case n < 4 && i > 0:
			j := i - 1 - g.r.IntN(min(i, 3))
			roles[i].trust = awsTrust([]string{g.roleARN(roles[j])}, false)
			grantAssume(&roles[j], g.roleARN(roles[i]))
		case n < 5 && len(users) > 0:
			j := g.r.IntN(len(users))
			roles[i].trust = awsTrust([]string{g.userARN(users[j])}, false)
			grantAssume(&users[j], g.roleARN(roles[i]))
		case n < 8:
			roles[i].trust = awsTrust([]string{"arn:aws:iam::" + g.account + ":root"}, g.r.IntN(2) == 0)
		default:
			roles[i].trust = serviceTrust(trustServices[g.r.IntN(len(trustServices))])
		}
	}
}

// grantAssume lets p assume the role: one inline policy per principal
// lists every role it may assume.
func grantAssume(p *principal, roleARN string) {
	for i := range p.inline {
		if p.inline[i].name == "assume-roles" {
			s := &p.inline[i].doc.Statement[0]
			s.Resource = append(s.Resource.([]string), roleARN)
			return
		}
	}
	p.inline = append(p.inline, named{"assume-roles", document{Version: "2012-10-17", Statement: []statement{
		{Effect: "Allow", Action: "sts:AssumeRole", Resource: []string{roleARN}},
	}}})
}

// privileged gives one principal in a hundred (one at least) each grant
// that opens an escalation path.
func (g *generator) privileged(users, roles []principal) {
	for _, p := range privileges(g.account) {
		for range max(1, (len(users)+len(roles))/100) {
			to := roles
			if p.forUsers || len(roles) == 0 {
				to = users
			}
			if len(to) == 0 {
				to = roles
			}
			q := &to[g.r.IntN(len(to))]
			if !slices.ContainsFunc(q.inline, func(n named) bool { return n.name == p.name }) {
				q.inline = append(q.inline, named{p.name, p.doc})
			}
		}
	}
}

// render counts attachments and writes the snapshot's shapes.
func (g *generator) render(users, roles []principal, groups []group, policies []managed) *snapshot {
	doc := func(d document) any {
		if g.cfg.Encoded {
			return urlEncoded(d.text())
		}
		return json.RawMessage(d.text())
	}
	inline := func(l []named) []inlinePolicy {
		out := []inlinePolicy{}
		for _, n := range l {
			out = append(out, inlinePolicy{PolicyName: n.name, PolicyDocument: doc(n.doc)})
		}
		return out
	}
	attached := func(l []int) []attachedPolicy {
		out := []attachedPolicy{}
		for _, i := range l {
			policies[i].attached++
			out = append(out, attachedPolicy{PolicyName: policies[i].name, PolicyArn: policies[i].arn})
		}
		return out
	}
	bound := func(i int) *boundary {
		if i < 0 {
			return nil
		}
		policies[i].bounds++
		return &boundary{PermissionsBoundaryType: "PermissionsBoundaryPolicy", PermissionsBoundaryArn: policies[i].arn}
	}
	tags := func(t []tag) []tag {
		if t == nil {
			return []tag{}
		}
		return t
	}
	s := &snapshot{UserDetailList: []userDetail{}, GroupDetailList: []groupDetail{}, RoleDetailList: []roleDetail{}, Policies: []managedPolicy{}}
	for _, u := range users {
		groups := u.groups
		if groups == nil {
			groups = []string{}
		}
		d := userDetail{
			Path: u.path, UserName: u.name, UserID: u.id, Arn: g.userARN(u), CreateDate: u.created.Format(dateFormat),
			GroupList: groups, AttachedManagedPolicies: attached(u.attached), PermissionsBoundary: bound(u.boundary), Tags: tags(u.tags),
		}
		if len(u.inline) > 0 {
			d.UserPolicyList = inline(u.inline)
		}
		s.UserDetailList = append(s.UserDetailList, d)
	}
	for _, gr := range groups {
		s.GroupDetailList = append(s.GroupDetailList, groupDetail{
			Path: "/", GroupName: gr.name, GroupID: gr.id, Arn: "arn:aws:iam::" + g.account + ":group/" + gr.name,
			CreateDate: gr.created.Format(dateFormat), GroupPolicyList: inline(gr.inline), AttachedManagedPolicies: attached(gr.attached),
		})
	}
	for _, r := range roles {
		s.RoleDetailList = append(s.RoleDetailList, roleDetail{
			Path: r.path, RoleName: r.name, RoleID: r.id, Arn: g.roleARN(r), CreateDate: r.created.Format(dateFormat),
			AssumeRolePolicyDocument: doc(r.trust), InstanceProfileList: []struct{}{}, RolePolicyList: inline(r.inline),
			AttachedManagedPolicies: attached(r.attached), PermissionsBoundary: bound(r.boundary), Tags: tags(r.tags), RoleLastUsed: r.lastUsed,
		})
	}
	for _, p := range policies {
		m := managedPolicy{
			PolicyName: p.name, PolicyID: p.id, Arn: p.arn, Path: p.path,
			DefaultVersionID: fmt.Sprintf("v%d", len(p.versions)), AttachmentCount: p.attached,
			PermissionsBoundaryUsageCount: p.bounds, IsAttachable: true,
			CreateDate: p.created.Format(dateFormat), UpdateDate: p.created.Add(time.Duration(len(p.versions)-1) * 24 * time.Hour).Format(dateFormat),
		}
		for v := len(p.versions); v >= 1; v-- {
			m.PolicyVersionList = append(m.PolicyVersionList, policyVersion{
				Document: doc(p.versions[v-1]), VersionID: fmt.Sprintf("v%d", v), IsDefaultVersion: v == len(p.versions),
				CreateDate: p.created.Add(time.Duration(v-1) * 24 * time.Hour).Format(dateFormat),
			})
		}
		s.Policies = append(s.Policies, m)
	}
	return s
}

// cmpOr is the first of its arguments that is not empty.
func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// orgTrust gives, in an organization, one role in twenty a trust policy
// naming another account of it and three in a hundred one that lets in any
// principal of the organization (aws:PrincipalOrgID); it reports whether
// it wrote the role's trust. Outside an organization it draws nothing, so
// that a seed names the same account as before.
func (g *generator) orgTrust(r *principal) bool {
	if g.cfg.Org == nil || len(g.cfg.Org.Others) == 0 {
		return false
	}
	switch n := g.r.IntN(100); {
	case n < 5:
		other := g.cfg.Org.Others[g.r.IntN(len(g.cfg.Org.Others))]
		r.trust = awsTrust([]string{"arn:aws:iam::" + other + ":root"}, false)
	case n < 8:
		r.trust = awsTrust([]string{"*"}, false)
		r.trust.Statement[0].Condition = map[string]map[string]any{"StringEquals": {"aws:PrincipalOrgID": g.cfg.Org.ID}}
	default:
		return false
	}
	return true
}

// orgAssumers gives, in an organization, one principal in a hundred (one
// at least) sts:AssumeRole on every role of the organization's accounts,
// so that the roles trusting another account have callers there.
func (g *generator) orgAssumers(users, roles []principal) {
	if g.cfg.Org == nil {
		return
	}
	var roleARNs []string
	for _, acct := range g.cfg.Org.Others {
		roleARNs = append(roleARNs, "arn:aws:iam::"+acct+":role/*")
	}
	for range max(1, (len(users)+len(roles))/100) {
		p := &users[g.r.IntN(len(users))]
		if len(users) == 0 || g.r.IntN(2) == 1 && len(roles) > 0 {
			p = &roles[g.r.IntN(len(roles))]
		}
		for _, arn := range roleARNs {
			grantAssume(p, arn)
		}
	}
}
