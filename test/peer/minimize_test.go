package peer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"leash.dev/leash/policy"
)

// Minimizing removes parts of a disagreeing case for as long as leash and the
// peer keep giving the same two answers, so that what remains shows the cause.
// Removals go from coarse to fine: whole policies and context keys, then
// statements, then conditions and list entries. Each round sends the
// candidates of every case still shrinking to the peer in one batch.

// removalLevels is the number of levels of removals, coarse to fine.
const removalLevels = 3

// maxRounds bounds the work of minimizing.
const maxRounds = 400

// node is a case decoded as generic JSON.
type node = any

// step is one element of a path into a node: a map key or an array index.
type step = any

func minimizeAll(t *testing.T, p *peer, dis []disagreement) {
	t.Helper()
	type state struct {
		d     *disagreement
		tree  node
		level int
	}
	var active []*state
	for i := range dis {
		tree, err := decodeTree(dis[i].json)
		if err != nil {
			t.Fatalf("decode case %d: %v", dis[i].index, err)
		}
		active = append(active, &state{d: &dis[i], tree: tree, level: 1})
	}
	for round := 0; round < maxRounds && len(active) > 0; round++ {
		var batch [][]byte
		type span struct{ from, to int }
		spans := make([]span, len(active))
		var trees []node
		for i, s := range active {
			from := len(batch)
			for _, c := range candidates(s.tree, s.level) {
				data, err := json.Marshal(c)
				if err != nil {
					t.Fatal(err)
				}
				batch = append(batch, data)
				trees = append(trees, c)
			}
			spans[i] = span{from, len(batch)}
		}
		var answers []answer
		if len(batch) > 0 {
			answers = p.decide(t, batch)
		}
		var still []*state
		for i, s := range active {
			accepted := false
			for j := spans[i].from; j < spans[i].to; j++ {
				if answers[j].Decision != s.d.peer {
					continue
				}
				if l, err := leashDecideJSON(batch[j]); err != nil || l != s.d.leash {
					continue
				}
				s.tree, s.d.json = trees[j], batch[j]
				s.level = 1
				accepted = true
				break
			}
			if !accepted {
				s.level++
			}
			if s.level <= removalLevels {
				still = append(still, s)
			}
		}
		active = still
	}
	for i := range dis {
		dis[i].minimized = true
	}
}

func decodeTree(data []byte) (node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v node
	err := dec.Decode(&v)
	return v, err
}

// candidates returns copies of the case, each with one part removed.
func candidates(tree node, level int) []node {
	top, ok := tree.(map[string]any)
	if !ok {
		return nil
	}
	var paths [][]step
	add := func(p ...step) { paths = append(paths, append([]step{}, p...)) }
	var docs [][]step
	named := func(field string) {
		list, _ := top[field].([]any)
		for i := range list {
			if level == 1 && len(list) > 1 {
				add(field, i)
			}
			docs = append(docs, []step{field, i, "document"})
		}
	}
	levels := func(field string) {
		list, _ := top[field].([]any)
		for li, l := range list {
			if level == 1 && len(list) > 1 {
				add(field, li)
			}
			docs2, _ := l.([]any)
			for j := range docs2 {
				if level == 1 && len(docs2) > 1 {
					add(field, li, j)
				}
				docs = append(docs, []step{field, li, j, "document"})
			}
		}
	}
	if level == 1 {
		for _, k := range []string{"identityPolicies", "resourcePolicy", "permissionsBoundary", "sessionPolicy", "scps", "rcps", "context"} {
			if _, ok := top[k]; ok {
				add(k)
			}
		}
		if ctx, ok := top["context"].(map[string]any); ok {
			for _, k := range sortedKeys(ctx) {
				add("context", k)
			}
		}
	}
	named("identityPolicies")
	levels("scps")
	levels("rcps")
	for _, k := range []string{"resourcePolicy", "permissionsBoundary", "sessionPolicy"} {
		if _, ok := top[k]; ok {
			docs = append(docs, []step{k})
		}
	}
	for _, d := range docs {
		doc, _ := get(tree, d).(map[string]any)
		var stmts [][]step
		switch s := doc["Statement"].(type) {
		case []any:
			for i := range s {
				if level == 2 && len(s) > 1 {
					add(join(d, "Statement", i)...)
				}
				stmts = append(stmts, join(d, "Statement", i))
			}
		case map[string]any:
			stmts = append(stmts, join(d, "Statement"))
		}
		if level != 3 {
			continue
		}
		for _, sp := range stmts {
			stmt, _ := get(tree, sp).(map[string]any)
			for _, f := range []string{"Sid", "Condition"} {
				if _, ok := stmt[f]; ok {
					add(join(sp, f)...)
				}
			}
			for _, f := range []string{"Action", "NotAction", "Resource", "NotResource"} {
				listEntries(stmt[f], join(sp, f), add)
			}
			for _, f := range []string{"Principal", "NotPrincipal"} {
				if m, ok := stmt[f].(map[string]any); ok {
					for _, k := range sortedKeys(m) {
						if len(m) > 1 {
							add(join(sp, f, k)...)
						}
						listEntries(m[k], join(sp, f, k), add)
					}
				}
			}
			if cond, ok := stmt["Condition"].(map[string]any); ok {
				for _, op := range sortedKeys(cond) {
					if len(cond) > 1 {
						add(join(sp, "Condition", op)...)
					}
					keys, _ := cond[op].(map[string]any)
					for _, k := range sortedKeys(keys) {
						if len(keys) > 1 {
							add(join(sp, "Condition", op, k)...)
						}
						listEntries(keys[k], join(sp, "Condition", op, k), add)
					}
				}
			}
		}
	}
	out := make([]node, 0, len(paths))
	for _, p := range paths {
		out = append(out, without(tree, p))
	}
	return out
}

// listEntries adds the removal of each entry of an array with more than one.
func listEntries(v any, at []step, add func(...step)) {
	if list, ok := v.([]any); ok && len(list) > 1 {
		for i := range list {
			add(join(at, i)...)
		}
	}
}

func join(p []step, more ...step) []step {
	return append(append([]step{}, p...), more...)
}

func get(v node, path []step) node {
	for _, s := range path {
		switch k := s.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// without returns a deep copy of v with the element at path removed.
func without(v node, path []step) node {
	if len(path) == 0 {
		return nil
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		key, _ := path[0].(string)
		for k, e := range x {
			switch {
			case k != key:
				out[k] = e
			case len(path) > 1:
				out[k] = without(e, path[1:])
			}
		}
		return out
	case []any:
		idx, _ := path[0].(int)
		out := make([]any, 0, len(x))
		for i, e := range x {
			switch {
			case i != idx:
				out = append(out, e)
			case len(path) > 1:
				out = append(out, without(e, path[1:]))
			}
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// categorize names what a (minimized) disagreement has in common with others:
// the two answers, the caller, the account relation, the policy types present
// and the policy features used.
func categorize(d *disagreement) string {
	tree, err := decodeTree(d.json)
	if err != nil {
		return "undecodable"
	}
	top, _ := tree.(map[string]any)
	principal, _ := top["principal"].(string)
	resource, _ := top["resource"].(string)
	resAcct, _ := top["resourceAccount"].(string)
	caller := callerKind(principal)
	if resAcct == "" {
		resAcct = arnAccount(resource)
	}
	account := "same account"
	switch pa := arnAccount(principal); {
	case caller == "service":
		account = "no account"
	case pa == "" || (resAcct != "" && pa != resAcct):
		account = "cross-account"
	}
	var types []string
	for _, k := range []string{"identityPolicies", "resourcePolicy", "permissionsBoundary", "sessionPolicy", "scps", "rcps"} {
		if _, ok := top[k]; ok {
			types = append(types, k)
		}
	}
	if len(types) == 0 {
		types = append(types, "no policies")
	}
	// Signals are the few policy features that have explained disagreements
	// so far. Conditions, NotResource and variables are left out: a minimized
	// case often keeps one only because removing it changes both answers, and
	// the printed examples show them.
	features := map[string]bool{}
	var walk func(v any, parent string)
	walk = func(v any, parent string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "NotPrincipal":
					features[k] = true
				case "AWS":
					if hasString(e, "*") {
						features[`{"AWS": "*"}`] = true
					}
				}
				walk(e, k)
			}
		case []any:
			for _, e := range x {
				walk(e, parent)
			}
		}
	}
	for _, k := range types {
		walk(top[k], "")
	}
	if resource == "*" || resource == "" {
		features[`resource "*"`] = true
	}
	fs := make([]string, 0, len(features))
	for f := range features {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	label := fmt.Sprintf("leash %s, peer %s | %s, %s | %s", d.leash, d.peer, caller, account, strings.Join(types, "+"))
	if len(fs) > 0 {
		label += " | " + strings.Join(fs, ", ")
	}
	if !d.minimized {
		label = "(not minimized) " + label
	}
	return label
}

func hasString(v any, want string) bool {
	switch x := v.(type) {
	case string:
		return x == want
	case []any:
		for _, e := range x {
			if e == want {
				return true
			}
		}
	}
	return false
}

func callerKind(p string) string {
	switch {
	case strings.HasSuffix(p, ".amazonaws.com"):
		return "service"
	case strings.Contains(p, ":assumed-role/"):
		return "role session"
	case strings.HasSuffix(p, ":root"):
		return "root"
	case strings.Contains(p, ":user/"):
		return "user"
	}
	return "principal"
}

func arnAccount(s string) string {
	a, _ := policy.ParseARN(s)
	return a.Account
}

// errorSummary shortens the peer's errors to a message and the first
// validation error, for counting.
func errorSummary(raw json.RawMessage) string {
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		return string(raw)
	}
	msg, _ := e["message"].(string)
	first := ""
	for _, k := range sortedKeys(e) {
		if k == "message" {
			continue
		}
		b, _ := json.Marshal(e[k])
		first = k + " " + string(b)
		break
	}
	if len(first) > 160 {
		first = first[:160] + "..."
	}
	return strings.TrimSpace(msg + " " + first)
}
