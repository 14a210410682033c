package operator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	leashv1 "leash.dev/leash/api/v1"
	leashv1alpha1 "leash.dev/leash/api/v1alpha1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/upgrade"
)

// upgradeSettle is how long the check waits after a change before it runs:
// one sync writes a request's status more than once, and an upgrade
// changes many requests at a time; one check answers the burst.
const upgradeSettle = time.Second

// upgradeCheck keeps the CredentialsUpgradeCheck named cluster in step with
// the question leash check upgrade asks from the command line: do the next
// release's requests find, in the principals the current requests hold,
// everything they grant? It asks again when a request's principal or
// provisioned generation changes, when the ConfigMap of next requests
// changes, and every period (a policy changed in IAM, a folder remounted),
// and writes the status only when an answer changed. It never holds up
// anything else: a failure is the condition's Unknown and a log line.
type upgradeCheck struct {
	prov    *Provisioner
	sources NextRequestSources
	// configMap reads the ConfigMap of next requests; nil when none.
	configMap cache.Cache
	// requests reads the current requests (the manager's cache); informers
	// tells of their changes.
	requests  client.Reader
	informers cache.Informers
	// namespace is the operator's --namespace: requests elsewhere are
	// neither cached nor provisioned by it.
	namespace string
	// api writes the object; fresh reads it from the API server.
	api     client.Client
	fresh   client.Reader
	metrics *upgradeMetrics
	period  time.Duration
	settle  time.Duration
	now     func() time.Time

	poke chan struct{}
	// logged is the last failure logged, so that it is logged once.
	logged string
}

// Start runs until ctx ends: a manager.Runnable that needs the leader, the
// one replica that writes.
func (u *upgradeCheck) Start(ctx context.Context) error {
	logger := log.FromContext(ctx).WithName("upgrade-check")
	if err := u.watch(ctx); err != nil {
		logger.Error(err, "watching CredentialsRequests and the next requests' ConfigMap failed; the Upgradeable check runs on its period only", "period", u.period)
	}
	t := time.NewTicker(u.period)
	defer t.Stop()
	for {
		u.run(ctx, logger)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-u.poke:
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(u.settle):
		}
		select { // the changes of the settle are answered by this run
		case <-u.poke:
		default:
		}
	}
}

// watch pokes the check on a change of what it reads.
func (u *upgradeCheck) watch(ctx context.Context) error {
	poke := func() {
		select {
		case u.poke <- struct{}{}:
		default: // a run is already due
		}
	}
	inf, err := u.informers.GetInformer(ctx, &leashv1.CredentialsRequest{})
	if err != nil {
		return err
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { poke() },
		DeleteFunc: func(any) { poke() },
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*leashv1.CredentialsRequest)
			n, ok2 := newObj.(*leashv1.CredentialsRequest)
			if !ok1 || !ok2 || o.Status.Principal != n.Status.Principal || o.Status.Mode != n.Status.Mode ||
				o.Status.LastSyncGeneration != n.Status.LastSyncGeneration {
				poke()
			}
		},
	}); err != nil {
		return err
	}
	if u.configMap == nil {
		return nil
	}
	cmInf, err := u.configMap.GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		return err
	}
	_, err = cmInf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { poke() }, UpdateFunc: func(any, any) { poke() }, DeleteFunc: func(any) { poke() },
	})
	return err
}

// run checks once and writes the answer if it changed.
func (u *upgradeCheck) run(ctx context.Context, logger logr.Logger) {
	obj, err := u.object(ctx)
	if err != nil {
		u.logOnce(logger, err, "reading CredentialsUpgradeCheck "+leashv1alpha1.UpgradeCheckName+" failed; retrying at the next change or period")
		return
	}
	now := metav1.NewTime(u.now().Truncate(time.Second))
	var st leashv1alpha1.CredentialsUpgradeCheckStatus
	results, err := u.check(ctx)
	if err != nil {
		st = failedStatus(obj.Status, u.sources.String(), err, now)
		u.logOnce(logger, err, "the Upgradeable check could not run; its condition is Unknown until it can", "sources", u.sources.String())
	} else {
		st = upgradeStatus(obj.Status, u.sources.String(), results, now)
		u.logged = ""
	}
	u.metrics.set(st)
	if equality.Semantic.DeepEqual(st, obj.Status) {
		return
	}
	obj.Status = st
	if err := u.api.Status().Update(ctx, obj); err != nil {
		u.logOnce(logger, err, "writing the status of CredentialsUpgradeCheck "+leashv1alpha1.UpgradeCheckName+" failed; retrying at the next change or period")
		return
	}
	if c := meta.FindStatusCondition(st.Conditions, leashv1alpha1.Upgradeable); c != nil {
		logger.Info("Upgradeable", "status", c.Status, "reason", c.Reason, "message", c.Message)
	}
}

// object is the CredentialsUpgradeCheck, created when there is none yet.
func (u *upgradeCheck) object(ctx context.Context) (*leashv1alpha1.CredentialsUpgradeCheck, error) {
	obj := &leashv1alpha1.CredentialsUpgradeCheck{}
	err := u.fresh.Get(ctx, types.NamespacedName{Name: leashv1alpha1.UpgradeCheckName}, obj)
	if !apierrors.IsNotFound(err) {
		return obj, err
	}
	obj = &leashv1alpha1.CredentialsUpgradeCheck{ObjectMeta: metav1.ObjectMeta{Name: leashv1alpha1.UpgradeCheckName}}
	if err := u.api.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	err = u.fresh.Get(ctx, types.NamespacedName{Name: leashv1alpha1.UpgradeCheckName}, obj)
	return obj, err
}

// check asks upgrade.Check of the next requests against the current ones,
// through the root credentials' IAM client.
func (u *upgradeCheck) check(ctx context.Context) ([]upgrade.Result, error) {
	var cm *corev1.ConfigMap
	if u.configMap != nil {
		cm = &corev1.ConfigMap{}
		switch err := u.configMap.Get(ctx, u.sources.ConfigMap, cm); {
		case apierrors.IsNotFound(err):
			cm = nil
		case err != nil:
			return nil, fmt.Errorf("read ConfigMap %s: %w", u.sources.ConfigMap, err)
		}
	}
	next, err := u.sources.load(cm)
	if err != nil {
		return nil, err
	}
	rc, _, err := u.prov.rootClient(ctx)
	if err != nil {
		var f *Failure
		if errors.As(err, &f) {
			return nil, fmt.Errorf("%s: %s", f.Reason, f.Message)
		}
		return nil, fmt.Errorf("the root credentials: %w", err)
	}
	fix := "the operator provisions it again when it next syncs the request (kubectl describe credentialsrequest says why it has not)"
	return upgrade.Check(ctx, UpgradeRequests(next), u.find(rc), upgrade.IAMReader(rc.iam, fix))
}

// find is the principal of the current request of a name: its
// status.principal, and for a Passthrough one the root credentials the
// operator holds now.
func (u *upgradeCheck) find(rc *rootClient) upgrade.Find {
	return func(ctx context.Context, ns, name string) (upgrade.Principal, error) {
		if u.namespace != "" && ns != u.namespace {
			return upgrade.Principal{}, &upgrade.Failure{Msg: fmt.Sprintf("in namespace %s, outside the one this operator provisions (--namespace %s); check it with leash check upgrade --kubeconfig", ns, u.namespace)}
		}
		cr := &leashv1.CredentialsRequest{}
		err := u.requests.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, cr)
		if apierrors.IsNotFound(err) {
			return upgrade.Principal{}, upgrade.ErrNew
		}
		if err != nil {
			return upgrade.Principal{}, fmt.Errorf("read CredentialsRequest %s/%s: %w", ns, name, err)
		}
		if cr.Status.Mode != leashv1.ModePassthrough {
			return upgrade.StatusPrincipal(cr)
		}
		kind, _, ok := iamclient.PrincipalName(rc.identity.ARN)
		if !ok {
			return upgrade.Principal{}, &upgrade.Failure{Msg: fmt.Sprintf("Passthrough: the root credentials are %s, not an IAM user or role whose policies can be read", rc.identity.ARN)}
		}
		return upgrade.Principal{Kind: kind, Name: rc.identity.ARN, Note: upgrade.PassthroughNote}, nil
	}
}

func (u *upgradeCheck) logOnce(logger logr.Logger, err error, msg string, kv ...any) {
	if err.Error() != u.logged {
		logger.Error(err, msg, kv...)
	}
	u.logged = err.Error()
}

// upgradeCheckFor is the operator's Upgradeable check, with a cache of its
// own holding the one ConfigMap when there is one; nil when no next
// requests are given.
func upgradeCheckFor(mgr manager.Manager, cfg *rest.Config, prov *Provisioner, o Options, reg prometheus.Registerer) (*upgradeCheck, error) {
	if !o.NextRequests.Enabled() {
		return nil, nil
	}
	period := o.Recheck
	if period == 0 {
		period = 10 * time.Minute
	}
	u := &upgradeCheck{prov: prov, sources: o.NextRequests, requests: mgr.GetClient(), informers: mgr.GetCache(),
		namespace: o.Namespace, api: mgr.GetClient(), fresh: mgr.GetAPIReader(), metrics: newUpgradeMetrics(reg),
		period: period, settle: upgradeSettle, now: time.Now, poke: make(chan struct{}, 1)}
	if nn := o.NextRequests.ConfigMap; nn.Name != "" {
		c, err := configMapCache(mgr, cfg, nn)
		if err != nil {
			return nil, err
		}
		u.configMap = c
	}
	return u, nil
}
