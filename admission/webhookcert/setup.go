package webhookcert

import (
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// ReadyCheck is the name of the Rotator's readiness check on the manager's
// /readyz.
const ReadyCheck = "webhook-certificate"

// Setup makes a Rotator that reads through mgr's API reader (unless
// o.Reader is set) and writes through its client, runs it on every replica,
// and adds its readiness check. Its GetCertificate is what the webhook
// server serves.
func Setup(mgr manager.Manager, o Options) (*Rotator, error) {
	if o.Reader == nil {
		o.Reader = mgr.GetAPIReader()
	}
	r, err := New(mgr.GetClient(), o)
	if err != nil {
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
