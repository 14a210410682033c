package operator

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// GuardrailSources are where the operator's guardrails come from, read
// again whenever one of them changes: the flags, the --ceiling file, and
// the keys of the --config-map ConfigMap, which override both.
type GuardrailSources struct {
	// Flags are the guardrails the flags give; its Ceiling is ignored when
	// CeilingFile is set.
	Flags Guardrails
	// CeilingFile is the --ceiling file, read at every load; empty for none.
	CeilingFile string
	// ConfigMap is the --config-map; its zero value is none.
	ConfigMap types.NamespacedName
}

// watched reports whether any source can change while the operator runs.
func (s GuardrailSources) watched() bool { return s.CeilingFile != "" || s.ConfigMap.Name != "" }

// Load reads the guardrails from the sources as a whole: the flags, the
// ceiling file, then the ConfigMap's keys ceiling (the policy JSON),
// namespaceActions (a YAML or JSON map of namespace to action patterns),
// refuseEscalation and escalationNamespaces (comma-separated). configMap is
// the ConfigMap's data, nil when it does not exist. The result is not yet
// validated (Config.Validate, Provisioner.SetGuardrails).
func (s GuardrailSources) Load(configMap map[string]string) (Guardrails, error) {
	g := Guardrails{NamespaceActions: s.Flags.NamespaceActions, RefuseEscalation: s.Flags.RefuseEscalation,
		EscalationNamespaces: s.Flags.EscalationNamespaces, Ceiling: s.Flags.Ceiling, Command: s.Flags.Command}
	if s.CeilingFile != "" {
		data, err := os.ReadFile(s.CeilingFile)
		if err != nil {
			return g, fmt.Errorf("--ceiling: %v", err)
		}
		g.Ceiling = string(data)
	}
	ref := s.ConfigMap.String()
	if v := configMap["ceiling"]; strings.TrimSpace(v) != "" {
		g.Ceiling = v
	}
	if v := configMap["namespaceActions"]; strings.TrimSpace(v) != "" {
		var m map[string][]string
		if err := yaml.Unmarshal([]byte(v), &m); err != nil {
			return g, fmt.Errorf("ConfigMap %s: namespaceActions is not a map of namespace to a list of action patterns (%v); write it as, e.g., team-a: [\"s3:*\", \"ec2:Describe*\"]", ref, err)
		}
		g.NamespaceActions = m
	}
	if v := configMap["refuseEscalation"]; v != "" {
		g.RefuseEscalation = v
	}
	if v := configMap["escalationNamespaces"]; v != "" {
		g.EscalationNamespaces = SplitList(v)
	}
	return g, nil
}

// SplitList reads a comma-separated list, ignoring blanks.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
