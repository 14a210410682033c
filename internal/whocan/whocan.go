package whocan

import (
	"fmt"
	"sort"
	"strings"

	"leash.dev/leash/policy"
)

// Question is "who can perform Action on Resource?".
type Question struct {
	Action string
	// Resource is the resource ARN; "" or "*" for actions without
	// resource-level permissions.
	Resource string
	// ResourcePolicy is the resource's policy, nil for none. For
	// sts:AssumeRole* on a role of the snapshot, the role's trust policy is
	// taken when this is nil.
	ResourcePolicy *policy.Named
	// ResourceAccount is the account owning the resource, for an ARN that
	// names none (an S3 bucket's); "" takes the ARN's account, or the
	// caller's own.
	ResourceAccount string
	// Context holds condition keys: one value is a single-valued key,
	// several a multivalued one (as `leash simulate --context`).
	Context map[string][]string
	// All lists denied principals too.
	All bool
	// MaxSteps, when above zero, bounds the paths searched with
	// --escalation to that many steps.
	MaxSteps int
}

// Statement is one statement that decided, and where its policy comes from.
type Statement struct {
	Origin
	// PolicyType is the engine's: identity, resource, boundary, scp, rcp.
	PolicyType string `json:"policyType"`
	Index      int    `json:"statementIndex"`
	Sid        string `json:"sid,omitempty"`
	Effect     string `json:"effect"`
}

// Row is one principal of an answer.
type Row struct {
	ARN  string `json:"arn"`
	Kind Kind   `json:"kind"`
	// Role is a session's role.
	Role     string `json:"role,omitempty"`
	Decision string `json:"decision"`
	// Statements decided the principal's own request (the last step of
	// a path).
	Statements []Statement `json:"statements,omitempty"`
	// Path is how the principal reaches a principal that is allowed, or
	// any permission, with --escalation: empty when it is allowed itself.
	Path []Step `json:"path,omitempty"`
	// Incomplete lists policies the snapshot lacks for the principal.
	Incomplete []string `json:"incomplete,omitempty"`

	principal *Principal
}

// Answer is the principals that can, in the order: allowed directly, then by
// path length, each group by ARN.
type Answer struct {
	Action   string `json:"action"`
	Resource string `json:"resource"`
	Rows     []Row  `json:"principals"`
	// Warnings are about the snapshot as a whole.
	Warnings []string `json:"warnings,omitempty"`
	// Region is the aws:RequestedRegion of the requests asked;
	// RegionAssumed says it was not given but assumed.
	Region        string `json:"region,omitempty"`
	RegionAssumed bool   `json:"regionAssumed,omitempty"`
}

// Allowed reports whether any principal can (directly or by a path).
func (a *Answer) Allowed() bool {
	for _, r := range a.Rows {
		if r.Decision == policy.Allowed.String() || len(r.Path) > 0 {
			return true
		}
	}
	return false
}

// asker decides requests for one question.
type asker struct {
	m        *Model
	q        Question
	resource string
	// resPolicy is the given resource policy, compiled; trustOf says to take
	// a target role's trust policy instead.
	resPolicy *policy.Compiled
}

func (m *Model) asker(q Question) (*asker, error) {
	if m.action != "" && !strings.EqualFold(m.action, q.Action) {
		return nil, fmt.Errorf("the model is compiled for %s alone, not %s: make it with NewModel", m.action, q.Action)
	}
	a := &asker{m: m, q: q, resource: q.Resource}
	if a.resource == "" {
		a.resource = "*"
	}
	kind := policy.ResourcePolicyKind(q.Action, a.resource)
	if q.ResourcePolicy != nil {
		c, err := policy.CompileOne(*q.ResourcePolicy, kind)
		if err != nil {
			return nil, err
		}
		a.resPolicy = c
	} else if kind == policy.Trust {
		if i, ok := m.byARN[a.resource]; ok && m.Principals[i].Kind == KindRole {
			a.resPolicy = m.Principals[i].trust
		}
	}
	return a, nil
}

// request builds a request for p with the model's default keys, the
// question's context over them, and p's own keys.
func (m *Model) request(p *Principal, action, resource string, ctx map[string][]string) *policy.Request {
	r := &policy.Request{Principal: p.Caller, Action: action, Resource: resource}
	for _, c := range []map[string][]string{m.Defaults, ctx} {
		for k, v := range c {
			if len(v) == 1 {
				r.Context.Set(k, v[0])
			} else {
				r.Context.SetList(k, v)
			}
		}
	}
	r.Context.AddPrincipalKeys(p.Caller)
	m.addOrgKeys(&r.Context, p.Caller)
	return r
}

func (a *asker) explain(p *Principal) policy.Result {
	r := a.m.request(p, a.q.Action, a.resource, a.q.Context)
	r.ResourceAccount = a.q.ResourceAccount
	return a.m.policies(p, a.resPolicy).Explain(r)
}

func (a *asker) decide(p *Principal) policy.Decision {
	r := a.m.request(p, a.q.Action, a.resource, a.q.Context)
	r.ResourceAccount = a.q.ResourceAccount
	return a.m.policies(p, a.resPolicy).Decide(r)
}

// principals is every principal asked: users, roles, and the role sessions
// the resource policy names.
func (a *asker) principals() []*Principal {
	out := append([]*Principal(nil), a.m.Principals...)
	if a.q.ResourcePolicy == nil {
		return out
	}
	seen := map[string]bool{}
	for _, st := range a.q.ResourcePolicy.Document.Statements {
		for _, pr := range []*policy.Principal{st.Principal, st.NotPrincipal} {
			if pr == nil {
				continue
			}
			for _, arn := range pr.AWS {
				if seen[arn] {
					continue
				}
				seen[arn] = true
				if role, ok := a.m.roleOfSession(arn); ok {
					out = append(out, session(role, arn))
				}
			}
		}
	}
	return out
}

// WhoCan answers the question for every principal of the account.
func (m *Model) WhoCan(q Question) (*Answer, error) {
	a, err := m.asker(q)
	if err != nil {
		return nil, err
	}
	ans := &Answer{Action: q.Action, Resource: a.resource}
	// Each principal is decided and explained on every core, in place.
	ps := a.principals()
	rows := make([]Row, len(ps))
	listed := make([]bool, len(ps))
	_ = parallel(len(ps), func(i int) error {
		d := a.decide(ps[i])
		if d == policy.Allowed || q.All || a.unknown(ps[i], d) {
			rows[i], listed[i] = a.row(ps[i], d), true
		}
		return nil
	})
	for i := range rows {
		if listed[i] {
			ans.Rows = append(ans.Rows, rows[i])
		}
	}
	sortRows(ans.Rows)
	return ans, nil
}

func (a *asker) row(p *Principal, d policy.Decision) Row {
	r := Row{ARN: p.ARN, Kind: p.Kind, Role: p.Role, Decision: d.String(), Incomplete: p.Incomplete, principal: p}
	res := a.explain(p)
	r.Statements = statements(p, res.Statements)
	return r
}

func statements(p *Principal, refs []policy.StatementRef) []Statement {
	out := make([]Statement, 0, len(refs))
	for _, ref := range refs {
		out = append(out, Statement{Origin: p.origin(ref), PolicyType: ref.PolicyType, Index: ref.Index, Sid: ref.Sid, Effect: string(ref.Effect)})
	}
	return out
}

// sortRows orders allowed principals first, then by path length, then by
// ARN.
func sortRows(rows []Row) {
	rank := func(r Row) int {
		if r.Decision == policy.Allowed.String() {
			return 0
		}
		if len(r.Path) > 0 {
			return len(r.Path)
		}
		return 1 << 30
	}
	sort.SliceStable(rows, func(i, j int) bool {
		ri, rj := rank(rows[i]), rank(rows[j])
		if ri != rj {
			return ri < rj
		}
		return rows[i].ARN < rows[j].ARN
	})
}
