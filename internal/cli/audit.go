package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/termsafe"
	"leash.dev/leash/localaws/audit"
)

// auditOptions are leash audit's flags: one source, and the selection.
type auditOptions struct {
	data, trailDir, endpoint, credentialsFile, region string
	fromAWS                                           bool
	profile                                           string
	principal, since, until, issuedBefore, output     string
	pod, broker                                       string
	denied, policy                                    bool
	request                                           requestAudit
	getenv                                            func(string) string
}

func newAudit() *cobra.Command {
	o := auditOptions{getenv: os.Getenv}
	const short = "Investigate what a principal and its sessions did, from leash local's log or CloudTrail"
	cmd := &cobra.Command{
		Use:   "audit",
		Short: short,
		Long: long(short, `audit lists the calls recorded in a trail, one per line with its time, the
caller, when the caller's session was issued, the action, the resource, the
source IP, the user agent, the error code and leash local's decision; or, with
--output json, the CloudTrail records themselves as JSON lines.

The trail is one of:
  --data DIR        leash local's audit log (DIR/`+audit.FileName+`)
  --trail-dir DIR   CloudTrail log files: every .json and .json.gz under DIR,
                    such as a copy of the trail's S3 bucket (AWSLogs/…)
  --endpoint URL    the CloudTrail LookupEvents API of leash local at URL
  --aws             AWS's own CloudTrail LookupEvents API (the last 90 days
                    of management events of --region)
LookupEvents is called with the credentials of --profile, of
--credentials-file, or of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as leash
check --user and leash revoke take them.
Lines or files that cannot be read are reported on stderr and skipped.

--principal selects a principal and every session derived from it: a role's
ARN selects the calls of its assumed-role sessions; a user's ARN its own calls,
those of its GetSessionToken sessions and of the federated users it issued; an
assumed-role session's ARN that one session. After a revoke, --issued-before
keeps only calls made with sessions issued before the revoke: what the
sessions it ended did. Secrets are never recorded.

--pod NAMESPACE/NAME selects instead the calls of a pod's leash broker
sessions: the successful AssumeRole calls (no error code) whose requested
session tags (requestParameters.tags) have kubernetes-namespace NAMESPACE and
kubernetes-pod-name NAME, and every call made with the access keys they
returned (responseElements.credentials.accessKeyId); the AssumeRole calls are
listed too (--policy leaves them out: the broker made them). Sessions issued
up to 12 hours before --since count. Each session is named on stderr with its
pod UID, so that pods of one name over time are told apart. Without --broker,
a session that any principal allowed sts:TagSession tagged so is included;
--broker ARN keeps only the AssumeRole calls made by the broker's principal
(a role's ARN selects its sessions).

--policy prints instead the identity policy that allows exactly the selected
calls that passed authorization (each IAM action on the resources it named),
and on stderr the calls it leaves out (refused ones are never granted) and
the grants wider than observed (an action on "*" where the event does not
tell its resources), to narrow by hand.`),
		Example: example(
			"# Everything alice did in the last hour, in leash local",
			"leash audit --data ./leash-data --principal arn:aws:iam::111122223333:user/alice --since 1h",
			"",
			"# What the CI role's sessions issued before the revoke did, from CloudTrail files",
			"leash audit --trail-dir ./trail --principal arn:aws:iam::111122223333:role/ci/ci-deploy \\",
			"  --issued-before 2026-11-29T13:00:00Z",
			"",
			"# Denied calls since a time, through leash local's LookupEvents, as JSON lines",
			"leash audit --endpoint http://127.0.0.1:4566 --credentials-file leash-data/admin-credentials \\",
			"  --since 2026-11-29T12:00:00Z --denied --output json",
			"",
			"# What the pod web-0 of namespace shop did with the sessions leash broker issued it",
			"leash audit --trail-dir ./trail --pod shop/web-0 --broker arn:aws:iam::111122223333:role/leash-broker --since 24h",
			"",
			"# The least-privilege policy of what the CI role used, and what its current policy grants beyond it",
			"leash audit --trail-dir ./trail --principal arn:aws:iam::111122223333:role/ci/ci-deploy --policy > used.json",
			"leash diff --principal arn:aws:iam::111122223333:role/ci/ci-deploy used.json current.json",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.request.ref != "" {
				if err := checkRequestFlags(o); err != nil {
					return err
				}
			} else if o.request.dir != "" || o.request.kubeconfig != "" || o.request.propose {
				return &inputerr.Error{Msg: "-f, --kubeconfig and --propose are for --request: add --request NAMESPACE/NAME"}
			}
			if o.policy {
				if err := checkPolicyFlags(o, cmd.Flags().Changed("output")); err != nil {
					return err
				}
			}
			return runAudit(cmd.Context(), o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.data, "data", "", "read leash local's audit log in its data folder `DIR` (e.g. --data ./leash-data)")
	fl.StringVar(&o.trailDir, "trail-dir", "", "read the CloudTrail log files (.json, .json.gz) under `DIR` (e.g. --trail-dir ./AWSLogs)")
	fl.StringVar(&o.endpoint, "endpoint", "", "read CloudTrail LookupEvents of leash local at `URL` (e.g. --endpoint http://127.0.0.1:4566)")
	fl.BoolVar(&o.fromAWS, "aws", false, "read AWS's CloudTrail LookupEvents (e.g. --aws --region eu-west-1)")
	fl.StringVar(&o.credentialsFile, "credentials-file", "", "shared-credentials `FILE` whose [default] key (or --profile's) calls LookupEvents, instead of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (e.g. --credentials-file leash-data/admin-credentials)")
	fl.StringVar(&o.profile, "profile", "", "named `PROFILE` of the shared credentials and config files whose credentials call LookupEvents; default $AWS_PROFILE when no key is in the environment (e.g. --profile incident)")
	fl.StringVar(&o.region, "region", "", "`REGION` whose events LookupEvents reads; default AWS_REGION, else us-east-1 (e.g. --region eu-west-1)")
	fl.StringVar(&o.principal, "principal", "", "only calls by the principal `ARN` and the sessions derived from it (e.g. --principal arn:aws:iam::111122223333:role/ci-deploy)")
	fl.StringVar(&o.pod, "pod", "", "only calls by the sessions that successful AssumeRole calls tagged kubernetes-namespace and kubernetes-pod-name of the pod `NAMESPACE/NAME`, as leash broker tags them, and those AssumeRole calls (e.g. --pod shop/web-0)")
	fl.StringVar(&o.broker, "broker", "", "with --pod, only sessions whose AssumeRole the broker's principal `ARN` made (a role's ARN selects its sessions); without it, a session anyone tagged as the pod counts (e.g. --broker arn:aws:iam::111122223333:role/leash-broker)")
	fl.StringVar(&o.since, "since", "", "only calls at or after `TIME`: RFC 3339, or a duration before now (e.g. --since 1h)")
	fl.StringVar(&o.until, "until", "", "only calls before `TIME`, like --since (e.g. --until 2026-11-29T13:00:00Z)")
	fl.StringVar(&o.issuedBefore, "issued-before", "", "only calls made with sessions issued before `TIME`, like --since (e.g. --issued-before 2026-11-29T13:00:00Z)")
	fl.BoolVar(&o.denied, "denied", false, "only refused calls (e.g. --denied)")
	fl.BoolVar(&o.policy, "policy", false, "print the least-privilege policy of the selected calls instead of the calls, and on stderr what it leaves out (e.g. --principal ARN --policy > used.json)")
	fl.StringVar(&o.output, "output", "table", "output `FORMAT`: table, or json for JSON lines of the records, or with --request the report as JSON (e.g. --output json)")
	fl.StringVar(&o.request.ref, "request", "", "report what the principal of the CredentialsRequest `NAMESPACE/NAME` used of what the request allows: per action its calls and last use, and what it never used (e.g. --request kube-system/ccm)")
	fl.StringVarP(&o.request.dir, "filename", "f", "", "with --request: the folder `DIR` of manifests leash apply provisioned, to find the request in instead of a cluster (e.g. -f examples/)")
	fl.StringVar(&o.request.kubeconfig, "kubeconfig", "", "with --request: `FILE` to reach the API server (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
	fl.StringVar(&o.request.clusterName, "cluster-name", "leash", "with -f: the `NAME` leash apply minted users under (its --cluster-name)")
	fl.StringVar(&o.request.mode, "mode", "Mint", "with -f: the `MODE` leash apply used for requests without a leash.dev/mode annotation (its --mode)")
	fl.StringVar(&o.request.account, "account", "", "with -f: the `ID` of the account leash apply provisioned in, when the trail holds several accounts' principals of the request's name (e.g. --account 111122223333)")
	fl.BoolVar(&o.request.propose, "propose", false, "with --request: print the request narrowed to what was used, as a manifest, proven with leash's engine to allow every observed call and refuse every unused action")
	fl.BoolVar(&o.request.keepResources, "keep-resources", false, "with --propose: narrow the actions only, keeping each statement's resource as written (for controllers that make resources of new names)")
	fl.StringVar(&o.request.proof, "proof", "", "with --propose: write the engine's questions to `FILE` as leash simulate requests against the proposal, observed calls first, then unused actions (e.g. --proof proof.jsonl)")
	return cmd
}

func runAudit(ctx context.Context, o auditOptions, stdout, stderr io.Writer) error {
	f, err := auditFilter(o, time.Now())
	if err != nil {
		return err
	}
	src, err := auditSource(ctx, o, func(what string, err error) {
		// A file's name and a line's content are the trail writer's words.
		fmt.Fprintf(stderr, "leash audit: %s\n", termsafe.Escape(fmt.Sprintf("skipped %s: %v", what, err)))
	})
	if err != nil {
		return err
	}
	if o.pod != "" {
		if src, err = podTrail(ctx, o, f, src, stderr); err != nil {
			return err
		}
	}
	if o.request.ref != "" {
		return runRequestAudit(ctx, o, f, src, stdout, stderr)
	}
	if o.policy {
		return writeObservedPolicy(ctx, src, f, stdout, stderr)
	}
	p, err := cloudtrail.NewPrinter(stdout, o.output)
	if err != nil {
		return &inputerr.Error{Msg: err.Error()}
	}
	if err := cloudtrail.Collect(ctx, src, f, p.Print); err != nil {
		return err
	}
	return p.Flush()
}

// auditFilter is the selection the flags ask for.
func auditFilter(o auditOptions, now time.Time) (audit.Filter, error) {
	f := audit.Filter{Principal: o.principal, Denied: o.denied}
	if err := checkPrincipalARN("--principal", o.principal); err != nil {
		return f, err
	}
	if err := checkPodFlags(o); err != nil {
		return f, err
	}
	for _, t := range []struct {
		flag, value string
		into        *time.Time
	}{{"--since", o.since, &f.Since}, {"--until", o.until, &f.Until}, {"--issued-before", o.issuedBefore, &f.IssuedBefore}} {
		if t.value == "" {
			continue
		}
		v, err := audit.ParseTime(t.value, now)
		if err != nil {
			return f, &inputerr.Error{Source: t.flag, Msg: err.Error()}
		}
		*t.into = v
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return f, &inputerr.Error{Msg: fmt.Sprintf("--since %s is not before --until %s: give a window that starts before it ends", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))}
	}
	return f, nil
}

// checkPrincipalARN refuses a value of flag that is not an IAM or STS ARN.
func checkPrincipalARN(flag, arn string) error {
	if arn == "" {
		return nil
	}
	if parts := strings.SplitN(arn, ":", 6); len(parts) != 6 || parts[0] != "arn" || (parts[2] != "iam" && parts[2] != "sts") || parts[4] == "" {
		return &inputerr.Error{Source: flag, Msg: fmt.Sprintf("%q is not the ARN of a user, role or session: give one such as arn:aws:iam::111122223333:role/ci-deploy or arn:aws:sts::111122223333:assumed-role/ci-deploy/run-1", arn)}
	}
	return nil
}

// auditSource is the one trail the flags name.
func auditSource(ctx context.Context, o auditOptions, skip cloudtrail.Skip) (cloudtrail.Source, error) {
	var given []string
	for _, s := range []struct {
		flag string
		set  bool
	}{{"--data", o.data != ""}, {"--trail-dir", o.trailDir != ""}, {"--endpoint", o.endpoint != ""}, {"--aws", o.fromAWS}} {
		if s.set {
			given = append(given, s.flag)
		}
	}
	if len(given) != 1 {
		msg := "give one trail to read: --data DIR (leash local's audit log), --trail-dir DIR (CloudTrail log files), --endpoint URL (leash local's LookupEvents) or --aws (AWS's LookupEvents)"
		if len(given) > 1 {
			msg = strings.Join(given, " and ") + " both name a trail; " + msg
		}
		return nil, &inputerr.Error{Msg: msg}
	}
	lookup := o.endpoint != "" || o.fromAWS
	if !lookup && (o.credentialsFile != "" || o.profile != "" || o.region != "") {
		return nil, &inputerr.Error{Msg: "--credentials-file, --profile and --region are for LookupEvents: use them with --endpoint or --aws"}
	}
	switch {
	case o.data != "":
		if _, err := os.Stat(o.data + "/" + audit.FileName); err != nil {
			return nil, &inputerr.Error{Source: "--data " + o.data, Msg: fmt.Sprintf("no audit log there (%v); is it the folder given to leash local --data?", err)}
		}
		return cloudtrail.LocalLog{Dir: o.data, Skip: skip}, nil
	case o.trailDir != "":
		if info, err := os.Stat(o.trailDir); err != nil || !info.IsDir() {
			return nil, &inputerr.Error{Source: "--trail-dir " + o.trailDir, Msg: "not a folder: give the folder holding the CloudTrail log files (such as a copy of the trail's S3 bucket)"}
		}
		return cloudtrail.Folder{Root: o.trailDir, Skip: skip}, nil
	}
	// The key is picked as leash check and leash revoke pick theirs.
	access := iamAccess{endpoint: o.endpoint, credentialsFile: o.credentialsFile, profile: o.profile, getenv: o.getenv}
	creds, err := access.credentials(ctx)
	if err != nil {
		return nil, err
	}
	region := o.region
	for _, env := range []string{"AWS_REGION", "AWS_DEFAULT_REGION"} {
		if region == "" {
			region = o.getenv(env)
		}
	}
	l := cloudtrail.NewLookup(cloudtrail.LookupConfig{Endpoint: o.endpoint, Region: region, Credentials: creds})
	l.Skip = skip
	return l, nil
}
