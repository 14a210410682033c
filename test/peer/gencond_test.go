package peer_test

import (
	"encoding/json"
	"sort"
	"strings"
)

// condKey is a global condition key that applies to every action, with the
// values a request may carry and the values policies compare it with. Values
// are drawn from small pools so that conditions match about half the time.
type condKey struct {
	name string
	// ops are the operators that suit the key's type.
	ops []string
	// policy returns a policy value; ctx returns the request's value (a string,
	// or a []string for multivalued keys).
	policy func(g *gen) string
	ctx    func(g *gen) any
	// present is how often a request carries the key.
	present float64
}

var (
	stringOps  = []string{"StringEquals", "StringNotEquals", "StringEqualsIgnoreCase", "StringNotEqualsIgnoreCase", "StringLike", "StringNotLike"}
	numericOps = []string{"NumericEquals", "NumericNotEquals", "NumericLessThan", "NumericLessThanEquals", "NumericGreaterThan", "NumericGreaterThanEquals"}
	dateOps    = []string{"DateEquals", "DateNotEquals", "DateLessThan", "DateLessThanEquals", "DateGreaterThan", "DateGreaterThanEquals"}
	arnOps     = []string{"ArnEquals", "ArnLike", "ArnNotEquals", "ArnNotLike", "StringEquals", "StringLike"}
	setOps     = []string{"ForAllValues:StringEquals", "ForAllValues:StringLike", "ForAnyValue:StringEquals", "ForAnyValue:StringLike", "ForAllValues:StringNotEquals", "ForAnyValue:StringNotLike"}
)

func fixed(values ...string) func(g *gen) string {
	return func(g *gen) string { return pick(g, values) }
}
func fixedCtx(values ...string) func(g *gen) any { return func(g *gen) any { return pick(g, values) } }

var condKeys = []condKey{
	{
		name: "aws:SourceIp", ops: []string{"IpAddress", "NotIpAddress"}, present: 0.7,
		policy: fixed("203.0.113.0/24", "10.0.0.0/8", "198.51.100.0/25", "192.168.0.5/32", "2001:db8:1234::/48", "2001:db8::/32", "128.0.0.0/1", "203.0.113.17/32", "::/0"),
		ctx:    fixedCtx("203.0.113.17", "198.51.100.7", "198.51.100.200", "10.1.2.3", "192.168.0.5", "2001:db8:1234::5", "2001:db8:9999::1", "2600:1f18::1"),
	},
	{
		name: "aws:PrincipalTag/team", ops: stringOps, present: 0.6,
		policy: fixed("payments", "search", "pay*", "*a*", "se?rch", "PAYMENTS", "platform"),
		ctx:    fixedCtx("payments", "search", "Payments", "platform", "sea"),
	},
	{
		name: "aws:PrincipalTag/env", ops: stringOps, present: 0.5,
		policy: fixed("prod", "dev", "prod*", "staging"),
		ctx:    fixedCtx("prod", "dev", "production", "staging"),
	},
	{
		name: "aws:RequestedRegion", ops: stringOps, present: 0.7,
		policy: fixed("us-east-1", "eu-west-1", "eu-*", "us-*", "ap-south-1"),
		ctx:    fixedCtx("us-east-1", "eu-west-1", "ap-south-1", "us-west-2"),
	},
	{
		name: "aws:CurrentTime", ops: dateOps, present: 0.7,
		policy: fixed("2025-01-01T00:00:00Z", "2025-06-15T12:00:00Z", "2026-01-01T00:00:00Z", "2024-06-30T23:59:59Z", "2025-07-01", "2025-06-15T14:00:00+02:00"),
		ctx:    fixedCtx("2025-06-15T12:00:00Z", "2024-01-01T00:00:00Z", "2026-03-01T08:30:00Z"),
	},
	{
		name: "aws:EpochTime", ops: append(append([]string{}, dateOps...), "NumericLessThan", "NumericGreaterThanEquals"), present: 0.6,
		policy: fixed("1735689600", "1749988800", "1767225600"),
		ctx:    fixedCtx("1749988800", "1704067200", "1772353800"),
	},
	{
		name: "aws:SecureTransport", ops: []string{"Bool"}, present: 0.7,
		policy: fixed("true", "false"),
		ctx:    fixedCtx("true", "false"),
	},
	{
		name: "aws:MultiFactorAuthPresent", ops: []string{"Bool"}, present: 0.5,
		policy: fixed("true", "false"),
		ctx:    fixedCtx("true", "false"),
	},
	{
		name: "aws:MultiFactorAuthAge", ops: numericOps, present: 0.5,
		policy: fixed("60", "300", "3600", "1800", "86400"),
		ctx:    fixedCtx("30", "300", "3600", "86400", "0300"),
	},
	{
		name: "aws:username", ops: stringOps, present: 1, // set from the principal
		policy: fixed("alice", "carol", "dave", "a*", "*o*", "ALICE"),
		ctx:    nil,
	},
	{
		name: "aws:PrincipalArn", ops: arnOps, present: 1, // set from the principal
		policy: func(g *gen) string {
			own := g.p.arn
			if g.p.role != "" && g.chance(0.7) {
				own = g.p.role
			}
			return pick(g, []string{
				own, own, "arn:aws:iam::" + acctA + ":user/*", "arn:aws:iam::*:role/*",
				"arn:aws:iam::" + g.p.account + ":role/App*", "arn:aws:iam::" + acctB + ":*", "arn:aws:iam::*:user/division/*",
			})
		},
		ctx: nil,
	},
	{
		name: "aws:PrincipalAccount", ops: []string{"StringEquals", "StringNotEquals", "StringLike"}, present: 1, // set from the principal
		policy: fixed(acctA, acctB, "1111*"),
		ctx:    nil,
	},
	{
		name: "aws:TagKeys", ops: setOps, present: 0.5,
		policy: fixed("env", "team", "owner", "cost-*", "admin"),
		ctx: func(g *gen) any {
			all := []string{"env", "team", "owner", "cost-center", "admin"}
			out := []string{}
			for _, k := range all {
				if g.chance(0.35) {
					out = append(out, k)
				}
			}
			return out
		},
	},
}

// context builds the request's keys. Keys about the caller follow from the
// principal, as AWS sets them (a role session's aws:PrincipalArn is its role's
// ARN, with the role's path).
func (g *gen) context() map[string]json.RawMessage {
	ctx := map[string]json.RawMessage{}
	set := func(k string, v any) { ctx[k] = raw(v) }
	for _, k := range condKeys {
		if k.ctx == nil || !g.chance(k.present) {
			continue
		}
		v := k.ctx(g)
		// Numbers and booleans may come as JSON numbers and booleans.
		if s, ok := v.(string); ok && g.chance(0.15) {
			switch {
			case s == "true" || s == "false":
				set(k.name, s == "true")
				continue
			case k.name == "aws:MultiFactorAuthAge" && !strings.HasPrefix(s, "0"):
				set(k.name, json.Number(s))
				continue
			}
		}
		set(k.name, v)
	}
	if g.service == "" && g.chance(0.5) {
		// Both engines derive these from the principal when they are absent;
		// half the cases give them explicitly.
		if g.p.user != "" {
			set("aws:username", g.p.user)
		}
		arn := g.p.arn
		if g.p.role != "" {
			arn = g.p.role
		}
		set("aws:PrincipalArn", arn)
		set("aws:PrincipalAccount", g.p.account)
	}
	if g.chance(0.1) {
		// Key names are case-insensitive.
		names := make([]string, 0, len(ctx))
		for k := range ctx {
			names = append(names, k)
		}
		sort.Strings(names) // map order would make the cases differ from run to run
		for _, k := range names {
			if g.chance(0.5) {
				v := ctx[k]
				delete(ctx, k)
				ctx[strings.ToUpper(k[:1])+k[1:]] = v
			}
		}
	}
	return ctx
}

// condition builds a Condition block of one or two operators with one or two
// keys each.
func (g *gen) condition(effect string) map[string]any {
	block := map[string]any{}
	for i, n := 0, g.between(1, 2); i < n; i++ {
		k := pick(g, condKeys)
		op := pick(g, k.ops)
		switch {
		case g.chance(0.05):
			op = "Null"
		case g.chance(0.15) && !strings.HasPrefix(op, "For"):
			op += "IfExists"
		}
		keys, _ := block[op].(map[string]any)
		if keys == nil {
			keys = map[string]any{}
			block[op] = keys
		}
		keys[g.condKeyName(k.name)] = g.condValues(k, op)
		if g.chance(0.3) {
			// A second key under the same operator, when it suits it.
			k2 := pick(g, condKeys)
			if op == "Null" || contains(k2.ops, strings.TrimSuffix(op, "IfExists")) {
				keys[g.condKeyName(k2.name)] = g.condValues(k2, op)
			}
		}
	}
	return block
}

func (g *gen) condKeyName(k string) string {
	if g.chance(0.1) {
		return strings.ToLower(k)
	}
	return k
}

func (g *gen) condValues(k condKey, op string) any {
	if op == "Null" {
		if g.chance(0.2) {
			return g.chance(0.5) // a JSON boolean
		}
		return pick(g, []string{"true", "false"})
	}
	negated := strings.Contains(op, "Not")
	value := func() string {
		v := k.policy(g)
		// Policy variables only in positive string operators: the peer fails
		// negated operators whose variable has no value (a known difference).
		if !negated && strings.HasPrefix(op, "String") && g.chance(0.08) {
			v = pick(g, []string{"${aws:username}", "${aws:PrincipalTag/team}", "${aws:username, 'alice'}", "home-${aws:username}"})
		}
		if strings.Contains(op, "Like") || strings.HasPrefix(op, "For") || strings.HasPrefix(op, "Arn") {
			return v
		}
		// Operators without wildcards compare * and ? literally: keep them
		// out of values where they would only read as a mistake.
		return strings.NewReplacer("*", "", "?", "").Replace(v)
	}
	if g.chance(0.35) {
		n := g.between(2, 3)
		out := make([]any, n)
		for i := range out {
			out[i] = value()
		}
		return out
	}
	v := value()
	if k.name == "aws:MultiFactorAuthAge" && g.chance(0.2) {
		return json.Number(v)
	}
	if op == "Bool" && g.chance(0.2) {
		return v == "true"
	}
	return v
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
