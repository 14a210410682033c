package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/termsafe"
)

func newApply() *cobra.Command {
	var (
		dir, mode string
		where     folderTarget
		cfg       operator.Config
		guard     guardrailFlags
		accounts  accountCheckFlags
	)
	const short = "Provision a folder of CredentialsRequests without a cluster"
	cmd := &cobra.Command{
		Use:   "apply -f DIR",
		Short: short,
		Long: long(short, `apply reconciles every CredentialsRequest manifest in the YAML files under DIR
with the same code the operator runs in a cluster: it mints an IAM user per
request (or checks and passes through the root credentials, or checks a
Secret in Manual mode), writes each resulting Secret as a manifest under --out,
and prints a table of request, mode, principal, granted actions and state.
Running it again changes only what the requests changed.

With no AWS configured it uses the embedded local endpoint (leash local) with
its state under --data, so it works on a fresh machine. With
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY set (or --target aws) it provisions
in that AWS account, signing with those root credentials.

The Secret manifests hold keys: they are written readable by you only, and
never printed. Requests above the --ceiling policy, or with privilege-escalation
findings at or above --refuse-escalation (default critical), are refused as
the operator refuses them. A role (stsIAMRoleARN) or Manual key of another
account than the root credentials' is checked through that account's
--account-check-role, or reported (or refused, --unchecked-accounts) as
unchecked. Exit status: 0 when every request is ready (or, being for
another cloud, ignored), 1 when one is not, 2 on bad input.`),
		Example: example(
			"# Mint the examples' credentials in the embedded local endpoint",
			"leash apply -f examples/",
			"",
			"# Against AWS, with the root credentials in the environment",
			"AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... leash apply -f requests/ --out secrets/ --cluster-name prod",
			"",
			"# Check, without minting, that the root credentials cover every request",
			"leash apply -f examples/ --mode Passthrough",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return &inputerr.Error{Msg: "-f DIR is required: the folder of CredentialsRequest manifests (e.g. -f examples/)"}
			}
			cfg.Mode = leashv1.CredentialsMode(mode)
			cfg.Guardrails.Command = "leash apply"
			if err := guard.apply(&cfg.Guardrails); err != nil {
				return err
			}
			if err := accounts.apply(&cfg.AccountChecks); err != nil {
				return err
			}
			return runApply(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), applyOptions{
				dir: dir, where: where, cfg: cfg,
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&dir, "filename", "f", "", "folder `DIR` of CredentialsRequest manifests (*.yaml, *.yml; other kinds are skipped)")
	where.addFlags(f)
	f.StringVar(&mode, "mode", string(leashv1.ModeMint), "credentials `MODE` for requests without a leash.dev/mode annotation: Mint, Passthrough, Manual, STS or Broker")
	f.StringVar(&cfg.OIDCIssuer, "oidc-issuer", "", "the cluster's service-account issuer `URL`: the roles STS mode makes trust its IAM OIDC provider (default: --oidc-issuer-dir's)")
	f.StringVar(&cfg.BrokerPrincipal, "broker-principal", "", "`ARN` of the IAM user or role leash's credential broker runs as, which the roles Broker mode makes trust (default, in the embedded endpoint: its user "+defaultBrokerUser+", made when a request needs it)")
	f.StringVar(&cfg.Audience, "oidc-audience", operator.DefaultAudience, "token `AUDIENCE` the roles STS mode makes trust")
	where.addIssuerDirFlag(f)
	f.StringVar(&cfg.ClusterName, "cluster-name", "leash", "`NAME` that prefixes minted users and tags them (letters, digits, - _ .)")
	f.DurationVar(&cfg.RotateAfter, "rotate-after", 0, "maximum `AGE` of a minted key before apply replaces it (e.g. 720h; 0 never)")
	f.StringVar(&cfg.Boundary, "permissions-boundary", "", "`ARN` of a managed policy set as every minted user's permissions boundary (not with --ceiling, which makes the ceiling the boundary)")
	guard.register(f, &cfg.Guardrails)
	accounts.register(f, &cfg.AccountChecks)
	return cmd
}

type applyOptions struct {
	dir   string
	where folderTarget
	cfg   operator.Config
}

// errNotReady is apply's "no": some request is not ready.
var errNotReady = errors.New("not every request is ready")

func runApply(ctx context.Context, stdout, stderr io.Writer, o applyOptions) error {
	requests, err := operator.ReadRequests(o.dir)
	if err != nil {
		return err
	}
	if err := o.cfg.Validate(); err != nil {
		return &inputerr.Error{Msg: err.Error()}
	}
	if needsBroker(requests, o.cfg) {
		o.where.brokerUser = brokerUser(stderr)
	}
	prov, stop, err := o.where.provisioner(ctx, o.cfg, operator.FolderCluster{Requests: requests}, eventPrinter{stderr})
	if err != nil {
		return err
	}
	defer stop()
	applied := operator.Apply(ctx, prov, requests)
	if err := operator.WriteTable(stdout, applied); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nSecrets are in %s (readable by you only).\n", o.where.out)
	for _, a := range applied {
		if !a.Ready() && !a.Ignored() {
			return errNotReady
		}
	}
	return nil
}

// eventPrinter prints the IAM changes apply makes, as the operator records
// them as Events.
type eventPrinter struct{ w io.Writer }

func (p eventPrinter) Event(o runtime.Object, eventtype, reason, message string) {
	cr, _ := o.(*leashv1.CredentialsRequest)
	name := ""
	if cr != nil {
		name = cr.Namespace + "/" + cr.Name + ": "
	}
	prefix := ""
	if eventtype == corev1.EventTypeWarning {
		prefix = "warning: "
	}
	// The request's name is the manifest's and the message quotes IAM's
	// names: escaped, neither can start a forged line.
	fmt.Fprintf(p.w, "%s%s%s (%s)\n", prefix, termsafe.Escape(name), termsafe.Escape(message), reason)
}
