package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/localaws"
	"leash.dev/leash/oidcissuer"
	"leash.dev/leash/operator"
)

func newApply() *cobra.Command {
	var (
		dir, out, data, endpoint, mode, target string
		issuerDir                              string
		cfg                                    operator.Config
		guard                                  guardrailFlags
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
the operator refuses them. Exit status: 0 when every request is ready (or, being for
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
			if err := guard.apply(&cfg.Guardrails); err != nil {
				return err
			}
			return runApply(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), applyOptions{
				dir: dir, out: out, data: data, endpoint: endpoint, target: target, cfg: cfg, issuerDir: issuerDir,
			})
		},
	}
	f := cmd.Flags()
	f.StringVarP(&dir, "filename", "f", "", "folder `DIR` of CredentialsRequest manifests (*.yaml, *.yml; other kinds are skipped)")
	f.StringVar(&out, "out", "", "folder `DIR` for the Secret manifests (default DATA/secrets with the local endpoint, else ./secrets)")
	f.StringVar(&data, "data", "leash-data", "folder `DIR` of the embedded local endpoint's state")
	f.StringVar(&target, "target", "", "where to provision: local (the embedded endpoint) or aws; default aws when AWS_ACCESS_KEY_ID is set, else local")
	f.StringVar(&endpoint, "endpoint", "", "`URL` of a running leash local, instead of the embedded one (its admin credentials from --data)")
	f.StringVar(&mode, "mode", string(leashv1.ModeMint), "credentials `MODE` for requests without a leash.dev/mode annotation: Mint, Passthrough, Manual or STS")
	f.StringVar(&cfg.OIDCIssuer, "oidc-issuer", "", "the cluster's service-account issuer `URL`: the roles STS mode makes trust its IAM OIDC provider (default: --oidc-issuer-dir's)")
	f.StringVar(&cfg.Audience, "oidc-audience", operator.DefaultAudience, "token `AUDIENCE` the roles STS mode makes trust")
	f.StringVar(&issuerDir, "oidc-issuer-dir", "", "issuer folder `DIR` (leash sts create-issuer --out): its key signs the token that proves each made role before its Secret is written; without it the proof is skipped")
	f.StringVar(&cfg.ClusterName, "cluster-name", "leash", "`NAME` that prefixes minted users and tags them (letters, digits, - _ .)")
	f.DurationVar(&cfg.RotateAfter, "rotate-after", 0, "maximum `AGE` of a minted key before apply replaces it (e.g. 720h; 0 never)")
	f.StringVar(&cfg.Boundary, "permissions-boundary", "", "`ARN` of a managed policy set as every minted user's permissions boundary (not with --ceiling, which makes the ceiling the boundary)")
	guard.register(f, &cfg.Guardrails)
	return cmd
}

type applyOptions struct {
	dir, out, data, endpoint, target string
	cfg                              operator.Config
	// issuerDir is the issuer folder whose key signs the proofs' tokens.
	issuerDir string
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
	// The issuer folder's key signs the proofs' tokens; the embedded
	// endpoint reads its key set, as it cannot fetch the issuer's.
	var signToken func(namespace, name, audience string, expiry time.Duration) (string, error)
	var jwks map[string]string
	if o.issuerDir != "" {
		signer, err := loadIssuerSigner(o.issuerDir)
		if err != nil {
			return &inputerr.Error{Msg: "--oidc-issuer-dir: " + err.Error()}
		}
		switch o.cfg.OIDCIssuer {
		case "":
			o.cfg.OIDCIssuer = signer.url
		case signer.url:
		default:
			return &inputerr.Error{Msg: fmt.Sprintf("--oidc-issuer %s is not the issuer of --oidc-issuer-dir %s (%s); give one of them, or the same issuer", o.cfg.OIDCIssuer, o.issuerDir, signer.url)}
		}
		signToken = signer.sign
		jwks = map[string]string{signer.url: oidcissuer.JWKSFile(o.issuerDir)}
	}
	if o.target == "" {
		o.target = "local"
		if os.Getenv("AWS_ACCESS_KEY_ID") != "" {
			o.target = "aws"
		}
	}
	var root operator.RootSource
	iamCfg := iamclient.Config{Endpoint: o.endpoint, HTTPClient: iamclient.NewHTTPClient(1)}
	switch o.target {
	case "local":
		if o.out == "" {
			o.out = filepath.Join(o.data, "secrets")
		}
		if o.endpoint == "" {
			local, err := localaws.StartLoopback(localaws.Config{DataDir: o.data, JWKSFiles: jwks})
			if err != nil {
				return err
			}
			defer func() { _ = local.Stop() }()
			iamCfg.Endpoint = local.URL
		}
		root = operator.FileRoot{Path: filepath.Join(o.data, localaws.AdminCredentialsFile)}
	case "aws":
		key, ok := iamclient.KeyFromEnv(os.Getenv)
		if !ok {
			return &inputerr.Error{Msg: "--target aws needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment (the root credentials to mint with)"}
		}
		if o.out == "" {
			o.out = "secrets"
		}
		iamCfg.Region = os.Getenv("AWS_REGION")
		root = operator.StaticRoot{Key: key, Source: "the AWS_ACCESS_KEY_ID environment"}
	default:
		return &inputerr.Error{Msg: fmt.Sprintf("--target %q: use local or aws", o.target)}
	}
	newIAM := func(key iamclient.AccessKey) *iamclient.Client {
		c := iamCfg
		c.Credentials = key.Provider()
		return iamclient.New(c)
	}
	folder := operator.FolderCluster{Dir: o.out, Requests: requests, SignToken: signToken}
	prov, err := operator.NewProvisioner(o.cfg, root, newIAM, folder, eventPrinter{stderr})
	if err != nil {
		return &inputerr.Error{Msg: err.Error()}
	}
	applied := operator.Apply(ctx, prov, requests)
	if err := operator.WriteTable(stdout, applied); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nSecrets are in %s (readable by you only).\n", o.out)
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
	fmt.Fprintf(p.w, "%s%s%s (%s)\n", prefix, name, message, reason)
}
