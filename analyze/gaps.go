package analyze

import (
	"slices"
	"sort"
	"strings"

	"leash.dev/leash/policy"
)

// Question is one action on one resource under one context that some
// statement grants, asked of another set of policies: does it allow it too?
type Question struct {
	Action, Resource string
	Context          map[string][]string
	// Multivalued names the context keys a set operator (ForAnyValue:,
	// ForAllValues:) tested: they are asked as lists.
	Multivalued map[string]bool
}

// Gap is a question a set of policies does not answer "allowed", and why.
type Gap struct {
	Action   string `json:"action"`
	Resource string `json:"resource"`
	// Context is the condition keys asked with, as key=value pairs.
	Context string `json:"context,omitempty"`
	Why     string `json:"why"`
}

func (g Gap) String() string {
	s := g.Action + " on " + g.Resource
	if g.Context != "" {
		s += " when " + g.Context
	}
	return s + ": " + g.Why
}

// Questions turns the Allow statements of doc into the questions another
// set must answer "allowed" to cover them. expand turns an action pattern
// into the actions to ask (nil asks the pattern as written: a set covers
// "s3:Get*" only if its own patterns match that whole pattern); with it, a
// NotAction statement asks every action expand("*") gives that it does not
// name. A resource
// pattern is asked as written, so arn:aws:s3:::* covers arn:aws:s3:::krops-*
// and arn:aws:s3:::krops-a does not. Conditions become contexts that satisfy
// them: the first value of every key, then each other value of one key at a
// time, so a set limited to one region does not cover a grant for two. A key
// a Null condition requires ("false") and no other condition gives a value
// is asked with AnyValue, so the grant is asked about a request it allows
// (one with the tag) and a covering set's own Null condition holds for it.
// Keys under negated, numeric and date operators are left out: an absent
// key fails the covering set's own conditions on it, so the answer errs
// towards "not covered".
func Questions(doc *policy.Document, expand func(pattern string) []string) []Question {
	var qs []Question
	for _, s := range doc.Statements {
		if s.Effect != policy.Allow {
			continue
		}
		resources := s.Resource
		if len(resources) == 0 {
			resources = []string{"*"}
		}
		var actions []string
		for _, a := range s.Action {
			if expand == nil {
				actions = append(actions, a)
			} else {
				actions = append(actions, expand(a)...)
			}
		}
		if len(s.NotAction) > 0 && expand != nil {
			// NotAction grants every action it does not name.
			for _, a := range expand("*") {
				if !matchesAny(s.NotAction, a) {
					actions = append(actions, a)
				}
			}
		}
		contexts, multi := satisfyingContexts(s.Conditions)
		for _, ctx := range contexts {
			for _, r := range resources {
				for _, a := range actions {
					qs = append(qs, Question{Action: a, Resource: r, Context: ctx, Multivalued: multi})
				}
			}
		}
	}
	return qs
}

func satisfyingContexts(conds []policy.Condition) ([]map[string][]string, map[string]bool) {
	type keyValues struct {
		key    string
		values []string
	}
	var kvs []keyValues
	var present []string // keys a Null condition requires
	multi := map[string]bool{}
	for _, c := range conds {
		if strings.HasPrefix(c.Operator, "ForAnyValue:") || strings.HasPrefix(c.Operator, "ForAllValues:") {
			multi[c.Key] = true
		}
		base := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(c.Operator, "ForAnyValue:"), "ForAllValues:"), "IfExists")
		switch base {
		case "StringEquals", "StringEqualsIgnoreCase", "StringLike", "ArnEquals", "ArnLike", "Bool", "IpAddress":
			kvs = append(kvs, keyValues{key: c.Key, values: c.Values})
		case "Null":
			if len(c.Values) == 1 && strings.EqualFold(c.Values[0], "false") {
				present = append(present, c.Key)
			}
		}
	}
	for _, k := range present {
		if !slices.ContainsFunc(kvs, func(kv keyValues) bool { return kv.key == k }) {
			kvs = append(kvs, keyValues{key: k, values: []string{AnyValue}})
		}
	}
	sort.Slice(kvs, func(i, j int) bool { return kvs[i].key < kvs[j].key })
	first := map[string][]string{}
	for _, kv := range kvs {
		if len(kv.values) > 0 {
			first[kv.key] = kv.values[:1]
		}
	}
	out := []map[string][]string{first}
	for _, kv := range kvs {
		for _, v := range kv.values[min(1, len(kv.values)):] {
			ctx := make(map[string][]string, len(first))
			for k, vs := range first {
				ctx[k] = vs
			}
			ctx[kv.key] = []string{v}
			out = append(out, ctx)
		}
	}
	return out, multi
}

// AnyValue is the value a question gives a key that a grant requires to be
// present (Null "false") whatever its value, such as a resource tag: a set
// that allows only some values of the key does not cover the grant.
const AnyValue = "(any value)"

// Ask puts each question to compiled, the policies of principal (with no
// resource policy), and returns those not allowed with the engine's reason.
// A question about a KMS key is asked under its default key policy
// (keypolicy.go).
func Ask(compiled *policy.Policies, principal string, qs []Question) []Gap {
	var gaps []Gap
	for _, q := range qs {
		res := UnderKeyPolicy(compiled, false, q.Action, q.Resource).Explain(q.Request(principal))
		if res.Decision == policy.Allowed {
			continue
		}
		why := res.Decision.String()
		if len(res.Reasons) > 0 {
			why = res.Reasons[0].Message
		}
		gaps = append(gaps, Gap{Action: q.Action, Resource: q.Resource, Context: ContextText(q.Context), Why: why})
	}
	return gaps
}

// Request is the question as the engine takes it, asked by principal: a
// wildcard account in the resource stands for the principal's own, and the
// principal's own keys (aws:PrincipalArn...) are in the context.
func (q Question) Request(principal string) *policy.Request {
	r := &policy.Request{Principal: principal, Action: q.Action, Resource: q.Resource,
		ResourceAccount: resourceAccount(q.Resource, principal)}
	r.Context.AddPrincipalKeys(principal)
	for k, vs := range q.Context {
		if q.Multivalued[k] || len(vs) != 1 {
			r.Context.SetList(k, vs)
		} else {
			r.Context.Set(k, vs[0])
		}
	}
	return r
}

// ContextText writes a context as sorted key=value pairs.
func ContextText(ctx map[string][]string) string {
	keys := make([]string, 0, len(ctx))
	for k := range ctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+strings.Join(ctx[k], ","))
	}
	return strings.Join(parts, " ")
}

// resourceAccount is the account a question's resource is taken to be in: a
// pattern such as arn:aws:rds:*:*:db:krops-* stands for resources of the
// principal's own account (a grant cannot reach other accounts by itself),
// not for a cross-account request that would need a resource policy.
func resourceAccount(resource, principal string) string {
	if r, ok := policy.ParseARN(resource); ok && r.Account != "" && !strings.ContainsAny(r.Account, "*?$") {
		return r.Account
	}
	p, _ := policy.ParseARN(principal)
	return p.Account
}

func matchesAny(patterns []string, action string) bool {
	for _, p := range patterns {
		if policy.MatchAction(p, action) {
			return true
		}
	}
	return false
}
