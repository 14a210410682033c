package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/revoke"
	"leash.dev/leash/internal/shellquote"
	"leash.dev/leash/internal/termsafe"
)

type revokeOptions struct {
	user, role, request    string
	kubeconfig, dir        string
	clusterName, applyMode string
	trust                  []string
	keepKeysInactive       bool
	issuedBefore           string
	dryRun, lift, force    bool
	self                   bool
	followChained          bool
	data, trailDir         string
	output                 string
	iamAccess
	stdout, stderr io.Writer
}

func newRevoke() *cobra.Command {
	o := revokeOptions{iamAccess: iamAccess{getenv: os.Getenv}}
	const short = "Take a principal's credentials back: keys, console password and every session issued before a cutoff"
	cmd := &cobra.Command{
		Use:   "revoke (--user NAME|ARN | --role NAME|ARN | --request NAMESPACE/NAME)",
		Short: short,
		Long: long(short, `revoke ends a leaked or suspect principal's access now, with the same IAM
calls against AWS and leash local (--endpoint):

  --user    locks the user out first (inline policy `+revoke.LockoutName+`,
            so the key's holder can neither make nor reactivate a key
            meanwhile), deactivates, then deletes, every access key until a
            listing shows none (--keep-keys-inactive keeps them, inactive, as
            evidence), deletes the console password (login profile), puts the
            inline policy `+revoke.PolicyName+`: a deny of every action to
            sessions issued before the cutoff, which ends GetSessionToken and
            GetFederationToken sessions that deleting a key does not, and
            then ends the lockout.
  --role    puts the same deny on the role (the AWS console's "Revoke active
            sessions"); --trust also removes an AWS principal ARN or an OIDC
            sub value (StringEquals or StringLike on *:sub) from its trust
            policy, so no new session is issued to it. A statement left with
            nothing to match is removed; when no Allow statement would be left
            (IAM refuses that), a Deny statement for the value is added
            instead. The engine then decides over the whole trust policy
            whether the value can still be issued a session; if another
            statement (a wildcard sub, a trusted account) still admits it, the
            run says which and exits 1.
  --request the principal a CredentialsRequest's credentials act as, from a
            cluster (status.principal, --kubeconfig) or from a folder of
            manifests (-f DIR, as leash apply mints them). In a cluster the
            request is then annotated leash.dev/revoke=<cutoff>, and the
            operator mints a fresh credential at once; in a folder, leash
            apply -f DIR mints it when you run it.

The deny is read back from IAM and proven with leash's policy engine to refuse
every call of a session issued before the cutoff; a policy under its name that
is not exactly the deny (an Allow, another action or resource, a condition that
never matches) is replaced, and the plan says so.

Sessions of other roles that the revoked sessions assumed (chained sessions)
are not ended by the deny, as in AWS: after the revocation they are listed
from the trail (--data, --trail-dir, or else the endpoint's CloudTrail
LookupEvents), and --follow-chained revokes their roles too.

The cutoff is --issued-before, or else the endpoint's time (the Date of its
responses, so a skewed local clock changes nothing), read again after the
calls that stop new sessions, so a session issued while they ran ends too.
Every run prints the plan (each call), then each call as it is made, then the
earliest time the deny may be lifted: the cutoff plus the longest session the
principal could have been issued (a role's MaxSessionDuration, at least an
hour for chained sessions; 36 hours for a user), recorded in the deny so that
lowering MaxSessionDuration later does not bring it forward (a deny without a
record, as the console writes, is lifted 12 hours after its cutoff for a role).
A cutoff with a fraction of a second is rounded up. --dry-run prints the plan
and makes no write call. --lift removes the deny, and refuses before that time
unless --force.

Running it again is safe: what is gone stays gone, and a deny in place is
renewed to the new cutoff, which also ends sessions issued in between. A run
cut short is finished by running it again. It refuses to revoke the principal
whose credentials it runs with unless --self.

Credentials: --profile, --credentials-file, AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN), or AWS_PROFILE, as leash
check --user takes them.

Exit status: 0 when done (or nothing was left to do), 1 when refused or not
complete (the principal is the caller's own, the lift time is not reached, the
deny read back is not as written, a --trust value is still admitted, a chained
role was not revoked, IAM denied a call: the message names the action and the
principal lacking it), 2 on bad input
(an unknown principal, an ARN of another account than the credentials', a
cutoff in the future, bad flags).`),
		Example: example(
			"# What would be done to the leaked CI role, without doing it",
			"leash revoke --role krops-ci-e2e --dry-run",
			"",
			"# End the role's sessions and stop GitHub from issuing new ones to the leaked ref",
			"leash revoke --role krops-ci-e2e --trust repo:polarsquad/krops:ref:refs/heads/main",
			"",
			"# A user's key leaked: keep the keys, inactive, as evidence",
			"leash revoke --user capi-demo --keep-keys-inactive --profile incident",
			"",
			"# The credentials of a CredentialsRequest in a cluster; the operator mints new ones",
			"leash revoke --request kube-system/aws-cloud-controller-manager --kubeconfig ~/.kube/config",
			"",
			"# Also revoke the roles the leaked role's sessions assumed, listed from leash local's log",
			"leash revoke --role krops-ci-e2e --follow-chained --endpoint http://127.0.0.1:4566 --credentials-file leash-data/admin-credentials",
			"",
			"# Later: lift the deny once every older session has expired",
			"leash revoke --role krops-ci-e2e --lift",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.stdout, o.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			err := runRevoke(cmd.Context(), o)
			if errors.Is(err, revoke.ErrRefused) {
				fmt.Fprintf(o.stderr, "%s: %v\n", cmd.CommandPath(), err)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.user, "user", "", "IAM user `NAME` or ARN to revoke (e.g. --user capi-demo)")
	f.StringVar(&o.role, "role", "", "IAM role `NAME` or ARN to revoke (e.g. --role krops-ci-e2e)")
	f.StringVar(&o.request, "request", "", "CredentialsRequest `NAMESPACE/NAME` whose principal to revoke, in the cluster or, with -f, in a folder (e.g. --request kube-system/ccm)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "`FILE` to reach the API server for --request (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
	f.StringVarP(&o.dir, "filename", "f", "", "folder `DIR` of CredentialsRequest manifests, as leash apply takes it, to find --request in instead of a cluster")
	f.StringVar(&o.clusterName, "cluster-name", "leash", "with -f: the `NAME` leash apply minted users under (its --cluster-name)")
	f.StringVar(&o.applyMode, "mode", string(leashv1.ModeMint), "with -f: the `MODE` leash apply used for requests without a leash.dev/mode annotation (its --mode)")
	f.StringArrayVar(&o.trust, "trust", nil, "AWS principal ARN or OIDC sub `VALUE` to remove from the role's trust policy; repeat for several (e.g. --trust repo:org/repo:ref:refs/heads/main)")
	f.BoolVar(&o.keepKeysInactive, "keep-keys-inactive", false, "leave the user's access keys in place, inactive, as evidence, instead of deleting them")
	f.StringVar(&o.issuedBefore, "issued-before", "", "cutoff `TIME` (RFC 3339): sessions issued before it are refused (default: the endpoint's time; e.g. --issued-before 2026-12-01T09:30:00Z)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the plan only; make no write call")
	f.BoolVar(&o.lift, "lift", false, "remove the session deny instead, once every session issued before its cutoff has expired")
	f.BoolVar(&o.force, "force", false, "with --lift: remove the deny before the lift time")
	f.BoolVar(&o.self, "self", false, "allow revoking the principal whose credentials run the command")
	f.BoolVar(&o.followChained, "follow-chained", false, "also revoke every role the revoked sessions assumed (chained sessions, which the deny does not end), as the trail lists them")
	f.StringVar(&o.data, "data", "", "list chained sessions from leash local's audit log in its data folder `DIR`, instead of CloudTrail's LookupEvents (e.g. --data ./leash-data)")
	f.StringVar(&o.trailDir, "trail-dir", "", "list chained sessions from the CloudTrail log files under `DIR`, instead of LookupEvents (e.g. --trail-dir ./AWSLogs)")
	f.StringVar(&o.output, "output", "text", "report `FORMAT`: text, or json for the plan, the calls made and the lift time (e.g. --output json)")
	o.addFlags(f, "revoke the principal")
	return cmd
}

func runRevoke(ctx context.Context, o revokeOptions) error {
	ro, err := revokeInput(o)
	if err != nil {
		return err
	}
	iam, err := o.client(ctx, 3)
	if err != nil {
		return err
	}
	var cr *leashv1.CredentialsRequest
	var kube client.Client
	if o.request != "" {
		if cr, kube, err = resolveRequest(ctx, o, &ro); err != nil {
			return err
		}
	}
	r, err := revoke.Plan(ctx, iam, ro)
	if err != nil {
		return err
	}
	text := o.output == "text"
	if text {
		printPlan(o.stdout, r)
	}
	if kube != nil && !o.lift {
		r.Notes = append(r.Notes, fmt.Sprintf("then annotate CredentialsRequest %s %s=<cutoff>, so the operator mints a fresh credential", o.request, operator.AnnotationRevoke))
		if text {
			fmt.Fprintf(o.stdout, "  %d. annotate CredentialsRequest %s %s=<cutoff>\n", len(r.Steps)+1, o.request, operator.AnnotationRevoke)
		}
	}
	if o.dryRun {
		if text {
			fmt.Fprintln(o.stdout, "Dry run: no call was made.")
			printLift(o.stdout, r, o.iamAccess)
			return nil
		}
		return writeRevokeJSON(o.stdout, r, true, nil)
	}
	if text && len(r.Steps) > 0 {
		fmt.Fprintln(o.stdout, "Done:")
	}
	err = r.Apply(ctx, func(s *revoke.Step) {
		if text {
			fmt.Fprintf(o.stdout, "  ✓ %s %s", s.Call, termsafe.Escape(s.On))
			if s.Note != "" {
				fmt.Fprintf(o.stdout, " (%s)", termsafe.Escape(s.Note))
			}
			fmt.Fprintln(o.stdout)
		}
	})
	if err != nil {
		if text {
			fmt.Fprintln(o.stdout, "Stopped before the plan was done; run the same command again to finish it.")
		}
		return err
	}
	if kube != nil && !o.lift {
		if err := annotateRevoked(ctx, kube, cr, r.Cutoff); err != nil {
			return err
		}
		if text {
			fmt.Fprintf(o.stdout, "  ✓ annotate CredentialsRequest %s %s=%s\n", o.request, operator.AnnotationRevoke, r.Cutoff.Format(time.RFC3339))
		}
	}
	chains, err := listChained(ctx, o, r)
	if err != nil {
		return err
	}
	if !text {
		if err := writeRevokeJSON(o.stdout, r, false, chains); err != nil || len(r.TrustOpen) == 0 {
			return err
		}
		return &revoke.Refusal{Msg: fmt.Sprintf("--trust: the trust policy of %s still lets new sessions be issued: %s", r.Principal, strings.Join(r.TrustOpen, "; "))}
	}
	printLift(o.stdout, r, o.iamAccess)
	if err := followChained(ctx, o, iam, chains); err != nil {
		return err
	}
	if len(r.TrustOpen) > 0 {
		return &revoke.Refusal{Msg: fmt.Sprintf("--trust: the trust policy of %s still lets new sessions be issued: %s. Remove those statements' values too (--trust VALUE), or they keep issuing sessions the deny refuses only until the cutoff",
			r.Principal, strings.Join(r.TrustOpen, "; "))}
	}
	if o.request != "" && o.dir != "" && !o.lift {
		fmt.Fprintf(o.stdout, "Fresh credential: run leash apply -f %s (with the --target, --data and --out you minted with); it mints a new key, which the deny does not refuse.\n", o.dir)
	}
	return nil
}

// revokeInput checks the flags and turns them into revoke.Options.
func revokeInput(o revokeOptions) (revoke.Options, error) {
	var ro revoke.Options
	given := 0
	for _, v := range []string{o.user, o.role, o.request} {
		if v != "" {
			given++
		}
	}
	if given != 1 {
		return ro, &inputerr.Error{Msg: "give one principal to revoke: --user NAME|ARN, --role NAME|ARN or --request NAMESPACE/NAME"}
	}
	if o.output != "text" && o.output != "json" {
		return ro, &inputerr.Error{Source: "--output", Msg: fmt.Sprintf("%q: use text or json", o.output)}
	}
	if o.request == "" && (o.dir != "" || o.kubeconfig != "") {
		return ro, &inputerr.Error{Msg: "-f and --kubeconfig say where --request is; give --request NAMESPACE/NAME"}
	}
	if o.dir != "" && o.kubeconfig != "" {
		return ro, &inputerr.Error{Msg: "--request is in a cluster (--kubeconfig) or in a folder (-f DIR), not both"}
	}
	ro = revoke.Options{Trust: o.trust, KeepKeysInactive: o.keepKeysInactive, Lift: o.lift, Force: o.force, Self: o.self}
	switch {
	case o.user != "":
		ro.Kind, ro.Name = revoke.User, o.user
	case o.role != "":
		ro.Kind, ro.Name = revoke.Role, o.role
	}
	if o.issuedBefore != "" {
		t, err := time.Parse(time.RFC3339, o.issuedBefore)
		if err != nil {
			return ro, &inputerr.Error{Source: "--issued-before", Msg: fmt.Sprintf("%q is not an RFC 3339 time; write it as 2026-12-01T09:30:00Z", o.issuedBefore)}
		}
		// aws:TokenIssueTime and the deny's time count whole seconds: a
		// fraction is rounded up, so a session issued later in the same
		// second is refused too.
		if t.Nanosecond() != 0 {
			t = t.Truncate(time.Second).Add(time.Second)
		}
		ro.IssuedBefore = t
	}
	return ro, nil
}

// resolveRequest finds the principal of --request and sets it in ro. In a
// cluster it returns the request and a client to annotate it with.
func resolveRequest(ctx context.Context, o revokeOptions, ro *revoke.Options) (*leashv1.CredentialsRequest, client.Client, error) {
	ns, name, ok := strings.Cut(o.request, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return nil, nil, &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("%q: give NAMESPACE/NAME (e.g. kube-system/aws-cloud-controller-manager)", o.request)}
	}
	if o.dir != "" {
		return nil, nil, folderPrincipal(o, ns, name, ro)
	}
	kube, err := requestClient(o.kubeconfig)
	if err != nil {
		return nil, nil, err
	}
	cr := &leashv1.CredentialsRequest{}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, cr); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("the cluster has no CredentialsRequest %s; list them with kubectl get credentialsrequests -A", o.request)}
		}
		return nil, nil, fmt.Errorf("read CredentialsRequest %s: %w", o.request, err)
	}
	kind, arn, err := revoke.RequestPrincipal(cr)
	if err != nil {
		return nil, nil, err
	}
	ro.Kind, ro.Name = kind, arn
	return cr, kube, nil
}

// folderPrincipal finds the principal leash apply gives a request of -f DIR.
func folderPrincipal(o revokeOptions, ns, name string, ro *revoke.Options) error {
	requests, err := operator.ReadRequests(o.dir)
	if err != nil {
		return err
	}
	for _, cr := range requests {
		if cr.Namespace != ns || cr.Name != name {
			continue
		}
		mode, principal, err := operator.FolderPrincipal(cr, o.clusterName, leashv1.CredentialsMode(o.applyMode))
		if err != nil {
			return &inputerr.Error{Source: "--request " + o.request, Msg: err.Error()}
		}
		switch mode {
		case leashv1.ModeMint:
			ro.Kind, ro.Name = revoke.User, principal
		case leashv1.ModeSTS, leashv1.ModeBroker:
			ro.Kind, ro.Name = revoke.Role, principal
		default:
			return &revoke.Refusal{Msg: fmt.Sprintf("--request %s is %s mode: its credentials are not its own (Passthrough hands out the root credentials; Manual a Secret you made). Revoke that principal with --user or --role", o.request, mode)}
		}
		return nil
	}
	return &inputerr.Error{Source: "--request", Msg: fmt.Sprintf("no CredentialsRequest %s in %s (a request without a namespace is in default)", o.request, o.dir)}
}

// annotateRevoked sets leash.dev/revoke on the request, so the operator
// retires the keys issued before the cutoff and mints a fresh one.
func annotateRevoked(ctx context.Context, kube client.Client, cr *leashv1.CredentialsRequest, cutoff time.Time) error {
	patch := map[string]any{"metadata": map[string]any{"annotations": map[string]string{operator.AnnotationRevoke: cutoff.UTC().Format(time.RFC3339)}}}
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	if err := kube.Patch(ctx, cr, client.RawPatch(types.MergePatchType, body)); err != nil {
		return fmt.Errorf("annotate CredentialsRequest %s/%s %s: %w", cr.Namespace, cr.Name, operator.AnnotationRevoke, err)
	}
	return nil
}

func printPlan(w io.Writer, r *revoke.Revocation) {
	verb := "revoke"
	if r.Lift {
		verb = "lift the session deny of"
	}
	// Names, ARNs and the trust policy come from IAM and STS: escaped
	// (termsafe.Escape), none can start a line of the plan.
	fmt.Fprintf(w, "Plan: %s %s %s\n", verb, r.Kind, termsafe.Escape(r.Principal))
	fmt.Fprintf(w, "  as %s; the endpoint's time is %s\n", termsafe.Escape(r.Caller), r.EndpointTime.Format(time.RFC3339))
	if !r.Lift {
		switch {
		case r.CutoffAtApply:
			fmt.Fprintf(w, "  cutoff: the endpoint's time once no new session can be issued (about %s)\n", r.Cutoff.Format(time.RFC3339))
		default:
			fmt.Fprintf(w, "  cutoff: sessions issued before %s are refused\n", r.Cutoff.Format(time.RFC3339))
		}
	}
	if r.Trust != "" {
		fmt.Fprintf(w, "  trust policy becomes: %s\n", termsafe.Escape(r.Trust))
	}
	for _, open := range r.TrustOpen {
		fmt.Fprintf(w, "  NOT closed by this plan: %s\n", termsafe.Escape(open))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", termsafe.Escape(n))
	}
	if len(r.Steps) == 0 {
		fmt.Fprintln(w, "  nothing to change")
	}
	for i, s := range r.Steps {
		fmt.Fprintf(w, "  %d. %s %s\n", i+1, s.Call, termsafe.Escape(s.On))
	}
}

func printLift(w io.Writer, r *revoke.Revocation, access iamAccess) {
	if r.Lift {
		if len(r.Steps) > 0 && r.Steps[0].Done {
			fmt.Fprintf(w, "Lifted: the session deny %s is removed from %s.\n", revoke.PolicyName, termsafe.Escape(r.Principal))
		}
		return
	}
	flag := "--" + string(r.Kind) + " " + termsafe.Escape(r.Principal)
	for _, f := range []struct{ name, value string }{{"--endpoint", access.endpoint}, {"--credentials-file", access.credentialsFile}, {"--profile", access.profile}} {
		if f.value != "" {
			flag += " " + f.name + " " + shellquote.Quote(f.value)
		}
	}
	fmt.Fprintf(w, "The deny may be lifted at %s (cutoff %s + longest session %s): leash revoke %s --lift\n",
		r.LiftAfter.Format(time.RFC3339), r.Cutoff.Format(time.RFC3339), r.LongestSession, flag)
}

// revokeJSON is --output json: the report, whether it is a plan only, and
// the sessions chained from the revoked ones.
type revokeJSON struct {
	DryRun bool `json:"dryRun"`
	revoke.Report
	Chained []cloudtrail.Chain `json:"chained,omitempty"`
}

func writeRevokeJSON(w io.Writer, r *revoke.Revocation, dryRun bool, chains []cloudtrail.Chain) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(revokeJSON{DryRun: dryRun, Report: r.Report, Chained: chains})
}
