package operator

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/policy"
)

// Guardrails bound what any request may ask for, whoever wrote it: in a
// cluster where many teams may create a CredentialsRequest, a request is a
// way to ask for AWS power, and without them `action: "*"` on `resource: "*"`
// mints an administrator key.
type Guardrails struct {
	// Ceiling is an identity policy (JSON) every request must stay within:
	// checked with leash's engine before any IAM call, and made a customer
	// managed policy set as every minted user's permissions boundary so that
	// IAM enforces it too. Empty sets no ceiling.
	Ceiling string
	// NamespaceActions limits the requests of a namespace (the request's
	// own) to action patterns such as s3:* or ec2:Describe*; the key "*"
	// limits the namespaces not listed. Namespaces it does not cover are
	// limited by the ceiling only.
	NamespaceActions map[string][]string
	// RefuseEscalation is the severity (info, low, medium, high, critical)
	// at or above which a privilege-escalation finding (LEASH-ESC-*) refuses
	// a request; "" means critical, "off" refuses none.
	RefuseEscalation string
	// EscalationNamespaces may hold requests with such findings.
	EscalationNamespaces []string
	// Command is the command whose flags set these guardrails, such as
	// "leash apply", so that a refusal names the flag its user can set;
	// empty for the operator, whose refusals send the request's author to
	// the cluster's administrator and leash's ConfigMap.
	Command string

	ceiling  *policy.Document
	compiled *policy.Policies
	severity analyze.Severity
	off      bool
}

// DefaultRefuseEscalation is the severity refused by default: critical
// findings are paths open on any resource of their type (any role, any
// policy), which make the request's holder an administrator.
const DefaultRefuseEscalation = "critical"

// validate parses and compiles the settings, naming what is wrong.
func (g *Guardrails) validate() error {
	switch sev := g.RefuseEscalation; sev {
	case "off":
		g.off = true
	case "":
		g.severity = analyze.Critical
	default:
		s, err := analyze.ParseSeverity(sev)
		if err != nil {
			return fmt.Errorf("--refuse-escalation (or the ConfigMap's refuseEscalation): %v, or off", err)
		}
		g.severity = s
	}
	for ns, patterns := range g.NamespaceActions {
		if len(patterns) == 0 {
			return fmt.Errorf("namespaceActions: namespace %q lists no action patterns; list the ones its requests may ask for (e.g. [\"s3:*\"]) or remove it", ns)
		}
		for _, a := range patterns {
			if a != "*" && !strings.Contains(a, ":") {
				return fmt.Errorf("namespaceActions: %q of namespace %q is not an action pattern; use service:Action, such as s3:* or ec2:Describe*", a, ns)
			}
		}
	}
	g.ceiling, g.compiled = nil, nil
	if strings.TrimSpace(g.Ceiling) == "" {
		return nil
	}
	doc, err := policy.Parse([]byte(g.Ceiling), policy.Identity)
	if err != nil {
		return fmt.Errorf("ceiling: %v; give an identity policy document such as {\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"s3:*\",\"Resource\":\"*\"}]}", err)
	}
	if !allowsSomething(doc) {
		return fmt.Errorf("ceiling: has no Allow statement, so it would refuse every request and its boundary would allow nothing; allow what requests may hold")
	}
	compiled, err := policy.Compile(policy.Set{Identity: []policy.Named{{Name: "ceiling", Document: doc}}})
	if err != nil {
		return fmt.Errorf("ceiling: %v", err)
	}
	g.ceiling, g.compiled = doc, compiled
	return nil
}

// same reports whether o holds the same settings as g.
func (g *Guardrails) same(o *Guardrails) bool {
	return g.Ceiling == o.Ceiling && g.RefuseEscalation == o.RefuseEscalation &&
		slices.Equal(g.EscalationNamespaces, o.EscalationNamespaces) && reflect.DeepEqual(g.NamespaceActions, o.NamespaceActions)
}

// HasCeiling reports whether a ceiling is set.
func (g *Guardrails) HasCeiling() bool { return strings.TrimSpace(g.Ceiling) != "" }

// Settings describes the guardrails for the operator's start-up line.
func (g *Guardrails) Settings() []any {
	ceiling := "none"
	if g.HasCeiling() {
		ceiling = "set"
	}
	refuse := g.RefuseEscalation
	if refuse == "" {
		refuse = DefaultRefuseEscalation
	}
	limited := make([]string, 0, len(g.NamespaceActions))
	for ns := range g.NamespaceActions {
		limited = append(limited, ns)
	}
	slices.Sort(limited)
	return []any{
		"ceiling", ceiling,
		"namespaceActions", orNone(strings.Join(limited, ",")),
		"refuseEscalation", refuse,
		"escalationNamespaces", orNone(strings.Join(g.EscalationNamespaces, ",")),
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// widenEscalation says how the person who reads a PrivilegeEscalation
// refusal lets namespace ns hold the finding: the flag of the command they
// ran, or, in a cluster, the ConfigMap key the administrator sets.
func (g *Guardrails) widenEscalation(ns string) string {
	if g.Command != "" {
		return fmt.Sprintf("run `%s` again with --escalation-namespaces %s (or a --refuse-escalation above the finding's severity)", g.Command, ns)
	}
	return "ask the cluster's administrator to add it to escalationNamespaces in leash's ConfigMap"
}

// check refuses a request above the guardrails, before any IAM call: its
// namespace's allow-list, then the escalation gate, then the ceiling. doc
// is the request's policy as checkRequest built it.
func (g *Guardrails) check(cr *leashv1.CredentialsRequest, doc *policy.Document) error {
	request := []policy.Named{{Name: "request", Document: doc}}
	if allowed, ok := g.actionsFor(cr.Namespace); ok {
		if fs := analyze.Only(request, allowed, nil); len(fs) > 0 {
			texts := make([]string, len(fs))
			for i, f := range fs {
				texts[i] = entryPath(f.Path) + ": " + f.Message
			}
			return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonActionNotAllowed,
				Message: fmt.Sprintf("namespace %s may ask only for %s: %s; narrow the request's actions, or ask the cluster's administrator to add them to namespaceActions in leash's ConfigMap (checked before any IAM call)",
					cr.Namespace, strings.Join(allowed, ", "), firstOf(texts))}
		}
	}
	if !g.off && !slices.Contains(g.EscalationNamespaces, cr.Namespace) {
		var texts []string
		for _, f := range analyze.Escalation(analyze.PolicySet{Policies: request}, "") {
			if f.AtLeast(g.severity) {
				texts = append(texts, fmt.Sprintf("%s %s at %s: %s", f.Severity, f.ID, entryPath(f.Path), f.Message))
			}
		}
		if len(texts) > 0 {
			return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonPrivilegeEscalation,
				Message: fmt.Sprintf("the request would let its holder gain more power than it asks for (%s); narrow the actions or resources named, or, if namespace %s is trusted to hold it, %s (checked before any IAM call)",
					firstOf(texts), cr.Namespace, g.widenEscalation(cr.Namespace))}
		}
	}
	if g.compiled == nil {
		return nil
	}
	gaps := analyze.Ask(g.compiled, "", analyze.Questions(doc, nil))
	if len(gaps) == 0 {
		return nil
	}
	texts := make([]string, len(gaps))
	for i, gap := range gaps {
		texts[i] = gap.Action + " on " + gap.Resource
		if gap.Context != "" {
			texts[i] += " when " + gap.Context
		}
	}
	return &Failure{Type: leashv1.CredentialsProvisionFailure, Reason: ReasonAboveCeiling,
		Message: fmt.Sprintf("the cluster's ceiling does not allow %s; narrow the request to what the ceiling allows, or ask the cluster's administrator to raise the ceiling (checked before any IAM call)",
			firstOf(slices.Compact(texts)))}
}

// actionsFor is the allow-list of a namespace: its own, else the "*" one;
// false when neither is set.
func (g *Guardrails) actionsFor(namespace string) ([]string, bool) {
	if a, ok := g.NamespaceActions[namespace]; ok {
		return a, true
	}
	a, ok := g.NamespaceActions["*"]
	return a, ok
}
