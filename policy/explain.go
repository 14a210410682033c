package policy

import (
	"fmt"
	"strings"

	"leash.dev/leash/internal/termsafe"
)

// Result is a decision with the reasons for it.
type Result struct {
	Decision Decision `json:"-"`
	// Statements are the statements that decided: the matching Deny
	// statements of an explicit deny, or the matching Allow statements of an
	// allow.
	Statements []StatementRef `json:"statements,omitempty"`
	// Reasons say, for a denial, what was missing or what denied.
	Reasons []Reason `json:"reasons,omitempty"`
}

// StatementRef identifies one statement of one policy.
type StatementRef struct {
	PolicyType string `json:"policyType"`
	Policy     string `json:"policy"`
	Index      int    `json:"statementIndex"`
	Sid        string `json:"sid,omitempty"`
	Effect     Effect `json:"effect"`
	// Level is the organization level of an SCP or RCP, 0 for the root.
	Level *int `json:"level,omitempty"`
}

func (s StatementRef) String() string {
	sid := ""
	if s.Sid != "" {
		sid = fmt.Sprintf(" (Sid %q)", s.Sid)
	}
	level := ""
	if s.Level != nil {
		level = fmt.Sprintf(" at organization level %d", *s.Level)
	}
	return fmt.Sprintf("%s policy %q%s Statement[%d]%s", s.PolicyType, s.Policy, level, s.Index, sid)
}

// Reason codes, stable for scripts.
const (
	ReasonExplicitDeny           = "ExplicitDeny"
	ReasonNoAllow                = "NoAllow"
	ReasonConditionFailed        = "ConditionFailed"
	ReasonSCPNoAllow             = "SCPDidNotAllow"
	ReasonRCPNoAllow             = "RCPDidNotAllow"
	ReasonBoundaryNoAllow        = "BoundaryDidNotAllow"
	ReasonSessionNoAllow         = "SessionPolicyDidNotAllow"
	ReasonResourcePolicyNoAllow  = "ResourcePolicyDidNotAllow"
	ReasonCrossAccountNoResource = "CrossAccountResourcePolicyDidNotAllow"
	ReasonExplicitTrustRequired  = "ResourcePolicyMustAllowAccount"
	ReasonNoPermissionRequired   = "NoPermissionRequired"
	// ReasonServiceRule: a rule AWS applies outside policies refused the
	// request (an AWS managed policy changed, a reserved KMS alias...).
	ReasonServiceRule = "AWSServiceRule"
)

// Reason is one cause of a decision.
type Reason struct {
	Code      string            `json:"code"`
	Message   string            `json:"message"`
	Statement *StatementRef     `json:"statement,omitempty"`
	Condition *ConditionFailure `json:"condition,omitempty"`
	// Page is, for an AWSServiceRule reason, the AWS documentation page
	// that states the rule.
	Page string `json:"page,omitempty"`
}

// ConditionFailure is a condition that kept an Allow statement from applying.
type ConditionFailure struct {
	Operator     string   `json:"operator"`
	Key          string   `json:"key"`
	PolicyValues []string `json:"policyValues"`
	// ContextValues are the request's values for Key; nil when it had none.
	ContextValues []string `json:"contextValues"`
	KeyMissing    bool     `json:"keyMissing,omitempty"`
	// Multivalued is set when the key had several values and the operator
	// had no ForAllValues:/ForAnyValue: prefix.
	Multivalued bool `json:"multivalued,omitempty"`
}

type missingKind uint8

const (
	missingIdentityAllow missingKind = iota
	missingResourceAllow
	missingBoundaryAllow
	missingSessionAllow
	missingCrossAccountResource
	missingExplicitTrust
)

type noteKind uint8

const noteCallerIdentity noteKind = iota

// trace records what an evaluation saw, for Explain. A nil *trace records
// nothing, so Decide pays nothing for it.
type trace struct {
	matches  []StatementRef
	failures []Reason
	blocks   []Reason
	missed   []missingKind
	notes    []noteKind
	// rule is the service rule that refused the request, if one did.
	rule *serviceRule
}

func ref(d *compiledDoc, s *compiledStmt) StatementRef {
	r := StatementRef{PolicyType: d.kind.String(), Policy: d.name, Index: s.index, Sid: s.sid, Effect: s.effect}
	if d.kind == SCP || d.kind == RCP {
		level := d.level
		r.Level = &level
	}
	return r
}

func (t *trace) matched(d *compiledDoc, s *compiledStmt) {
	if t == nil {
		return
	}
	t.matches = append(t.matches, ref(d, s))
}

func (t *trace) conditionFailed(d *compiledDoc, s *compiledStmt, c *compiledCond, why condFailure, ctx *Context) {
	if t == nil || s.effect != Allow {
		return
	}
	cv, _ := ctx.lookup(c.key)
	f := &ConditionFailure{Operator: c.opName, Key: c.keyRaw, ContextValues: cv.values,
		KeyMissing: why == condMissingKey, Multivalued: why == condMultivaluedKey}
	for _, v := range c.values {
		f.PolicyValues = append(f.PolicyValues, v.raw)
	}
	r := ref(d, s)
	// The key is written as the policy spells it, escaped since the policy's
	// author chose it (the operator is a known one); the values are quoted.
	key := termsafe.Escape(c.keyRaw)
	var msg string
	switch why {
	case condMissingKey:
		msg = fmt.Sprintf("%s: condition %s %s needs the key, which the request does not have", r, c.opName, key)
	case condMultivaluedKey:
		msg = fmt.Sprintf("%s: condition %s %s: the key has several values %q; use ForAnyValue: or ForAllValues:", r, c.opName, key, cv.values)
	default:
		msg = fmt.Sprintf("%s: condition %s %s %q does not hold for %q", r, c.opName, key, f.PolicyValues, cv.values)
	}
	t.failures = append(t.failures, Reason{Code: ReasonConditionFailed, Message: msg, Statement: &r, Condition: f})
}

func (t *trace) blocked(kind Kind, level int, docs []*compiledDoc) {
	if t == nil {
		return
	}
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = fmt.Sprintf("%q", d.name)
	}
	code, what := ReasonSCPNoAllow, "service control policy"
	if kind == RCP {
		code, what = ReasonRCPNoAllow, "resource control policy"
	}
	msg := fmt.Sprintf("no %s at organization level %d allows the request (policies: %s)", what, level, strings.Join(names, ", "))
	if len(docs) == 0 {
		msg = fmt.Sprintf("organization level %d has no %s, so nothing is allowed", level, what)
	}
	t.blocks = append(t.blocks, Reason{Code: code, Message: msg})
}

func (t *trace) missing(m missingKind) {
	if t != nil {
		t.missed = append(t.missed, m)
	}
}

func (t *trace) refused(r *serviceRule) {
	if t != nil {
		t.rule = r
	}
}

func (t *trace) note(n noteKind) {
	if t != nil {
		t.notes = append(t.notes, n)
	}
}

var missingReasons = map[missingKind]Reason{
	missingIdentityAllow:        {Code: ReasonNoAllow, Message: "no identity-based policy statement allows the action on the resource"},
	missingResourceAllow:        {Code: ReasonResourcePolicyNoAllow, Message: "the resource-based policy does not allow this principal"},
	missingBoundaryAllow:        {Code: ReasonBoundaryNoAllow, Message: "the permissions boundary does not allow the action on the resource"},
	missingSessionAllow:         {Code: ReasonSessionNoAllow, Message: "the session policy does not allow the action on the resource"},
	missingCrossAccountResource: {Code: ReasonCrossAccountNoResource, Message: "the resource is in another account and its resource-based policy does not allow this principal or its account"},
	missingExplicitTrust:        {Code: ReasonExplicitTrustRequired, Message: "the resource's own policy (role trust policy or KMS key policy) must allow this principal or its account, and does not"},
}

func (t *trace) result(d Decision) Result {
	r := Result{Decision: d}
	for _, n := range t.notes {
		if n == noteCallerIdentity {
			r.Reasons = append(r.Reasons, Reason{Code: ReasonNoPermissionRequired, Message: "sts:GetCallerIdentity needs no permission and cannot be denied"})
		}
	}
	switch d {
	case ExplicitDeny:
		if t.rule != nil {
			r.Reasons = append(r.Reasons, Reason{Code: ReasonServiceRule, Message: t.rule.message(), Page: t.rule.page})
		}
		for _, m := range t.matches {
			if m.Effect == Deny {
				m := m
				r.Statements = append(r.Statements, m)
				r.Reasons = append(r.Reasons, Reason{Code: ReasonExplicitDeny, Message: "explicitly denied by " + m.String(), Statement: &m})
			}
		}
	case Allowed:
		for _, m := range t.matches {
			if m.Effect == Allow {
				r.Statements = append(r.Statements, m)
			}
		}
	default:
		for _, m := range t.matches {
			if m.Effect == Allow {
				r.Statements = append(r.Statements, m)
			}
		}
		r.Reasons = append(r.Reasons, t.blocks...)
		seen := map[missingKind]bool{}
		for _, m := range t.missed {
			if !seen[m] {
				seen[m] = true
				r.Reasons = append(r.Reasons, missingReasons[m])
			}
		}
		r.Reasons = append(r.Reasons, t.failures...)
		if len(r.Reasons) == 0 {
			r.Reasons = append(r.Reasons, Reason{Code: ReasonNoAllow, Message: "no statement allows the action on the resource"})
		}
	}
	return r
}
