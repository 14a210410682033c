package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"leash.dev/leash/internal/admission/webhookcert"
	"leash.dev/leash/internal/inputerr"
)

// webhookCertFlags name what the admission webhook's own certificate is
// for and where it is kept, when no --webhook-cert-dir gives one.
type webhookCertFlags struct {
	service, configuration, secret string
}

func (w *webhookCertFlags) register(f *pflag.FlagSet) {
	f.StringVar(&w.service, "webhook-service", webhookcert.DefaultService, "`NAME` of the Service in the operator's namespace through which the API server calls the webhook: its certificate is for NAME.NAMESPACE.svc")
	f.StringVar(&w.configuration, "webhook-configuration", webhookcert.DefaultConfiguration, "`NAME` of the Mutating- and ValidatingWebhookConfiguration whose caBundle the operator keeps")
	f.StringVar(&w.secret, "webhook-cert-secret", webhookcert.DefaultSecret, "`NAME` of the Secret in the operator's namespace holding the webhook's CA and serving certificate, shared by the replicas")
}

// serviceAccountNamespaceFile is where a pod reads its namespace.
const serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// options are the Rotator's options: nil when the webhook is off (port 0)
// or serves the files of certDir (cert-manager's mode). The namespace is
// the operator's, as leader election finds it: leaderNamespace, else
// $POD_NAMESPACE, else the pod's service account namespace.
func (w *webhookCertFlags) options(port int, certDir, leaderNamespace string) (*webhookcert.Options, error) {
	if port == 0 || certDir != "" {
		return nil, nil
	}
	ns, err := operatorNamespace(leaderNamespace, serviceAccountNamespaceFile)
	if err != nil {
		return nil, err
	}
	o := &webhookcert.Options{Namespace: ns, Service: w.service, Configuration: w.configuration, Secret: w.secret}
	if err := o.Validate(); err != nil {
		var ie *inputerr.Error
		if errors.As(err, &ie) {
			flag := map[string]string{"namespace": "--leader-election-namespace", "service": "--webhook-service",
				"configuration": "--webhook-configuration", "secret": "--webhook-cert-secret"}[ie.Field]
			return nil, &inputerr.Error{Source: flag, Msg: ie.Msg}
		}
		return nil, &inputerr.Error{Msg: "webhook certificate: " + err.Error()}
	}
	return o, nil
}

// operatorNamespace is the namespace the operator runs in.
func operatorNamespace(leaderNamespace, saFile string) (string, error) {
	if leaderNamespace != "" {
		return leaderNamespace, nil
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns, nil
	}
	if b, err := os.ReadFile(saFile); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), nil
	}
	return "", &inputerr.Error{Source: "--leader-election-namespace", Msg: fmt.Sprintf("the operator's namespace is unknown (not in a pod: no %s, no $POD_NAMESPACE): give the namespace of the webhook's Service and Secret, such as leash-system, or serve files with --webhook-cert-dir", saFile)}
}
