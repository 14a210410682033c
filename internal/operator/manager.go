package operator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/source"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	leashv1 "leash.dev/leash/api/v1"
	leashv1alpha1 "leash.dev/leash/api/v1alpha1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/buildinfo"
	"leash.dev/leash/internal/iamclient"
)

// Options configure the operator in a cluster.
type Options struct {
	Config Config
	// IAM says where IAM is; its Credentials are set per root key.
	IAM iamclient.Config
	// RootSecret holds the root credentials, unless RootFile is set.
	RootSecret types.NamespacedName
	// RootFile is a shared-credentials file with the root key (leash
	// local's admin-credentials).
	RootFile string
	// Namespace, when set, limits the operator to requests in it.
	Namespace string
	// Workers is how many requests are synced at once; 0 means 8.
	Workers int
	// SweepInterval is how often users no request owns are deleted; 0 means
	// 10 minutes. SweepGrace spares users younger than it; 0 means 5 minutes.
	SweepInterval, SweepGrace time.Duration
	// Recheck is how often unchanged requests are synced again.
	Recheck time.Duration
	// RecheckFailed is how often a request whose check failed is synced
	// again (its root permissions, or a Manual key's); 0 means a minute.
	RecheckFailed time.Duration

	MetricsAddr, ProbeAddr  string
	LeaderElection          bool
	LeaderElectionNamespace string
	// ManyPerProcess lets a process run several operators (tests do);
	// controller-runtime otherwise refuses a second controller of a kind.
	ManyPerProcess bool
	// Registry receives the metrics; nil means controller-runtime's, which
	// the metrics endpoint serves.
	Registry prometheus.Registerer
	// GuardrailSources are where Config.Guardrails came from: when they
	// name a ceiling file or a ConfigMap, the operator reads them again as
	// they change and puts the new guardrails in force (guardrailwatch.go).
	GuardrailSources GuardrailSources
	// NextRequests, when set, are the next release's CredentialsRequests:
	// the operator keeps CredentialsUpgradeCheck cluster saying whether they
	// find what they need in the current credentials (upgradecheck.go).
	NextRequests NextRequestSources
	// Usage, when set, is the trail each sync reads for what the
	// request's principal used (usage.go).
	Usage *Usage
	// Webhook, when set, serves the admission webhook for pods (see
	// admission): it wires pods to the request they name and refuses the
	// ones that could fall back to the node's role.
	Webhook *admission.Options
}

// Validate names the setting that is wrong and how to fix it.
func (o *Options) Validate() error {
	if err := o.Config.Validate(); err != nil {
		return err
	}
	if o.Webhook != nil {
		if err := o.Webhook.Validate(); err != nil {
			return err
		}
	}
	if o.RecheckFailed != 0 && o.RecheckFailed < time.Second {
		return fmt.Errorf("recheck interval %v: use a duration of at least 1s, such as 30s or 1m (too short a one turns every failing request into a busy loop against IAM)", o.RecheckFailed)
	}
	return nil
}

// settings are the effective settings as log key-value pairs, for the one
// line the operator logs at start: what it will do and where, after the
// ConfigMap and the defaults, and no secret (the root credentials are named
// by where they are, never read here).
func (o Options) settings() []any {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	root := "Secret " + o.RootSecret.String()
	switch {
	case o.RootFile != "":
		root = "file " + o.RootFile
	case o.RootSecret.Name == "":
		root = "Secret kube-system/aws-creds"
	}
	recheck, failed := o.Recheck, o.RecheckFailed
	if recheck == 0 {
		recheck = 10 * time.Minute
	}
	if failed == 0 {
		failed = DefaultRecheckFailed
	}
	boundary := or(o.Config.Boundary, "none")
	if o.Config.Guardrails.HasCeiling() {
		boundary = "ceiling policy " + ceilingPath(o.Config.ClusterName) + ceilingPolicyName(o.Config.ClusterName)
	}
	build := buildinfo.Read()
	return append([]any{
		"version", build.Version,
		"commit", build.Commit,
		"mode", string(o.Config.Mode),
		"clusterName", o.Config.ClusterName,
		"iamEndpoint", or(o.IAM.Endpoint, "AWS"),
		"region", or(o.IAM.Region, "default"),
		"rootCredentials", root,
		"namespace", or(o.Namespace, "all"),
		"permissionsBoundary", boundary,
		"rotateAfter", o.Config.RotateAfter.String(),
		"rotationGrace", o.Config.RotationGrace.String(),
		"recheck", recheck.String(),
		"recheckInterval", failed.String(),
		"oidcIssuer", or(o.Config.OIDCIssuer, "none"),
		"oidcAudience", or(o.Config.Audience, DefaultAudience),
		"brokerPrincipal", or(o.Config.BrokerPrincipal, "none"),
		"webhook", webhookSetting(o.Webhook),
		"adminNamespaces", or(strings.Join(o.Config.AdminNamespaces, ","), "none"),
		"nextRequests", or(o.NextRequests.String(), "none"),
	}, o.Config.Guardrails.Settings()...)
}

// Scheme is the scheme the operator's clients use.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = leashv1.AddToScheme(s)
	_ = leashv1alpha1.AddToScheme(s)
	return s
}

// NewManager wires the reconciler, the root credentials watch and the sweep
// into a controller-runtime manager.
func NewManager(cfg *rest.Config, o Options) (manager.Manager, *Metrics, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	ctrl.Log.WithName("leash").Info("operator settings", o.settings()...)
	scheme := Scheme()
	ours := labels.SelectorFromSet(labels.Set{leashv1.LabelCredentialsRequest: "true"})
	cacheOpts := cache.Options{ByObject: map[client.Object]cache.ByObject{
		// Only the Secrets leash wrote, in the namespaces it writes them in:
		// a cluster's other Secrets are none of its business and would cost
		// memory.
		&corev1.Secret{}: {Label: ours, Namespaces: secretNamespaces(o.Config.SecretNamespaces)},
	}, DefaultTransform: trimForCache}
	if o.Namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{o.Namespace: {}}
	}
	if o.RootFile == "" && o.RootSecret.Name == "" {
		o.RootSecret = types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
	}
	o.Config.ReservedSecrets = append(o.Config.ReservedSecrets, ownSecrets(o)...)
	var webhookServer webhook.Server
	if o.Webhook != nil {
		webhookCache(&cacheOpts)
		srv, err := admission.NewServer(o.Webhook)
		if err != nil {
			return nil, nil, err
		}
		webhookServer = srv
	}
	if o.MetricsAddr == "" {
		o.MetricsAddr = "0"
	}
	if o.ProbeAddr == "" {
		o.ProbeAddr = "0"
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         cacheOpts,
		Metrics:                       metricsserver.Options{BindAddress: o.MetricsAddr},
		HealthProbeBindAddress:        o.ProbeAddr,
		LeaderElection:                o.LeaderElection,
		LeaderElectionID:              "leash-operator",
		LeaderElectionNamespace:       o.LeaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		WebhookServer:                 webhookServer,
	})
	if err != nil {
		return nil, nil, err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, nil, err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return nil, nil, err
	}
	if o.Webhook != nil {
		if err := registerWebhook(mgr, o); err != nil {
			return nil, nil, err
		}
	}
	reg := o.Registry
	if reg == nil {
		reg = metricsRegistry()
	}
	metrics := NewMetrics(reg)
	workers := o.Workers
	if workers == 0 {
		workers = 8
	}
	iamCfg := o.IAM
	iamCfg.Observe = metrics.ObserveIAMCall
	if iamCfg.HTTPClient == nil {
		iamCfg.HTTPClient = iamclient.NewHTTPClient(workers)
	}
	newIAM := func(key iamclient.AccessKey) *iamclient.Client {
		c := iamCfg
		c.Credentials = key.Provider()
		return iamclient.New(c)
	}
	var root RootSource
	var sources []source.Source
	r := &Reconciler{Client: mgr.GetClient(), Metrics: metrics, Recheck: o.Recheck, RecheckFailed: o.RecheckFailed, Usage: o.Usage}
	if o.Usage != nil && o.Usage.Now == nil {
		o.Usage.Now = time.Now
	}
	if o.RootFile != "" {
		root = FileRoot{Path: o.RootFile}
	} else {
		// The root Secret has its own cache, holding that one Secret: the
		// operator lists and watches it by name, which a Role limited to
		// that name allows.
		rootCache, err := cache.New(cfg, cache.Options{Scheme: scheme, Mapper: mgr.GetRESTMapper(),
			DefaultNamespaces: map[string]cache.Config{o.RootSecret.Namespace: {}},
			ByObject: map[client.Object]cache.ByObject{&corev1.Secret{}: {
				Field: fields.OneTermEqualSelector("metadata.name", o.RootSecret.Name)}}})
		if err != nil {
			return nil, nil, err
		}
		if err := mgr.Add(rootCache); err != nil {
			return nil, nil, err
		}
		root = SecretRoot{Reader: rootCache, Namespace: o.RootSecret.Namespace, Name: o.RootSecret.Name}
		sources = append(sources, source.Kind[client.Object](rootCache, &corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.PassthroughRequests)))
	}
	others, err := r.othersSecrets(mgr, cfg, o.Config.SecretNamespaces)
	if err != nil {
		return nil, nil, err
	}
	sources = append(sources, others)
	prov, err := NewProvisioner(o.Config, root, newIAM,
		KubeCluster{Client: mgr.GetClient(), Reader: mgr.GetAPIReader()}, mgr.GetEventRecorderFor("leash"))
	if err != nil {
		return nil, nil, err
	}
	r.Provisioner = prov
	watch, err := guardrailWatchFor(mgr, cfg, prov, o)
	if err != nil {
		return nil, nil, err
	}
	wake := make(chan event.GenericEvent)
	watch.wake = wake
	sources = append(sources, source.Channel(wake, &handler.EnqueueRequestForObject{}))
	if err := mgr.Add(watch); err != nil {
		return nil, nil, err
	}
	upgrades, err := upgradeCheckFor(mgr, cfg, prov, o, reg)
	if err != nil {
		return nil, nil, err
	}
	if upgrades != nil {
		if err := mgr.Add(upgrades); err != nil {
			return nil, nil, err
		}
	}
	if err := r.SetupWithManager(mgr, controller.Options{MaxConcurrentReconciles: workers, SkipNameValidation: &o.ManyPerProcess}, sources...); err != nil {
		return nil, nil, err
	}
	if err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		runSweeps(ctx, prov, mgr.GetClient(), o)
		return nil
	})); err != nil {
		return nil, nil, err
	}
	return mgr, metrics, nil
}

// ownSecrets are the Secrets the operator itself uses, as NAMESPACE/NAME:
// its root credentials and its webhook certificate, which no request may
// name.
func ownSecrets(o Options) []string {
	var own []string
	if o.RootFile == "" {
		own = append(own, o.RootSecret.String())
	}
	if o.Webhook != nil && o.Webhook.Rotate != nil {
		own = append(own, o.Webhook.Rotate.Namespace+"/"+o.Webhook.Rotate.Secret)
	}
	return own
}

// secretNamespaces are the namespaces a Secret cache holds: every one
// (cache.AllNamespaces, which needs a ClusterRole) unless the operator's
// Secret rights are Roles in listed namespaces.
func secretNamespaces(listed []string) map[string]cache.Config {
	if len(listed) == 0 {
		return map[string]cache.Config{cache.AllNamespaces: {}}
	}
	out := make(map[string]cache.Config, len(listed))
	for _, ns := range listed {
		out[ns] = cache.Config{}
	}
	return out
}

// runSweeps sweeps at every interval until ctx ends; a failed sweep is
// logged and tried again at the next one.
func runSweeps(ctx context.Context, prov *Provisioner, c client.Client, o Options) {
	interval, grace := o.SweepInterval, o.SweepGrace
	if interval == 0 {
		interval = 10 * time.Minute
	}
	if grace == 0 {
		grace = 5 * time.Minute
	}
	logger := log.FromContext(ctx).WithName("sweep")
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var list leashv1.CredentialsRequestList
		if err := c.List(ctx, &list); err != nil {
			logger.Error(err, "listing CredentialsRequests")
			continue
		}
		live := map[string]bool{}
		for _, cr := range list.Items {
			live[string(cr.UID)] = true
		}
		deleted, err := prov.Sweep(ctx, live, grace, o.Namespace)
		if err != nil {
			logger.Error(err, "sweeping IAM users no request owns")
		}
		for _, name := range deleted {
			logger.Info("deleted what no request owns", "iam", name)
		}
	}
}

// ParseNamespacedName reads "namespace/name".
func ParseNamespacedName(field, s string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("%s %q: give namespace/name, such as kube-system/aws-creds", field, s)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}
