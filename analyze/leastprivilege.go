package analyze

import (
	"fmt"
	"strings"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// LeastPrivilege reviews the Allow statements of an identity-based policy
// named name for grants wider than any workload needs, without AWS's
// catalog of actions:
//
//   - LEASH-LP-001 (critical): Action "*", every action of every service.
//   - LEASH-LP-002 (high): a whole service ("iam:*") on Resource "*".
//   - LEASH-LP-003 (high): NotAction, every action but those listed,
//     including actions AWS adds later.
//   - LEASH-LP-004 (medium): NotResource, every resource but those listed.
//   - LEASH-LP-005 (high): iam:PassRole (written out or through a wildcard
//     such as iam:* or iam:Pass*) with no iam:PassedToService condition, so
//     the roles can be handed to any service.
//
// The document's own unconditional Deny statements are applied (Review
// applies those of the whole set): a grant they take away entirely is no
// finding, and one they narrow says what remains ("every action of every
// AWS service but every iam action"). The engine decides, over the actions
// of the catalog and one standing for those AWS adds later.
func LeastPrivilege(doc *policy.Document, name string) []Finding {
	return leastPrivilege(doc, name, newDenyView([]policy.Named{{Name: name, Document: doc}}, catalog.Default()))
}

// leastPrivilege is LeastPrivilege with the denies of a set.
func leastPrivilege(doc *policy.Document, name string, denies *denyView) []Finding {
	if doc == nil {
		return nil
	}
	var out []Finding
	for i, st := range doc.Statements {
		if st.Effect != policy.Allow {
			continue
		}
		path := fmt.Sprintf("Statement[%d]", i)
		res := statementResources(st)
		anyResource := len(st.Resource) == 0 && len(st.NotResource) == 0
		for _, r := range st.Resource {
			anyResource = anyResource || r == "*"
		}
		for j, a := range st.Action {
			svc, verb, _ := strings.Cut(a, ":")
			p := elementPath(path+".Action", st.Action, j)
			switch {
			case onlyStars(a) || (onlyStars(svc) && onlyStars(verb)):
				n := denies.narrow("*")
				if n.all {
					continue
				}
				msg := fmt.Sprintf("Action %q allows every action of every AWS service on %s", a, res)
				if n.left < n.total {
					msg = fmt.Sprintf("Action %q allows every action of every AWS service but %s (denied by %s) on %s",
						a, n.deniedText(), strings.Join(n.by, ", "), res)
				}
				out = append(out, Finding{
					ID: "LEASH-LP-001", Severity: Critical, Policy: name, Path: p,
					Message: msg,
					Fix:     "list the actions the workload calls instead of \"*\"",
				})
			case onlyStars(verb) && !strings.ContainsAny(svc, "*?") && anyResource:
				n := denies.narrow(svc + ":*")
				if n.all {
					continue
				}
				msg := fmt.Sprintf("Action %q on Resource \"*\" allows every %s action, present and future, on every resource", a, svc)
				if n.left < n.total {
					msg += fmt.Sprintf(" but %s (denied by %s)", n.deniedText(), strings.Join(n.by, ", "))
				}
				out = append(out, Finding{
					ID: "LEASH-LP-002", Severity: High, Policy: name, Path: p,
					Message: msg,
					Fix:     fmt.Sprintf("list the %s actions the workload calls, and scope Resource to the ARNs it uses", svc),
				})
			}
		}
		if len(st.NotAction) > 0 {
			out = append(out, Finding{
				ID: "LEASH-LP-003", Severity: High, Policy: name, Path: path + ".NotAction",
				Message: fmt.Sprintf("Allow with NotAction %s allows every other action of every AWS service, including actions AWS adds later, on %s",
					strings.Join(st.NotAction, ", "), res),
				Fix: "list the allowed actions with Action; to exclude actions from a broad grant, add a Deny statement",
			})
		}
		if len(st.NotResource) > 0 {
			out = append(out, Finding{
				ID: "LEASH-LP-004", Severity: Medium, Policy: name, Path: path + ".NotResource",
				Message: fmt.Sprintf("Allow with NotResource %s allows %s on every other resource, including resources created later",
					strings.Join(st.NotResource, ", "), statementActions(st)),
				Fix: "list the resources with Resource; to exclude resources from a broad grant, add a Deny statement",
			})
		}
		if f, ok := passRoleFinding(st, name, path, res); ok && !denies.denied("iam:PassRole") {
			out = append(out, f)
		}
	}
	return out
}

// passRoleFinding reports iam:PassRole allowed without iam:PassedToService.
func passRoleFinding(st policy.Statement, name, path, res string) (Finding, bool) {
	if !stmtCoversAction(st, "iam:PassRole") {
		return Finding{}, false
	}
	for _, c := range st.Conditions {
		if strings.EqualFold(c.Key, "iam:PassedToService") && positiveStringOperator(c.Operator) {
			return Finding{}, false
		}
	}
	p, via := path+".NotAction", "NotAction "+strings.Join(st.NotAction, ", ")
	for j, a := range st.Action {
		if actionPatternCovers(a, "iam:PassRole") {
			p, via = elementPath(path+".Action", st.Action, j), fmt.Sprintf("%q", a)
			break
		}
	}
	return Finding{
		ID: "LEASH-LP-005", Severity: High, Policy: name, Path: p,
		Message: fmt.Sprintf("iam:PassRole is allowed (via %s) on %s with no iam:PassedToService condition: the roles can be passed to any service that takes a role", via, res),
		Fix:     "add a condition StringEquals iam:PassedToService naming the service the roles are for (such as ec2.amazonaws.com), and scope Resource to the roles to pass",
	}, true
}

// stmtCoversAction reports whether the statement's Action or NotAction
// covers action, whatever its resources and conditions. The policy engine
// decides, so wildcards and NotAction mean what they mean in AWS.
func stmtCoversAction(st policy.Statement, action string) bool {
	probe := policy.Statement{Effect: policy.Allow, Action: st.Action, NotAction: st.NotAction, Resource: []string{"*"}}
	doc := &policy.Document{Version: policy.Version2012, Statements: []policy.Statement{probe}}
	p, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "probe", Document: doc}}})
	if err != nil {
		return false
	}
	return p.Decide(&policy.Request{Action: action, Resource: "*"}) == policy.Allowed
}

// actionPatternCovers reports whether one Action element covers action.
func actionPatternCovers(pattern, action string) bool {
	return stmtCoversAction(policy.Statement{Action: []string{pattern}}, action)
}

// elementPath is the JSON path of element j of a statement's list: list[j],
// or the list itself when it has one element (which a policy usually
// writes as a single string).
func elementPath(path string, list []string, j int) string {
	if len(list) == 1 {
		return path
	}
	return fmt.Sprintf("%s[%d]", path, j)
}

func onlyStars(s string) bool { return s != "" && strings.Trim(s, "*") == "" }

// statementResources says which resources a statement covers, for
// messages.
func statementResources(st policy.Statement) string {
	switch {
	case len(st.NotResource) > 0:
		return "every resource except " + strings.Join(st.NotResource, ", ")
	case len(st.Resource) == 0:
		return `"*"`
	case len(st.Resource) == 1 && st.Resource[0] == "*":
		return `Resource "*"`
	}
	return strings.Join(st.Resource, ", ")
}

func statementActions(st policy.Statement) string {
	if len(st.NotAction) > 0 {
		return "every action except " + strings.Join(st.NotAction, ", ")
	}
	return strings.Join(st.Action, ", ")
}
