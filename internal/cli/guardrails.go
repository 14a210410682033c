package cli

import (
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/types"

	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
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

// sources are where the guardrails come from: the flags in g, the ceiling
// file, and the ConfigMap (zero for none).
func (gf *guardrailFlags) sources(g operator.Guardrails, configMap types.NamespacedName) operator.GuardrailSources {
	if gf.escalationNamespaces != "" {
		g.EscalationNamespaces = operator.SplitList(gf.escalationNamespaces)
	}
	return operator.GuardrailSources{Flags: g, CeilingFile: gf.ceilingFile, ConfigMap: configMap}
}

// apply reads the guardrails of the flags and the ceiling file into g.
func (gf *guardrailFlags) apply(g *operator.Guardrails) error {
	loaded, err := gf.sources(*g, types.NamespacedName{}).Load(nil)
	if err != nil {
		return &inputerr.Error{Msg: err.Error()}
	}
	*g = loaded
	return nil
}
