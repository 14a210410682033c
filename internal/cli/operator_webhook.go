package cli

import (
	"crypto/x509"
	"fmt"
	"os"

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
	// brokerURL, brokerCAFile and agentImage run the broker agent in
	// Broker-mode pods.
	brokerURL, brokerCAFile, agentImage string
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
	f.StringVar(&w.brokerURL, "broker-url", "", "the credential broker Service's https `URL` (such as https://leash-broker.leash-system.svc:8443), which the agent in each Broker-mode pod calls; none: such pods are refused")
	f.StringVar(&w.brokerCAFile, "broker-ca-file", "", "`FILE` of the PEM CA certificate that signs the broker's serving certificate, the only CA the agents trust for it")
	f.StringVar(&w.agentImage, "broker-agent-image", "", "`IMAGE` of the broker agent in Broker-mode pods: the operator's own (REGISTRY/leash:TAG)")
	w.cert.register(f)
}

// agent is the broker agent the webhook adds to Broker-mode pods; nil
// when --broker-url is not given.
func (w *webhookFlags) agent() (*admission.Agent, error) {
	if w.brokerURL == "" {
		if w.brokerCAFile != "" || w.agentImage != "" {
			return nil, &inputerr.Error{Source: "--broker-url", Msg: "is required with --broker-ca-file and --broker-agent-image: give the broker Service's https URL"}
		}
		return nil, nil
	}
	a := &admission.Agent{Image: w.agentImage, Upstream: w.brokerURL}
	if w.brokerCAFile != "" {
		pem, err := os.ReadFile(w.brokerCAFile)
		if err != nil {
			return nil, &inputerr.Error{Source: "--broker-ca-file", Msg: err.Error()}
		}
		if !x509.NewCertPool().AppendCertsFromPEM(pem) {
			return nil, &inputerr.Error{Source: "--broker-ca-file", Msg: "holds no PEM certificate: give the CA certificate (-----BEGIN CERTIFICATE-----) that signs the broker's certificate"}
		}
		a.CA = pem
	}
	if err := a.Validate(); err != nil {
		return nil, &inputerr.Error{Msg: err.Error()}
	}
	return a, nil
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
	agent, err := w.agent()
	if err != nil {
		return err
	}
	o.Webhook = &admission.Options{Port: w.port, CertDir: w.certDir, Rotate: rotate, RefuseAt: sev, NodeRole: roles, NodeRoleOnly: w.nodeRoleOnly,
		Wiring: admission.Wiring{Agent: agent}}
	return nil
}
