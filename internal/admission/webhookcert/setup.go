package webhookcert

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// ReadyCheck is the name of the Rotator's readiness check on the manager's
// /readyz.
const ReadyCheck = "webhook-certificate"

// Setup makes a Rotator that reads through mgr's API reader (unless
// o.Reader is set), writes through its client and records Events with its
// recorder (unless o.Events is set), runs it and its watch on the
// configurations on every replica, and adds its readiness check. Its
// GetCertificate is what the webhook server serves.
func Setup(mgr manager.Manager, o Options) (*Rotator, error) {
	if o.Reader == nil {
		o.Reader = mgr.GetAPIReader()
	}
	if o.Events == nil {
		o.Events = mgr.GetEventRecorderFor("leash")
	}
	r, err := New(mgr.GetClient(), o)
	if err != nil {
		return nil, err
	}
	watch, err := r.watch(context.Background(), mgr.GetConfig(), cache.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(watch); err != nil {
		return nil, err
	}
	if err := mgr.Add(r); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck(ReadyCheck, r.Ready); err != nil {
		return nil, err
	}
	return r, nil
}
