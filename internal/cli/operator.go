package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/inputerr"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws/audit"
)

func newOperator() *cobra.Command {
	var (
		o                                       operator.Options
		kubeconfig, mode, rootSecret, configMap string
		adminNamespaces                         string
		nextDir, nextConfigMap                  string
		usageData, usageTrailDir                string
		usageWindow                             time.Duration
		guard                                   guardrailFlags
		accounts                                accountCheckFlags
		webhook                                 webhookFlags
	)
	const short = "Run the credential operator in a Kubernetes cluster"
	cmd := &cobra.Command{
		Use:   "operator",
		Short: short,
		Long: long(short, `operator watches CredentialsRequests (cloudcredential.openshift.io/v1) and keeps
the Secret each names in step with it, in the cluster's mode:

  Mint         an IAM user per request with exactly the requested policy; a new
               key is proven with sts:GetCallerIdentity before the Secret names
               it, and rotated after --rotate-after with a grace period
  Passthrough  the root credentials, copied only after leash's engine has shown
               they allow every requested action on the requested resources
  Manual       the administrator writes the Secret; leash reports what it lacks
               (with spec.providerSpec.stsIAMRoleARN: a web-identity file)
  STS          a role per request, trusted by the request's serviceAccountNames
               through the --oidc-issuer's IAM OIDC provider, with exactly the
               requested policy; a token of the service account is exchanged
               for a session before the Secret (a web-identity file) names it
  Broker       a role per request that only leash's credential broker
               (--broker-principal) may assume, and only for sessions tagged
               with the request's namespace; pods of its serviceAccountNames
               get short-lived sessions from the broker and no Secret is
               written. The operator is not the broker, so leash's engine,
               not a session, proves the role's trust and policy

A request's leash.dev/mode annotation overrides the mode for that request.
The root credentials come from a Secret (--root-credentials-secret) or, for
leash local, its admin credentials file. Settings in --config-map (keys mode,
clusterName, rotateAfter, recheckInterval, oidcIssuer, oidcAudience,
brokerPrincipal, ceiling, namespaceActions, refuseEscalation,
escalationNamespaces, adminNamespaces, secretNamespaces, accountCheckRoles,
uncheckedAccounts) override the flags; the
operator reads it at start, and reads its guardrail keys and the --ceiling file
again whenever they change: every minted user is bounded by a changed ceiling
before anything else is minted.

A request may name a Secret in its own namespace only, unless it is in one of
the --admin-namespaces; only those may be Passthrough (it hands out the root
key). leash writes and deletes only Secrets it created for a request, or that
their owner handed over (annotation leash.dev/hand-over-to=NAMESPACE/NAME),
and never its own root credentials or webhook certificate Secret.

A role (stsIAMRoleARN) or Manual key of another account than the root
credentials' is checked in its own account, through the role given for that
account with --account-check-role ACCOUNT=ROLE_ARN, which leash assumes with
the root credentials. Without one, the role is reported as unchecked (its
Secret written) or refused, as --unchecked-accounts says.

Guardrails refuse a request before any IAM call: above the --ceiling policy
(which also becomes every minted user's permissions boundary), outside its
namespace's namespaceActions, or with privilege-escalation findings at or
above --refuse-escalation (default critical) outside --escalation-namespaces.

Deleting a request deletes its user, keys and policies, then its Secret.
Users this cluster's leash minted for requests that no longer exist are swept.

With --webhook-port, the operator also serves the admission webhook for pods
(deploy/base/webhook.yaml, docs/admission.md): a pod naming a request with
leash.dev/credentials is wired to its Secret, and a pod that receives a leash
credential is refused when leash check workload finds it at or above
--webhook-refuse-at.

With --next-requests (a folder, such as a mounted ConfigMap) or
--next-requests-configmap (a ConfigMap whose data values are manifests), the
operator also keeps CredentialsUpgradeCheck cluster (leash.dev/v1alpha1)
answering what leash check upgrade answers: do the next release's requests
find what they grant in the principals the current ones hold? Its Upgradeable
condition is True, False (status.requests lists the missing permissions) or
Unknown, checked again as requests change and every recheck, and
leash_upgradeable and leash_upgrade_missing_permissions report it.

With --usage-data (leash local's data folder) or --usage-trail-dir (CloudTrail
log files, such as a synced copy of the trail's bucket), every sync also reads
what the request's principal used of what the request allows over
--usage-window: status.usage lists the actions used and unused and the last
use, the UnusedPermissions condition sums it up (it never affects Ready), and
leash_credentials_request_actions{state="used"|"unused"} and
leash_credentials_request_last_used_timestamp_seconds report it.`),
		Example: example(
			"# In a cluster (see deploy/): the Deployment runs",
			"leash operator --leader-elect --leader-election-namespace leash-system \\",
			"  --config-map leash-system/leash-config --root-credentials-secret kube-system/aws-creds",
			"",
			"# Against leash local, from a workstation",
			"leash operator --kubeconfig ~/.kube/config --iam-endpoint http://127.0.0.1:4566 \\",
			"  --root-credentials-file ./leash-data/admin-credentials --cluster-name dev",
		),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Config.Mode = leashv1.CredentialsMode(mode)
			if err := accounts.apply(&o.Config.AccountChecks); err != nil {
				return err
			}
			if err := webhook.apply(&o); err != nil {
				return err
			}
			if rootSecret != "" {
				nn, err := operator.ParseNamespacedName("--root-credentials-secret", rootSecret)
				if err != nil {
					return &inputerr.Error{Msg: err.Error()}
				}
				o.RootSecret = nn
			}
			cfg, err := restConfig(kubeconfig)
			if err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			o.Config.AdminNamespaces = defaultAdminNamespaces(adminNamespaces, o.LeaderElectionNamespace)
			var cmRef types.NamespacedName
			var cmData map[string]string
			if configMap != "" {
				if cmRef, cmData, err = applyConfigMap(cmd.Context(), cfg, configMap, cmd, &o); err != nil {
					return err
				}
			}
			o.GuardrailSources = guard.sources(o.Config.Guardrails, cmRef)
			if o.Config.Guardrails, err = o.GuardrailSources.Load(cmData); err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			if o.Usage, err = usageTrail(usageData, usageTrailDir, usageWindow); err != nil {
				return err
			}
			if o.NextRequests, err = nextRequestSources(nextDir, nextConfigMap); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return &inputerr.Error{Msg: err.Error()}
			}
			logger := slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), nil))
			ctrl.SetLogger(logr.FromSlogHandler(logger.Handler()))
			mgr, _, err := operator.NewManager(cfg, o)
			if err != nil {
				return err
			}
			return mgr.Start(cmd.Context())
		},
	}
	f := cmd.Flags()
	f.StringVar(&kubeconfig, "kubeconfig", "", "`FILE` to reach the API server (default: in-cluster, then $KUBECONFIG, then ~/.kube/config)")
	f.StringVar(&mode, "mode", string(leashv1.ModeMint), "cluster credentials `MODE`: Mint, Passthrough, Manual, STS or Broker")
	f.StringVar(&o.Config.OIDCIssuer, "oidc-issuer", "", "the cluster's service-account issuer `URL` (kube-apiserver --service-account-issuer): the roles STS mode makes trust its IAM OIDC provider")
	f.StringVar(&o.Config.BrokerPrincipal, "broker-principal", "", "`ARN` of the IAM user or role leash's credential broker runs as: the only principal the roles Broker mode makes trust")
	f.StringVar(&o.Config.Audience, "oidc-audience", operator.DefaultAudience, "token `AUDIENCE` the roles STS mode makes trust, and their proof asks for")
	f.StringVar(&o.Config.ClusterName, "cluster-name", "leash", "`NAME` that prefixes minted users and is part of their path and tags")
	f.StringVar(&rootSecret, "root-credentials-secret", "kube-system/aws-creds", "`NAMESPACE/NAME` of the Secret with the root aws_access_key_id and aws_secret_access_key")
	f.StringVar(&o.RootFile, "root-credentials-file", "", "shared-credentials `FILE` with the root key, instead of the Secret (leash local's admin-credentials)")
	f.StringVar(&configMap, "config-map", "", "`NAMESPACE/NAME` of a ConfigMap whose mode, clusterName, rotateAfter, recheckInterval, oidcIssuer, oidcAudience, brokerPrincipal, ceiling, namespaceActions, refuseEscalation, escalationNamespaces, adminNamespaces, secretNamespaces, accountCheckRoles and uncheckedAccounts override the flags (the four guardrail keys, and the --ceiling file, are read again when they change)")
	f.StringVar(&o.IAM.Endpoint, "iam-endpoint", "", "`URL` of leash local; empty means AWS")
	f.StringVar(&o.IAM.Region, "region", "us-east-1", "AWS `REGION` to sign STS calls for")
	f.DurationVar(&o.Config.RotateAfter, "rotate-after", 0, "default maximum `AGE` of a minted key (e.g. 720h; 0 never rotates); a request's leash.dev/rotate-after overrides it")
	f.DurationVar(&o.Config.RotationGrace, "rotation-grace", 10*time.Minute, "how long a rotated-out key keeps working after its successor is published")
	f.StringVar(&o.Config.Boundary, "permissions-boundary", "", "`ARN` of a managed policy set as every minted user's permissions boundary (not with --ceiling, which makes the ceiling the boundary)")
	guard.register(f, &o.Config.Guardrails)
	accounts.register(f, &o.Config.AccountChecks)
	webhook.register(f)
	f.StringVar(&adminNamespaces, "admin-namespaces", "", "comma-separated `NAMESPACES` whose requests may name a Secret in another namespace and may be Passthrough (default: the operator's own namespace and openshift-cloud-credential-operator); a request elsewhere may target only its own namespace")
	f.StringVar(&o.Namespace, "namespace", "", "watch only requests in `NAMESPACE` (default: all)")
	f.StringSliceVar(&o.Config.SecretNamespaces, "secret-namespaces", nil, "write and watch Secrets only in these `NAMESPACES` (comma-separated), where Roles grant the operator Secret rights; a request naming a Secret elsewhere is refused (default: every namespace, with a ClusterRole)")
	f.IntVar(&o.Workers, "workers", 8, "requests reconciled at once")
	f.DurationVar(&o.RecheckFailed, "recheck-interval", operator.DefaultRecheckFailed, "how often a failing request is checked again for what no watch shows, such as a permission granted in IAM (at least 1s)")
	f.DurationVar(&o.SweepInterval, "sweep-interval", 10*time.Minute, "how often users minted for deleted requests are looked for")
	f.DurationVar(&o.SweepGrace, "sweep-grace", 5*time.Minute, "users younger than this are never swept")
	f.StringVar(&usageData, "usage-data", "", "read what each request's principal used from leash local's audit log in its data folder `DIR` (e.g. --usage-data /var/lib/leash-local)")
	f.StringVar(&usageTrailDir, "usage-trail-dir", "", "read what each request's principal used from the CloudTrail log files under `DIR` (e.g. --usage-trail-dir /var/cloudtrail/AWSLogs)")
	f.DurationVar(&usageWindow, "usage-window", operator.DefaultUsageWindow, "how far back calls count as use: an action not called within this `DURATION` is unused (e.g. --usage-window 720h)")
	f.StringVar(&nextDir, "next-requests", "", "folder `DIR` of the next release's CredentialsRequest manifests (e.g. a mounted ConfigMap): keep CredentialsUpgradeCheck cluster saying whether they find their permissions in the current credentials")
	f.StringVar(&nextConfigMap, "next-requests-configmap", "", "`NAMESPACE/NAME` of a ConfigMap whose data values are the next release's CredentialsRequest manifests, read as it changes (as --next-requests, beside or instead of it)")
	f.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", "`ADDRESS` of the Prometheus metrics endpoint (0 turns it off)")
	f.StringVar(&o.ProbeAddr, "health-probe-bind-address", ":8081", "`ADDRESS` of /healthz and /readyz (0 turns them off)")
	f.BoolVar(&o.LeaderElection, "leader-elect", false, "run as one of several replicas, only the leader reconciling")
	f.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", "", "`NAMESPACE` of the leader election Lease (default: the pod's)")
	return cmd
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
		}
		// As ctrl.GetConfig does for the other sources: no client-side rate
		// limit, the API server's priority and fairness is the limit.
		// client-go's default (5 requests/s and a burst of 10, per resource
		// type) held 1,000 new requests to 2.5 Ready per second
		// (bench/operator).
		if cfg.QPS == 0 {
			cfg.QPS = -1
		}
		return cfg, nil
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no cluster to talk to (%v); give --kubeconfig FILE", err)
	}
	return cfg, nil
}

// applyConfigMap reads the operator's settings from a ConfigMap, and
// returns its reference and data for the guardrails (GuardrailSources.Load,
// read again whenever it changes); a missing ConfigMap leaves the flags as
// they are.
func applyConfigMap(ctx context.Context, cfg *rest.Config, ref string, cmd *cobra.Command, o *operator.Options) (types.NamespacedName, map[string]string, error) {
	nn, err := operator.ParseNamespacedName("--config-map", ref)
	if err != nil {
		return nn, nil, &inputerr.Error{Msg: err.Error()}
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return nn, nil, err
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, nn, cm); err != nil {
		if apierrors.IsNotFound(err) {
			fmt.Fprintf(cmd.ErrOrStderr(), "ConfigMap %s not found; using the flags\n", ref)
			return nn, nil, nil
		}
		return nn, nil, fmt.Errorf("read ConfigMap %s: %w", ref, err)
	}
	if v := cm.Data["mode"]; v != "" {
		o.Config.Mode = leashv1.CredentialsMode(v)
	}
	if v := cm.Data["clusterName"]; v != "" {
		o.Config.ClusterName = v
	}
	if v := cm.Data["recheckInterval"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nn, nil, &inputerr.Error{Msg: fmt.Sprintf("ConfigMap %s: recheckInterval %q is not a duration; use one such as 1m", ref, v)}
		}
		o.RecheckFailed = d
	}
	if v := cm.Data["oidcIssuer"]; v != "" {
		o.Config.OIDCIssuer = v
	}
	if v := cm.Data["oidcAudience"]; v != "" {
		o.Config.Audience = v
	}
	if v := cm.Data["brokerPrincipal"]; v != "" {
		o.Config.BrokerPrincipal = v
	}
	if v := cm.Data["rotateAfter"]; v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nn, nil, &inputerr.Error{Msg: fmt.Sprintf("ConfigMap %s: rotateAfter %q is not a duration; use 720h or 0", ref, v)}
		}
		o.Config.RotateAfter = d
	}
	if v := cm.Data["adminNamespaces"]; v != "" {
		o.Config.AdminNamespaces = operator.SplitList(v)
	}
	if v := cm.Data["secretNamespaces"]; v != "" {
		o.Config.SecretNamespaces = operator.SplitList(v)
	}
	if err := accountChecksFromConfigMap(ref, cm.Data, &o.Config.AccountChecks); err != nil {
		return nn, nil, err
	}
	return nn, cm.Data, nil
}

// defaultAdminNamespaces is --admin-namespaces, else the operator's own
// namespace (when known) and the namespace OpenShift keeps its operators'
// requests in.
func defaultAdminNamespaces(flag, leaderNamespace string) []string {
	if flag != "" {
		return operator.SplitList(flag)
	}
	out := slices.Clone(operator.DefaultAdminNamespaces)
	if ns, err := operatorNamespace(leaderNamespace, serviceAccountNamespaceFile); err == nil {
		out = append([]string{ns}, out...)
	}
	return out
}

// usageTrail is the trail the operator reads for use, if a flag names one.
func usageTrail(data, trailDir string, window time.Duration) (*operator.Usage, error) {
	switch {
	case data != "" && trailDir != "":
		return nil, &inputerr.Error{Msg: "--usage-data and --usage-trail-dir both name a trail: give the one the requests' principals' calls go to"}
	case window <= 0:
		return nil, &inputerr.Error{Source: "--usage-window", Msg: fmt.Sprintf("%v: give a positive duration, such as 2160h (90 days)", window)}
	case data != "":
		if _, err := os.Stat(filepath.Join(data, audit.FileName)); err != nil {
			return nil, &inputerr.Error{Source: "--usage-data " + data, Msg: fmt.Sprintf("no audit log there (%v); is it the folder given to leash local --data?", err)}
		}
		return &operator.Usage{Source: cloudtrail.LocalLog{Dir: data}, Window: window}, nil
	case trailDir != "":
		if info, err := os.Stat(trailDir); err != nil || !info.IsDir() {
			return nil, &inputerr.Error{Source: "--usage-trail-dir " + trailDir, Msg: "not a folder: give the folder holding the CloudTrail log files"}
		}
		return &operator.Usage{Source: cloudtrail.Folder{Root: trailDir}, Window: window}, nil
	}
	return nil, nil
}
