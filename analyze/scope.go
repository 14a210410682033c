package analyze

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"leash.dev/leash/policy"
	"leash.dev/leash/policy/catalog"
)

// Scope reviews the Allow statements of an identity-based policy named
// name for grants on Resource "*" that AWS's catalog (nil means
// catalog.Default()) says could be limited to named resources:
//
//   - LEASH-LP-006 (medium): a wildcard action, such as s3:Get*, on
//     Resource "*" where some of the actions it matches support
//     resource-level permissions. List-level actions are left out: they
//     are rarely scoped, so ec2:Describe* on "*" is no finding.
//   - LEASH-LP-007 (high with permissions-management actions or
//     sts:AssumeRole, medium with only write or tagging actions): write,
//     permissions-management or tagging actions that support
//     resource-level permissions allowed on Resource "*". sts:AssumeRole
//     on "*" is high: see assumesAnyRole.
//
// A statement with a condition that can narrow the resources (a
// service-specific key, or aws:ResourceTag/..., aws:RequestTag/...,
// aws:ResourceAccount, aws:ResourceOrgID or aws:ResourceOrgPaths) is taken
// as scoped. Grants LeastPrivilege reports are not reported again: a
// statement with Action "*" (LEASH-LP-001) is skipped, and so are the actions
// a whole-service wildcard such as iam:* (LEASH-LP-002) covers.
func Scope(doc *policy.Document, name string, cat *catalog.Catalog) []Finding {
	if doc == nil {
		return nil
	}
	if cat == nil {
		cat = catalog.Default()
	}
	var out []Finding
	for i := range doc.Statements {
		st := &doc.Statements[i]
		if st.Effect != policy.Allow || len(st.Action) == 0 || !onAnyResource(st) || narrowsResources(st.Conditions) {
			continue
		}
		whole, every := wholeServiceElements(st)
		if every {
			continue
		}
		covered := func(action string) bool {
			for _, w := range whole {
				if policy.MatchAction(w, action) {
					return true
				}
			}
			return false
		}
		path := fmt.Sprintf("Statement[%d]", i)
		out = append(out, wildcardScope(cat, st, name, path, covered)...)
		if f, ok := writesOnAny(cat, st, name, path, covered); ok {
			out = append(out, f)
		}
	}
	return out
}

// onAnyResource reports whether a statement covers Resource "*".
func onAnyResource(st *policy.Statement) bool {
	if len(st.Resource) == 0 && len(st.NotResource) == 0 {
		return true
	}
	for _, r := range st.Resource {
		if r == "*" {
			return true
		}
	}
	return false
}

// starPath is the JSON path of the statement's "*" resource.
func starPath(st *policy.Statement, path string) string {
	for j, r := range st.Resource {
		if r == "*" {
			return elementPath(path+".Resource", st.Resource, j)
		}
	}
	return path
}

// narrowsResources reports whether a condition can limit the resources a
// statement applies to.
func narrowsResources(conds []policy.Condition) bool {
	for _, c := range conds {
		k := strings.ToLower(c.Key)
		if !strings.HasPrefix(k, "aws:") {
			return true
		}
		for _, p := range []string{"aws:resourcetag/", "aws:requesttag/"} {
			if strings.HasPrefix(k, p) {
				return true
			}
		}
		switch k {
		case "aws:resourceaccount", "aws:resourceorgid", "aws:resourceorgpaths":
			return true
		}
	}
	return false
}

// wholeServiceElements returns the Action elements LeastPrivilege reports on
// Resource "*" as a whole service ("iam:*"), and whether one is every
// action ("*").
func wholeServiceElements(st *policy.Statement) (whole []string, every bool) {
	for _, a := range st.Action {
		svc, verb, _ := strings.Cut(a, ":")
		switch {
		case isEveryAction(a):
			return nil, true
		case onlyStars(verb) && !strings.ContainsAny(svc, "*?"):
			whole = append(whole, a)
		}
	}
	return whole, false
}

// scopable reports whether an action supports resource-level permissions.
func scopable(a catalog.Action) bool { return len(a.Resources) > 0 }

// wildcardScope reports wildcard actions on "*" that match actions that
// could be scoped (LP-006).
func wildcardScope(cat *catalog.Catalog, st *policy.Statement, name, path string, covered func(string) bool) []Finding {
	var out []Finding
	for j, a := range st.Action {
		if !strings.ContainsAny(a, "*?") || covered(a) {
			continue
		}
		all := cat.Expand(a)
		var scoped []catalog.Action
		for _, x := range all {
			if scopable(x) && x.Access != catalog.List {
				scoped = append(scoped, x)
			}
		}
		if len(scoped) == 0 {
			continue
		}
		examples := make([]string, 0, 5)
		for _, x := range scoped[:min(5, len(scoped))] {
			examples = append(examples, fmt.Sprintf("%s (%s)", x, typeNames(x)))
		}
		if len(scoped) > 5 {
			examples = append(examples, fmt.Sprintf("and %d more", len(scoped)-5))
		}
		out = append(out, Finding{
			ID: "LEASH-LP-006", Severity: Medium, Policy: name, Path: elementPath(path+".Action", st.Action, j),
			Message: fmt.Sprintf("Action %q on Resource \"*\" allows %d actions on every resource, %d of which could be limited to named resources: %s",
				a, len(all), len(scoped), strings.Join(examples, ", ")),
			Fix: fmt.Sprintf("list the actions the workload calls instead of %q, and scope Resource to the ARNs it uses%s", a, formatsExample(cat, scoped)),
		})
	}
	return out
}

// formatsExample gives the ARN formats of the first resource types of the
// actions, for fixes.
func formatsExample(cat *catalog.Catalog, actions []catalog.Action) string {
	var formats []string
	seen := map[typeKey]bool{}
	for _, x := range actions {
		for _, r := range x.Resources {
			k := typeKey{x.Service, strings.ToLower(r.Type)}
			if seen[k] {
				continue
			}
			seen[k] = true
			if rt, ok := cat.ResourceType(x.Service, r.Type); ok {
				formats = append(formats, rt.ARN)
			}
			if len(formats) == 2 {
				return " (such as " + strings.Join(formats, " or ") + ")"
			}
		}
	}
	if len(formats) == 0 {
		return ""
	}
	return " (such as " + strings.Join(formats, " or ") + ")"
}

// assumesAnyRole is true for sts:AssumeRole, which on Resource "*" makes
// the principal any role whose trust policy trusts its account: a trust
// policy naming an account (its root ARN or ID) leaves the decision to that
// account's identity policies, so an identity policy allowing
// sts:AssumeRole on every role is, in effect, every such role's
// permissions, in its own account and in others (IAM User Guide, "Cross
// account resource access in IAM":
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies-cross-account-resource-access.html).
// That is the power of a permissions-management action, and as severe.
func assumesAnyRole(x catalog.Action) bool {
	return strings.EqualFold(x.String(), "sts:AssumeRole")
}

// writesOnAny reports write, permissions-management and tagging actions
// allowed on "*" that could be scoped (LP-007).
func writesOnAny(cat *catalog.Catalog, st *policy.Statement, name, path string, covered func(string) bool) (Finding, bool) {
	var assume, perms, writes []catalog.Action
	seen := map[string]bool{}
	// Actions named outright first, then those of patterns.
	elements := slices.Clone(st.Action)
	slices.SortStableFunc(elements, func(a, b string) int {
		return cmp.Compare(btoi(strings.ContainsAny(a, "*?")), btoi(strings.ContainsAny(b, "*?")))
	})
	for _, a := range elements {
		if covered(a) {
			continue
		}
		for _, x := range expandAction(cat, a) {
			s := x.String()
			if seen[s] || !scopable(x) || covered(s) {
				continue
			}
			seen[s] = true
			switch {
			case assumesAnyRole(x):
				assume = append(assume, x)
			case x.Access == catalog.PermissionsManagement:
				perms = append(perms, x)
			case x.Access == catalog.Write || x.Access == catalog.Tagging:
				writes = append(writes, x)
			}
		}
	}
	if len(assume)+len(perms)+len(writes) == 0 {
		return Finding{}, false
	}
	sev := Medium
	var parts []string
	if len(assume) > 0 {
		sev = High
		parts = append(parts, "sts:AssumeRole (whoever holds it becomes every role whose trust policy trusts its account)")
	}
	if len(perms) > 0 {
		sev = High
		parts = append(parts, fmt.Sprintf("%s (%s)", count(len(perms), "permissions-management action"), listActions(perms, 10)))
	}
	if len(writes) > 0 {
		parts = append(parts, fmt.Sprintf("%s (%s)", count(len(writes), "write or tagging action"), listActions(writes, 10)))
	}
	return Finding{
		ID: "LEASH-LP-007", Severity: sev, Policy: name, Path: starPath(st, path),
		Message: fmt.Sprintf("Resource \"*\", with no condition on the resource, allows %s on every resource, though each supports resource-level permissions",
			strings.Join(parts, " and ")),
		Fix: fmt.Sprintf("scope Resource to the ARNs the workload changes%s, or add a condition on aws:ResourceTag/KEY; keep \"*\" in a separate statement for actions that support nothing else",
			formatsExample(cat, slices.Concat(assume, perms, writes))),
	}, true
}

// listActions names up to n actions and says how many more there are.
func listActions(xs []catalog.Action, n int) string {
	names := make([]string, 0, n+1)
	for _, x := range xs[:min(n, len(xs))] {
		names = append(names, x.String())
	}
	if len(xs) > n {
		return strings.Join(names, ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
	}
	return strings.Join(names, ", ")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// count writes n things, with the noun in the plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
