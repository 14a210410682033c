package whocan

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"leash.dev/leash/internal/termsafe"
)

// WriteText writes one principal a line: its ARN, kind and how it can; a
// path's steps follow on indented lines. Warnings about incomplete policies
// are indented under the principal. Names, ARNs, Sids and warnings come
// from the account's policies or a snapshot file and the question from the
// flags: all are escaped (termsafe.Escape), so none can start a forged line
// or add a column.
func WriteText(w io.Writer, a *Answer) error {
	var b strings.Builder
	esc := termsafe.Escape
	if len(a.Rows) == 0 {
		fmt.Fprintf(&b, "no principal can %s on %s\n", esc(a.Action), esc(a.Resource))
	}
	for _, r := range a.Rows {
		switch {
		case len(r.Path) > 0:
			fmt.Fprintf(&b, "%s\t%s\tvia %d step(s)\n", esc(r.ARN), r.Kind, len(r.Path))
			b.WriteString("  " + esc(PathText(r, a.Action)) + "\n")
		default:
			fmt.Fprintf(&b, "%s\t%s\t%s", esc(r.ARN), r.Kind, r.Decision)
			if len(r.Statements) > 0 {
				names := make([]string, len(r.Statements))
				for i, s := range r.Statements {
					names[i] = s.Name()
				}
				fmt.Fprintf(&b, " by %s", esc(strings.Join(names, "; ")))
			}
			b.WriteString("\n")
		}
		for _, inc := range r.Incomplete {
			fmt.Fprintf(&b, "  warning: %s; the answer for this principal may be incomplete\n", esc(inc))
		}
	}
	for _, warn := range a.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", esc(warn))
	}
	if a.RegionAssumed {
		fmt.Fprintf(&b, "# region assumed: %s (give --context aws:RequestedRegion=... to ask about another)\n", esc(a.Region))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PathText is a row's path in words: "user/alice may sts:AssumeRole
// role/a (trust: Statement[0]) → role/a is allowed ACTION by ...".
func PathText(r Row, action string) string {
	parts := make([]string, 0, len(r.Path)+1)
	for _, s := range r.Path {
		if s.From == AnyPermission {
			parts = append(parts, s.Text)
			continue
		}
		parts = append(parts, s.actor()+" "+s.Text)
	}
	if last := r.Path[len(r.Path)-1]; last.To != AnyPermission {
		names := make([]string, len(r.Statements))
		for i, s := range r.Statements {
			names[i] = s.Name()
		}
		parts = append(parts, fmt.Sprintf("%s is allowed %s by %s", asMember(last.To, last.ToGroup), action, strings.Join(names, "; ")))
	}
	return strings.Join(parts, " → ")
}

// actor is who takes the step: "user/u", or "as a member of group/g,
// user/u" after a step that joined the group.
func (s Step) actor() string { return asMember(s.From, s.FromGroup) }

func asMember(arn, group string) string {
	if group == "" {
		return short(arn)
	}
	return "as a member of " + short(group) + ", " + short(arn)
}

// dotNode is a step end's Graphviz node: the principal, or the principal
// as a member of a group it joins (a node of its own, labelled so).
func dotNode(arn, group string) (id, label string) {
	if group == "" {
		return arn, short(arn)
	}
	return arn + " as a member of " + group, short(arn) + " as a member of " + short(group)
}

// short is user/alice or role/a for an IAM ARN, the ARN's resource part
// otherwise.
func short(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 {
		return arn
	}
	res := parts[5]
	if kind, rest, ok := strings.Cut(res, "/"); ok && (kind == "user" || kind == "role") {
		return kind + "/" + rest[strings.LastIndex(rest, "/")+1:]
	}
	return res
}

// WriteJSON writes the answer as one JSON object:
// {"action", "resource", "principals": [{"arn", "kind", "role", "decision",
// "statements", "path", "incomplete"}], "warnings", "region",
// "regionAssumed"}.
func WriteJSON(w io.Writer, a *Answer) error {
	out := *a
	if out.Rows == nil {
		out.Rows = []Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteDot writes a Graphviz digraph of the answer: a node per principal,
// an edge per step of each path labelled with its action, and edges from the
// allowed principals (and "any permission") to the question's node.
func WriteDot(w io.Writer, a *Answer) error {
	var b strings.Builder
	b.WriteString("digraph whocan {\n  rankdir=LR;\n  node [shape=box];\n")
	target := fmt.Sprintf("%s on %s", a.Action, a.Resource)
	fmt.Fprintf(&b, "  %s [shape=doubleoctagon];\n", quoteDot(target))
	// nodes holds each node's label, by ID.
	nodes := map[string]string{}
	edges := map[string]bool{}
	node := func(id, label string) {
		nodes[id] = label
	}
	edge := func(from, to, label string) {
		edges[fmt.Sprintf("  %s -> %s [label=%s];\n", quoteDot(from), quoteDot(to), quoteDot(label))] = true
	}
	for _, r := range a.Rows {
		if r.Decision != "Allowed" && len(r.Path) == 0 {
			continue
		}
		node(r.ARN, short(r.ARN))
		for _, s := range r.Path {
			from, _ := dotNode(s.From, s.FromGroup)
			if s.From == AnyPermission {
				from = "any permission"
			}
			to, label := dotNode(s.To, s.ToGroup)
			if s.To == AnyPermission {
				to, label = "any permission", "any permission"
			}
			node(to, label)
			edge(from, to, s.Action)
			if s.To == AnyPermission {
				edge(to, target, "")
			}
		}
		if last := len(r.Path) - 1; last >= 0 && r.Path[last].ToGroup != "" {
			to, _ := dotNode(r.Path[last].To, r.Path[last].ToGroup)
			edge(to, target, "allowed")
		}
		if len(r.Path) == 0 {
			edge(r.ARN, target, "allowed")
		}
	}
	for _, id := range sortedKeys(nodes) {
		fmt.Fprintf(&b, "  %s [label=%s];\n", quoteDot(id), quoteDot(nodes[id]))
	}
	keys := sortedKeys(edges)
	sort.Strings(keys)
	for _, e := range keys {
		b.WriteString(e)
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// quoteDot quotes a Graphviz ID.
func quoteDot(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
