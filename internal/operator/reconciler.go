package operator

import (
	"context"
	"reflect"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	leashv1 "leash.dev/leash/api/v1"
)

// Reconciler runs the Provisioner for CredentialsRequests in a cluster:
// one request per call, status and finalizer written back, problems as
// conditions (and a Warning Event when one turns True), IAM changes as
// Events.
type Reconciler struct {
	Client      client.Client
	Provisioner *Provisioner
	Metrics     *Metrics
	// Recheck is how often requests are synced with no change, so that drift
	// (a deleted key, a changed root policy) is found: 0 means 10 minutes.
	Recheck time.Duration
	// RecheckFailed is how often a failing request is synced again, for
	// what no watch shows (a permission granted in IAM): 0 means a minute.
	RecheckFailed time.Duration
	// Usage, when set, reads a trail at each sync for what the request's
	// principal used of what it allows (status.usage, UnusedPermissions).
	Usage *Usage
	Now   func() time.Time
}

// Indexes of requests: by the namespace of their Secret, so that a
// namespace's creation wakes the requests waiting for it; and by their
// Secret (namespace/name), to find a Secret's owner and to wake the requests
// that name a Secret when it or its owner changes.
const (
	secretRefNamespace = "spec.secretRef.namespace"
	secretRefIndex     = "spec.secretRef"
)

// SetupWithManager registers the reconciler. sources are watches with
// caches of their own: the root credentials Secret, so that a root rotation
// reaches every passthrough request, and the Secrets leash did not write;
// and the guardrail watch's wake-ups, when the guardrails change.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options, sources ...source.Source) error {
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Recheck == 0 {
		r.Recheck = 10 * time.Minute
	}
	if r.RecheckFailed == 0 {
		r.RecheckFailed = DefaultRecheckFailed
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &leashv1.CredentialsRequest{}, secretRefNamespace,
		func(o client.Object) []string {
			return []string{o.(*leashv1.CredentialsRequest).Spec.SecretRef.Namespace}
		}); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &leashv1.CredentialsRequest{}, secretRefIndex,
		func(o client.Object) []string {
			ref := o.(*leashv1.CredentialsRequest).Spec.SecretRef
			return []string{ref.Namespace + "/" + ref.Name}
		}); err != nil {
		return err
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&leashv1.CredentialsRequest{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}, deleting))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.secretRequests), builder.WithPredicates(changedByOthers)).
		// A request that goes, or names another Secret, hands its Secret to
		// the next oldest request naming it.
		Watches(&leashv1.CredentialsRequest{}, handler.EnqueueRequestsFromMapFunc(r.sameSecret), builder.WithPredicates(leftSecret)).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.waitingFor)).
		WithOptions(opts)
	for _, src := range sources {
		b = b.WatchesRawSource(src)
	}
	return b.Complete(r)
}

// PassthroughRequests enqueues every request whose credentials come from the
// root key, for a root rotation.
func (r *Reconciler) PassthroughRequests(ctx context.Context, _ client.Object) []reconcile.Request {
	var list leashv1.CredentialsRequestList
	if err := r.Client.List(ctx, &list); err != nil {
		log.FromContext(ctx).Error(err, "listing CredentialsRequests after a root credentials change")
		return nil
	}
	var out []reconcile.Request
	for _, cr := range list.Items {
		if cr.Status.Mode == leashv1.ModePassthrough || cr.Status.Mode == "" {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cr.Namespace, Name: cr.Name}})
		}
	}
	return out
}

// deleting passes updates that set a deletion timestamp.
var deleting = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return e.ObjectNew.GetDeletionTimestamp() != nil
}}

// changedByOthers passes a Secret's deletion and changes someone other than
// leash made: leash's own writes need no second sync (they would cost one
// per new key, with four IAM reads each).
var changedByOthers = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(e event.UpdateEvent) bool { return lastWriter(e.ObjectNew) != fieldOwner },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// lastWriter is the field manager of the object's most recent write.
func lastWriter(o client.Object) string {
	var who string
	var when time.Time
	for _, m := range o.GetManagedFields() {
		if m.Time != nil && !m.Time.Time.Before(when) {
			who, when = m.Manager, m.Time.Time
		}
	}
	return who
}

// leftSecret passes a request's deletion and a change of its spec.secretRef:
// both may hand a Secret to another request.
var leftSecret = predicate.Funcs{
	CreateFunc: func(event.CreateEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.(*leashv1.CredentialsRequest).Spec.SecretRef != e.ObjectNew.(*leashv1.CredentialsRequest).Spec.SecretRef
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// secretRequests maps a Secret leash wrote to the request it was written
// for and to every request that names it: when the owner's Secret goes,
// the next oldest request naming it takes over.
func (r *Reconciler) secretRequests(ctx context.Context, o client.Object) []reconcile.Request {
	out := r.requestsNaming(ctx, o.GetNamespace(), o.GetName())
	if ref, ok := o.GetAnnotations()[leashv1.AnnotationCredentialsRequest]; ok {
		if ns, name, ok := cutSlash(ref); ok {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}})
		}
	}
	return out
}

// sameSecret maps a request to the other requests naming its Secret (for
// an update, the old and the new one), one of which may own it now.
func (r *Reconciler) sameSecret(ctx context.Context, o client.Object) []reconcile.Request {
	ref := o.(*leashv1.CredentialsRequest).Spec.SecretRef
	var out []reconcile.Request
	for _, req := range r.requestsNaming(ctx, ref.Namespace, ref.Name) {
		if req.Namespace != o.GetNamespace() || req.Name != o.GetName() {
			out = append(out, req)
		}
	}
	return out
}

// requestsNaming lists the requests whose spec.secretRef is namespace/name.
func (r *Reconciler) requestsNaming(ctx context.Context, namespace, name string) []reconcile.Request {
	var list leashv1.CredentialsRequestList
	if err := r.Client.List(ctx, &list, client.MatchingFields{secretRefIndex: namespace + "/" + name}); err != nil {
		log.FromContext(ctx).Error(err, "listing CredentialsRequests for a Secret", "secret", namespace+"/"+name)
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, cr := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cr.Namespace, Name: cr.Name}})
	}
	return out
}

// waitingFor maps a namespace to the requests whose Secret goes there.
func (r *Reconciler) waitingFor(ctx context.Context, o client.Object) []reconcile.Request {
	var list leashv1.CredentialsRequestList
	if err := r.Client.List(ctx, &list, client.MatchingFields{secretRefNamespace: o.GetName()}); err != nil {
		log.FromContext(ctx).Error(err, "listing CredentialsRequests for a namespace", "namespace", o.GetName())
		return nil
	}
	var out []reconcile.Request
	for _, cr := range list.Items {
		if c := findCondition(&cr.Status, leashv1.MissingTargetNamespace); c != nil && c.Status == corev1.ConditionTrue {
			out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cr.Namespace, Name: cr.Name}})
		}
	}
	return out
}

// Reconcile syncs one request.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (ctrl.Result, error) {
	start := r.Now()
	cr := &leashv1.CredentialsRequest{}
	if err := r.Client.Get(ctx, req.NamespacedName, cr); err != nil {
		if apierrors.IsNotFound(err) {
			r.Metrics.forget(req.NamespacedName)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, err
	}
	if !cr.DeletionTimestamp.IsZero() {
		return r.remove(ctx, cr)
	}
	if _, err := awsSpec(cr); err == nil && !controllerutil.ContainsFinalizer(cr, leashv1.FinalizerDeprovision) {
		// The finalizer goes on before any cloud resource exists, so that a
		// deletion always waits for the cleanup.
		patch := client.MergeFrom(cr.DeepCopy())
		controllerutil.AddFinalizer(cr, leashv1.FinalizerDeprovision)
		if err := r.Client.Patch(ctx, cr, patch); err != nil {
			return ctrl.Result{}, err
		}
	}
	out, syncErr := r.Provisioner.Sync(ctx, cr)
	r.Metrics.observeReconcile(out.Mode, syncErr, r.Now().Sub(start))
	r.Metrics.record(req.NamespacedName, out)
	before := cr.Status.DeepCopy()
	applyOutcome(cr, out, syncErr == nil, metav1.NewTime(r.Now()))
	if r.Usage != nil && syncErr == nil {
		r.Usage.apply(ctx, cr, start, r.Metrics, r.Provisioner.usageHidden(cr))
	}
	if statusChanged(before, &cr.Status) {
		if err := r.Client.Status().Update(ctx, cr); err != nil {
			if apierrors.IsConflict(err) { // someone changed the request: sync again with it
				return ctrl.Result{RequeueAfter: time.Second}, nil
			}
			return ctrl.Result{}, err
		}
		r.Provisioner.warnIfTurnedFailing(cr, before)
	}
	if syncErr != nil {
		log.FromContext(ctx).Info("sync failed; retrying with backoff", "error", syncErr.Error())
		return ctrl.Result{}, syncErr
	}
	return ctrl.Result{RequeueAfter: r.nextSync(out)}, nil
}

// DefaultRecheckFailed is how often a failing request is synced again
// unless --recheck-interval says otherwise.
const DefaultRecheckFailed = time.Minute

// nextSync is when a request is synced again with no event: at the recheck,
// sooner when it failed (a root permission someone must grant is in IAM,
// which nothing watches), and when a key is due for rotation or retirement.
func (r *Reconciler) nextSync(out Outcome) time.Duration {
	next := r.Recheck
	if out.Failure != nil && out.Failure.Type != leashv1.Ignored {
		next = min(next, r.RecheckFailed)
	}
	if out.RequeueAfter > 0 && out.RequeueAfter < next {
		next = out.RequeueAfter
	}
	return next
}

// remove deprovisions a request being deleted, then lets it go.
func (r *Reconciler) remove(ctx context.Context, cr *leashv1.CredentialsRequest) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(cr, leashv1.FinalizerDeprovision) {
		return ctrl.Result{}, nil
	}
	if err := r.Provisioner.Remove(ctx, cr); err != nil {
		before := cr.Status.DeepCopy()
		setDeprovisionFailure(cr, err, metav1.NewTime(r.Now()))
		uerr := r.Client.Status().Update(ctx, cr)
		if uerr == nil {
			r.Provisioner.warnIfTurnedFailing(cr, before)
		} else if !apierrors.IsConflict(uerr) && !apierrors.IsNotFound(uerr) {
			log.FromContext(ctx).Error(uerr, "recording the deprovision failure")
		}
		return ctrl.Result{}, err
	}
	patch := client.MergeFrom(cr.DeepCopy())
	controllerutil.RemoveFinalizer(cr, leashv1.FinalizerDeprovision)
	if err := r.Client.Patch(ctx, cr, patch); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	r.Metrics.forget(types.NamespacedName{Namespace: cr.Namespace, Name: cr.Name})
	return ctrl.Result{}, nil
}

// statusChanged ignores the probe and sync times, so that a sync that finds
// nothing new does not write the status.
func statusChanged(a, b *leashv1.CredentialsRequestStatus) bool {
	strip := func(s *leashv1.CredentialsRequestStatus) leashv1.CredentialsRequestStatus {
		c := *s.DeepCopy()
		c.LastSyncTimestamp = nil
		for i := range c.Conditions {
			c.Conditions[i].LastProbeTime = metav1.Time{}
		}
		return c
	}
	return !reflect.DeepEqual(strip(a), strip(b))
}

func cutSlash(s string) (string, string, bool) {
	ns, name, ok := strings.Cut(s, "/")
	return ns, name, ok && ns != "" && name != ""
}
