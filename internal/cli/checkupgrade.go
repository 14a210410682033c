package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/upgrade"
)

type checkUpgradeOptions struct {
	next, dir, kubeconfig string
	clusterName, mode     string
	output                string
	iamAccess
	stdout io.Writer
}

func newCheckUpgrade() *cobra.Command {
	o := checkUpgradeOptions{iamAccess: iamAccess{getenv: os.Getenv}}
	const short = "Check that the next release's CredentialsRequests find their permissions in the current credentials"
	cmd := &cobra.Command{
		Use:   "upgrade --next DIR (-f CURRENT_DIR | --kubeconfig FILE)",
		Short: short,
		Long: long(short, `upgrade reads the next release's CredentialsRequest manifests (--next, a folder
as leash apply -f takes it) and, for each, the credentials the request of the
same NAMESPACE/NAME holds now: the principal leash apply minted for the folder
it provisioned (-f, with its --cluster-name and --mode), or the principal in
the request's status.principal in a cluster (--kubeconfig). It reads that
principal's policies from IAM (inline, attached, a user's groups' and the
permissions boundary) and asks leash's engine, for every action, resource and
condition the next request's statements grant, whether they allow it, as
leash diff does. What they do not allow is missing: the upgraded controller
would be denied it until the credentials are updated.

A Passthrough request holds the root credentials, and is checked against
them (in a cluster its status.principal; in a folder the credentials this
check runs with). A next request the current ones lack is new: it is
provisioned at upgrade. A request for another cloud is ignored. A manifest
left a template, a current request not provisioned yet, or a principal IAM
no longer knows fails, with what to do.

IAM is read with --endpoint (leash local), --credentials-file, --profile or
the AWS environment, as leash check --user reads it.

Exit status: 0 when every request finds what it needs (or is new or
ignored), 1 when a permission is missing or a request failed, 2 on bad input.`),
		Example: example(
			"# Before upgrading: will the next release's requests find their permissions?",
			"leash check upgrade --next release-next/ -f current/ \\",
			"  --endpoint http://127.0.0.1:4566 --credentials-file leash-data/admin-credentials",
			"",
			"# The same against a cluster's requests and AWS, as JSON",
			"leash check upgrade --next release-next/ --kubeconfig ~/.kube/config --profile prod --output json",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("kubeconfig") && (cmd.Flags().Changed("cluster-name") || cmd.Flags().Changed("mode")) {
				return &inputerr.Error{Msg: "--cluster-name and --mode say how leash apply named the principals of -f DIR; with --kubeconfig each request's status.principal names its own: leave them out"}
			}
			o.stdout = cmd.OutOrStdout()
			return runCheckUpgrade(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.next, "next", "", "folder `DIR` of the next release's CredentialsRequest manifests (*.yaml, *.yml; other kinds are skipped)")
	f.StringVarP(&o.dir, "filename", "f", "", "folder `DIR` of the current CredentialsRequest manifests, as leash apply -f provisioned them")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "`FILE` to reach the cluster whose CredentialsRequests hold the current credentials, instead of -f")
	f.StringVar(&o.clusterName, "cluster-name", "leash", "with -f: the `NAME` leash apply minted users under (its --cluster-name)")
	f.StringVar(&o.mode, "mode", string(leashv1.ModeMint), "with -f: the `MODE` leash apply used for requests without a leash.dev/mode annotation (its --mode)")
	f.StringVar(&o.output, "output", "text", "`FORMAT`: text (a block per request) or json")
	o.addFlags(f, "read the current principals' policies")
	return cmd
}

func runCheckUpgrade(ctx context.Context, o checkUpgradeOptions) error {
	if o.output != "text" && o.output != "json" {
		return &inputerr.Error{Msg: fmt.Sprintf("--output %q: use text or json", o.output)}
	}
	next, err := nextRequests(o.next)
	if err != nil {
		return err
	}
	var find upgrade.Find
	var fix string
	switch {
	case o.dir == "" && o.kubeconfig == "":
		return &inputerr.Error{Msg: "say where the current credentials are: -f DIR (the folder leash apply provisioned) or --kubeconfig FILE (a cluster's CredentialsRequests)"}
	case o.dir != "" && o.kubeconfig != "":
		return &inputerr.Error{Msg: "-f and --kubeconfig: give one place the current credentials are"}
	case o.dir != "":
		if find, err = folderFind(o); err != nil {
			return err
		}
		fix = fmt.Sprintf("run leash apply -f %s to provision it again, or give this check apply's --cluster-name and --mode", o.dir)
	default:
		if find, err = clusterFind(o.kubeconfig); err != nil {
			return err
		}
		fix = "the operator provisions it again when it next syncs the request (kubectl describe credentialsrequest says why it has not)"
	}
	iam, err := o.client(ctx, 3)
	if err != nil {
		return err
	}
	if o.dir != "" {
		find = withPassthroughCaller(find, iam)
	}
	results, err := upgrade.Check(ctx, next, find, upgrade.IAMReader(iam, fix))
	if err != nil {
		return err
	}
	if o.output == "json" {
		err = upgrade.WriteJSON(o.stdout, results)
	} else {
		err = upgrade.WriteText(o.stdout, results)
	}
	if err != nil {
		return err
	}
	if !upgrade.Summarize(results).Upgradeable() {
		return errFindings // check's "no": a request would lack a permission
	}
	return nil
}

// nextRequests reads --next as leash apply reads a folder, with the checks
// the operator makes before it reads a request's statements.
func nextRequests(dir string) ([]upgrade.Request, error) {
	if dir == "" {
		return nil, &inputerr.Error{Msg: "--next DIR is required: the folder of the next release's CredentialsRequest manifests (e.g. --next release-next/)"}
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, &inputerr.Error{Source: "--next " + dir, Msg: fmt.Sprintf("%v; give the folder of the next release's CredentialsRequest manifests", errors.Unwrap(err))}
	}
	if !info.IsDir() {
		return nil, &inputerr.Error{Source: "--next " + dir, Msg: "is a file; give the folder that holds it"}
	}
	crs, err := operator.ReadRequests(dir)
	if err != nil {
		return nil, err
	}
	return operator.UpgradeRequests(crs), nil
}

// folderFind finds a request's principal as leash revoke --request -f does:
// the one leash apply made for the request of that name in -f DIR.
func folderFind(o checkUpgradeOptions) (upgrade.Find, error) {
	requests, err := operator.ReadRequests(o.dir)
	if err != nil {
		return nil, err
	}
	byName := map[string]*leashv1.CredentialsRequest{}
	for _, cr := range requests {
		byName[cr.Namespace+"/"+cr.Name] = cr
	}
	return func(_ context.Context, ns, name string) (upgrade.Principal, error) {
		cr, ok := byName[ns+"/"+name]
		if !ok {
			return upgrade.Principal{}, upgrade.ErrNew
		}
		mode, principal, err := operator.FolderPrincipal(cr, o.clusterName, leashv1.CredentialsMode(o.mode))
		if err != nil {
			return upgrade.Principal{}, &upgrade.Failure{Msg: fmt.Sprintf("its current manifest in %s: %v", o.dir, err)}
		}
		switch mode {
		case leashv1.ModeMint:
			return upgrade.Principal{Kind: "user", Name: principal}, nil
		case leashv1.ModeSTS, leashv1.ModeBroker:
			return upgrade.Principal{Kind: "role", Name: principal}, nil
		case leashv1.ModePassthrough:
			return upgrade.Principal{}, errPassthrough
		case leashv1.ModeIgnored:
			return upgrade.Principal{}, upgrade.ErrNew // another cloud's now: AWS credentials are made at upgrade
		}
		return upgrade.Principal{}, &upgrade.Failure{Msg: fmt.Sprintf("%s mode: its credentials are a Secret you made, which a folder does not name; check them with --kubeconfig (status.principal) or leash check --user NAME", mode)}
	}, nil
}

// errPassthrough is folderFind's word for a request that holds the root
// credentials, which withPassthroughCaller names.
var errPassthrough = errors.New("passthrough")

// withPassthroughCaller answers a Passthrough request of a folder with the
// principal of the credentials this check runs with: leash apply passes its
// root credentials through, and they are the ones given to both.
func withPassthroughCaller(find upgrade.Find, iam *iamclient.Client) upgrade.Find {
	return func(ctx context.Context, ns, name string) (upgrade.Principal, error) {
		p, err := find(ctx, ns, name)
		if !errors.Is(err, errPassthrough) {
			return p, err
		}
		id, err := iam.CallerIdentity(ctx)
		if err != nil {
			return p, &inputerr.Error{Msg: fmt.Sprintf("who the credentials are (for the Passthrough request %s/%s): %v", ns, name, err)}
		}
		kind, _, ok := iamclient.PrincipalName(id.ARN)
		if !ok {
			return p, &upgrade.Failure{Msg: fmt.Sprintf("Passthrough: the root credentials are %s, not an IAM user or role whose policies can be read", id.ARN)}
		}
		return upgrade.Principal{Kind: kind, Name: id.ARN, Note: "Passthrough: checked against the root credentials, those this check runs with"}, nil
	}
}

// clusterFind finds a request's principal in its status, as the operator
// recorded it.
func clusterFind(kubeconfig string) (upgrade.Find, error) {
	kube, err := requestClient(kubeconfig)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ns, name string) (upgrade.Principal, error) {
		cr, err := getRequest(ctx, kube, ns, name)
		if err != nil {
			return upgrade.Principal{}, err
		}
		return upgrade.StatusPrincipal(cr)
	}, nil
}

// requestClient is a client for CredentialsRequests in the cluster of
// kubeconfig.
func requestClient(kubeconfig string) (client.Client, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, &inputerr.Error{Source: "--kubeconfig " + kubeconfig, Msg: err.Error()}
	}
	scheme := runtime.NewScheme()
	if err := leashv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// getRequest reads a request from the cluster; ErrNew when it has none.
func getRequest(ctx context.Context, kube client.Client, ns, name string) (*leashv1.CredentialsRequest, error) {
	cr := &leashv1.CredentialsRequest{}
	err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, cr)
	if apierrors.IsNotFound(err) {
		return nil, upgrade.ErrNew
	}
	if err != nil {
		return nil, fmt.Errorf("read CredentialsRequest %s/%s: %w", ns, name, err)
	}
	return cr, nil
}
