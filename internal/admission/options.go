package admission

import (
	"crypto/tls"
	"fmt"
	"time"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/admission/webhookcert"
	"leash.dev/leash/policy"
)

// Options configure the webhook the operator serves.
type Options struct {
	// Port is where the webhook server listens (deploy/ uses 9443); Host
	// is the address, empty for all.
	Port int
	Host string
	// CertDir holds tls.crt and tls.key, reloaded when they change (a
	// cert-manager Secret's mount, or envtest's serving certificate).
	// GetCertificate, when set, serves instead.
	CertDir        string
	GetCertificate func(*tls.ClientHelloInfo) (*tls.Certificate, error)
	// Rotate, when neither is set, makes the operator keep its own CA and
	// serving certificate (webhookcert's Rotator, on every replica).
	Rotate *webhookcert.Options
	// rotated serves the Rotator's certificate once Register made it.
	rotated *rotatedCert
	// RefuseAt is the lowest severity that refuses a pod; findings below
	// it are warnings.
	RefuseAt analyze.Severity
	// NodeRole are the node role's policies (leash operator
	// --node-role-policy), which a pod under the metadata profile is
	// checked against; without them such a pod is refused (LEASH-WL-011).
	// NodeRoleOnly is what the role may grant (nil: ec2:Describe*).
	NodeRole     []policy.Named
	NodeRoleOnly []string
	// Wiring is the operator's mode and token audience (which the operator
	// sets), and the broker agent of Broker-mode pods (--broker-url ...).
	Wiring Wiring
	// Requests is what the CredentialsRequest webhook judges requests by:
	// the operator's mode and root Secret, its own Secrets and the
	// namespaces it writes Secrets in.
	Requests Requests
	// Observe, when set, receives how long each answer took, by path (the
	// admission benchmark's own figure).
	Observe func(path string, d time.Duration)
}

// Validate names the setting that is wrong and how to fix it.
func (o *Options) Validate() error {
	if o.Port < 1 || o.Port > 65535 {
		return fmt.Errorf("--webhook-port %d: give the port the webhook Service targets, such as 9443 (0 turns the webhook off)", o.Port)
	}
	if o.CertDir == "" && o.GetCertificate == nil && o.Rotate == nil {
		return fmt.Errorf("the webhook has no serving certificate: give --webhook-cert-dir DIR holding tls.crt and tls.key, or let the operator keep its own")
	}
	if o.RefuseAt < analyze.Info || o.RefuseAt > analyze.Critical {
		return fmt.Errorf("--webhook-refuse-at: %d is no severity; use info, low, medium, high or critical", o.RefuseAt)
	}
	if o.Wiring.Agent != nil {
		return o.Wiring.Agent.Validate()
	}
	return nil
}
