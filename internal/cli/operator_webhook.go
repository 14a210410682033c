package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/workload"
)

// webhookFlags are the operator's flags of the admission webhook.
type webhookFlags struct {
	port                   int
	certDir, refuseAt      string
	nodeRole, nodeRoleOnly []string
	// cert names the certificate the operator keeps itself, when no
	// --webhook-cert-dir gives one.
	cert webhookCertFlags
}

func (w *webhookFlags) register(f *pflag.FlagSet) {
	f.IntVar(&w.port, "webhook-port", 0, "`PORT` of the admission webhook for pods (deploy/ uses 9443); 0 serves none")
	f.StringVar(&w.certDir, "webhook-cert-dir", "", "`DIR` holding the webhook's tls.crt and tls.key (such as cert-manager's Secret), reloaded when they change")
	f.StringVar(&w.refuseAt, "webhook-refuse-at", "high", "lowest `SEVERITY` of a workload finding that refuses a pod (info, low, medium, high or critical); lower ones are warnings")
	f.StringArrayVar(&w.nodeRole, "node-role-policy", nil, "policy document `FILE` (JSON) of the node's instance role, which the webhook checks pods under the metadata profile against; repeat for each")
	f.StringSliceVar(&w.nodeRoleOnly, "node-role-only", workload.DefaultNodeRoleOnly, "action `PATTERN` the node role may grant under the metadata profile; repeat or separate with commas")
	w.cert.register(f)
}

// apply sets o.Webhook from the flags; none when --webhook-port is 0.
func (w *webhookFlags) apply(o *operator.Options) error {
	if w.port == 0 {
		return nil
	}
	if w.port < 0 || w.port > 65535 {
		return &inputerr.Error{Source: "--webhook-port", Msg: fmt.Sprintf("%d is not a port; give the port the webhook Service targets, such as 9443, or 0 for no webhook", w.port)}
	}
	sev, err := analyze.ParseSeverity(w.refuseAt)
	if err != nil {
		return &inputerr.Error{Source: "--webhook-refuse-at", Msg: err.Error()}
	}
	roles, err := readNodeRole(w.nodeRole, w.nodeRoleOnly)
	if err != nil {
		return err
	}
	rotate, err := w.cert.options(w.port, w.certDir, o.LeaderElectionNamespace)
	if err != nil {
		return err
	}
	o.Webhook = &admission.Options{Port: w.port, CertDir: w.certDir, Rotate: rotate, RefuseAt: sev, NodeRole: roles, NodeRoleOnly: w.nodeRoleOnly}
	return nil
}
