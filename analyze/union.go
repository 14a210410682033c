package analyze

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"leash.dev/leash/policy"
)

// Union merges the statements of several policies meant for one principal
// (the seed's three controllers behind one key) into one document that
// grants what they grant together and nothing more: Allow statements with
// the same resources and conditions become one statement with the union of
// their actions, repeated actions are dropped, and an action matched by
// another action pattern of the same statement is dropped. Deny statements
// are kept as they are. The result is JSON with Version 2012-10-17.
func Union(docs []*policy.Document) ([]byte, error) {
	type group struct {
		effect    policy.Effect
		resources []string
		notRes    []string
		cond      map[string]map[string][]string
		actions   []string
		notAction []string
	}
	var order []string
	groups := map[string]*group{}
	for _, d := range docs {
		for _, s := range d.Statements {
			cond := map[string]map[string][]string{}
			for _, c := range s.Conditions {
				if cond[c.Operator] == nil {
					cond[c.Operator] = map[string][]string{}
				}
				cond[c.Operator][c.Key] = append(cond[c.Operator][c.Key], c.Values...)
			}
			condKey, _ := json.Marshal(cond) // maps marshal with sorted keys
			key := strings.Join([]string{string(s.Effect), strings.Join(sorted(s.Resource), "\x00"),
				strings.Join(sorted(s.NotResource), "\x00"), string(condKey)}, "\x01")
			if len(s.NotAction) > 0 || s.Principal != nil || s.NotPrincipal != nil {
				key += "\x01" + strings.Join(sorted(s.NotAction), "\x00") + "\x01unique" + strings.Repeat("+", len(order))
			}
			g := groups[key]
			if g == nil {
				g = &group{effect: s.Effect, resources: s.Resource, notRes: s.NotResource, cond: cond, notAction: s.NotAction}
				groups[key] = g
				order = append(order, key)
			}
			g.actions = append(g.actions, s.Action...)
		}
	}
	out := policy.Document{Version: policy.Version2012}
	for _, key := range order {
		g := groups[key]
		st := policy.Statement{Effect: g.effect, Action: minimalActions(g.actions), NotAction: g.notAction,
			Resource: g.resources, NotResource: g.notRes, Conditions: conditionsOf(g.cond)}
		// One resource is written as a string, as IAM's own examples do.
		if len(g.resources) == 1 {
			st.Singles |= policy.SingleResource
		}
		if len(g.notRes) == 1 {
			st.Singles |= policy.SingleNotResource
		}
		out.Statements = append(out.Statements, st)
	}
	return json.MarshalIndent(out, "", "  ")
}

// conditionsOf lists a statement's merged conditions by operator, then key.
func conditionsOf(cond map[string]map[string][]string) []policy.Condition {
	var out []policy.Condition
	for _, op := range slices.Sorted(maps.Keys(cond)) {
		for _, key := range slices.Sorted(maps.Keys(cond[op])) {
			out = append(out, policy.Condition{Operator: op, Key: key, Values: cond[op][key]})
		}
	}
	return out
}

// minimalActions drops repeats (actions are case-insensitive) and actions
// that another pattern of the list matches.
func minimalActions(actions []string) []string {
	seen := map[string]bool{}
	var uniq []string
	for _, a := range actions {
		if k := strings.ToLower(a); !seen[k] {
			seen[k] = true
			uniq = append(uniq, a)
		}
	}
	var out []string
	for i, a := range uniq {
		covered := false
		for j, p := range uniq {
			if i != j && strings.ContainsAny(p, "*?") && !strings.EqualFold(p, a) && policy.MatchAction(p, a) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i]) < strings.ToLower(out[j]) })
	return out
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
