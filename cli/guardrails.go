package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/operator"
)

// guardrailFlags are the flags of the guardrails every request must stay
// within, the same for leash operator and leash apply.
type guardrailFlags struct {
	ceilingFile, escalationNamespaces string
}

func (gf *guardrailFlags) register(f *pflag.FlagSet, g *operator.Guardrails) {
	f.StringVar(&gf.ceilingFile, "ceiling", "", "identity policy `FILE` every request must stay within: checked before minting and set as every minted user's permissions boundary")
	f.StringVar(&g.RefuseEscalation, "refuse-escalation", operator.DefaultRefuseEscalation, "refuse requests with privilege-escalation findings (LEASH-ESC-*) at or above `SEVERITY`: info, low, medium, high, critical, or off")
	f.StringVar(&gf.escalationNamespaces, "escalation-namespaces", "", "comma-separated `NAMESPACES` whose requests may hold escalation findings (e.g. openshift-cloud-credential-operator)")
}

// apply reads the ceiling file and the namespace list into g.
func (gf *guardrailFlags) apply(g *operator.Guardrails) error {
	if gf.ceilingFile != "" {
		data, err := os.ReadFile(gf.ceilingFile)
		if err != nil {
			return &inputerr.Error{Msg: fmt.Sprintf("--ceiling: %v", err)}
		}
		g.Ceiling = string(data)
	}
	if gf.escalationNamespaces != "" {
		g.EscalationNamespaces = splitList(gf.escalationNamespaces)
	}
	return nil
}

// guardrailsFromConfigMap reads the ConfigMap keys ceiling (the policy
// JSON), namespaceActions (a YAML or JSON map of namespace to action
// patterns), refuseEscalation and escalationNamespaces (comma-separated).
func guardrailsFromConfigMap(ref string, data map[string]string, g *operator.Guardrails) error {
	if v := data["ceiling"]; strings.TrimSpace(v) != "" {
		g.Ceiling = v
	}
	if v := data["namespaceActions"]; strings.TrimSpace(v) != "" {
		var m map[string][]string
		if err := yaml.Unmarshal([]byte(v), &m); err != nil {
			return &inputerr.Error{Msg: fmt.Sprintf("ConfigMap %s: namespaceActions is not a map of namespace to a list of action patterns (%v); write it as, e.g., team-a: [\"s3:*\", \"ec2:Describe*\"]", ref, err)}
		}
		g.NamespaceActions = m
	}
	if v := data["refuseEscalation"]; v != "" {
		g.RefuseEscalation = v
	}
	if v := data["escalationNamespaces"]; v != "" {
		g.EscalationNamespaces = splitList(v)
	}
	return nil
}

// splitList reads a comma-separated list, ignoring blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
