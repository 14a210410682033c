package operator

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/usage"
	"leash.dev/leash/localaws/audit"
)

// DefaultUsageWindow is how far back the trail is read for a request's
// use unless --usage-window says otherwise: 90 days, as long as
// CloudTrail's event history keeps management events.
const DefaultUsageWindow = 90 * 24 * time.Hour

// Usage reads a trail for what each request's principal used of what the
// request allows (status.usage and the UnusedPermissions condition). One
// read of the trail serves every sync that began before the read did, so
// a burst of syncs reads it once and each sync sees every call made
// before it began.
type Usage struct {
	// Source is the trail: leash local's audit log or CloudTrail files.
	Source cloudtrail.Source
	// Window is how far back calls count; 0 means DefaultUsageWindow.
	Window time.Duration
	Now    func() time.Time

	mu   sync.Mutex
	last *usageRead // the newest read, done or in flight
}

// usageRead is one read of the trail: every exercised call, by the
// principal (user or role) it was made as.
type usageRead struct {
	started time.Time
	since   time.Time
	done    chan struct{}
	by      map[string]*cloudtrail.PolicyBuilder
	err     error
}

// read returns a read of the trail that started at or after notBefore,
// starting one if the newest did not.
func (u *Usage) read(ctx context.Context, notBefore time.Time) (*usageRead, error) {
	u.mu.Lock()
	r := u.last
	if r == nil || r.started.Before(notBefore) {
		now := u.Now()
		window := u.Window
		if window == 0 {
			window = DefaultUsageWindow
		}
		// The window starts on the hour, so that a sync that finds no new
		// call writes the same status as the one before it.
		r = &usageRead{started: now, since: now.Add(-window).Truncate(time.Hour), done: make(chan struct{}), by: map[string]*cloudtrail.PolicyBuilder{}}
		u.last = r
		go r.run(context.WithoutCancel(ctx), u.Source)
	}
	u.mu.Unlock()
	select {
	case <-r.done:
		return r, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (r *usageRead) run(ctx context.Context, src cloudtrail.Source) {
	defer close(r.done)
	r.err = cloudtrail.Collect(ctx, src, audit.Filter{Since: r.since}, func(e *audit.Event) error {
		p := callerPrincipal(&e.UserIdentity)
		if p == "" {
			return nil
		}
		b := r.by[p]
		if b == nil {
			b = cloudtrail.NewPolicyBuilder()
			r.by[p] = b
		}
		b.Add(e)
		return nil
	})
}

// callerPrincipal is the user or role a call was made as, as
// status.principal names it: a role session's issuer, or the user.
func callerPrincipal(id *audit.Identity) string {
	if sc := id.SessionContext; sc != nil && sc.SessionIssuer != nil && sc.SessionIssuer.Type == "Role" {
		return sc.SessionIssuer.ARN
	}
	if id.Type == "IAMUser" {
		return id.ARN
	}
	return ""
}

// usageHidden says why a request's status may not show its principal's
// calls, "" when it may. It may for a principal leash made for this very
// request, and for any principal of a request in an administrator
// namespace. Elsewhere a request's author names the principal of a Manual
// request (stsIAMRoleARN, or a key), and could name another team's role
// to learn from status which of the actions listed it used.
func (p *Provisioner) usageHidden(cr *leashv1.CredentialsRequest) string {
	own := userPath(p.cfg.ClusterName) + userName(p.cfg.ClusterName, cr.Namespace, cr.Name, string(cr.UID))
	if p.isAdminNamespace(cr.Namespace) || strings.HasSuffix(cr.Status.Principal, ":user"+own) || strings.HasSuffix(cr.Status.Principal, ":role"+own) {
		return ""
	}
	return "the request's principal " + cr.Status.Principal + " is not one leash made for it, and the request is not in an administrator namespace: its calls are shown only to those who may read the trail (leash audit --principal)"
}

// apply sets status.usage and the UnusedPermissions condition of a synced
// request from a read of the trail that began at or after the sync, and
// reports the counts to the metrics. It never touches Ready; a trail that
// cannot be read, or a principal whose use the request may not show
// (hidden, from usageHidden), makes the condition Unknown.
func (u *Usage) apply(ctx context.Context, cr *leashv1.CredentialsRequest, syncStart time.Time, m *Metrics, hidden string) {
	st := &cr.Status
	now := metav1.NewTime(u.Now())
	switch {
	case st.Principal != "" && hidden != "":
		st.Usage = nil
		setCondition(st, leashv1.UnusedPermissions, corev1.ConditionUnknown, ReasonUsageUnknown, hidden, now)
		return
	case st.Mode == leashv1.ModePassthrough:
		st.Usage = nil
		setCondition(st, leashv1.UnusedPermissions, corev1.ConditionUnknown, ReasonUsageUnknown,
			"the request passes through the root credentials, which every Passthrough request and the operator share: their calls are not this request's alone", now)
		return
	case st.Principal == "" || st.Mode == leashv1.ModeIgnored:
		return
	}
	r, err := u.read(ctx, syncStart)
	if err != nil {
		setCondition(st, leashv1.UnusedPermissions, corev1.ConditionUnknown, ReasonUsageUnknown, "the trail could not be read: "+err.Error(), now)
		return
	}
	spec, err := awsSpec(cr)
	if err != nil {
		return
	}
	doc, err := RequestedPolicy(cr)
	if err != nil {
		return
	}
	b := r.by[st.Principal]
	if b == nil {
		b = cloudtrail.NewPolicyBuilder()
	}
	report, err := usage.Build(cr.Namespace+"/"+cr.Name, st.Principal, spec.StatementEntries, doc, b.Uses(), nil)
	if err != nil {
		setCondition(st, leashv1.UnusedPermissions, corev1.ConditionUnknown, ReasonUsageUnknown, err.Error(), now)
		return
	}
	status := &leashv1.UsageStatus{Since: metav1.NewTime(r.since), Used: report.UsedActions(), Unused: report.Unused()}
	if last := report.LastUsed(); !last.IsZero() {
		t := metav1.NewTime(last)
		status.LastUsed = &t
	}
	st.Usage = status
	m.recordUsage(cr, len(status.Used), len(status.Unused), report.LastUsed())
	if len(status.Unused) == 0 {
		setCondition(st, leashv1.UnusedPermissions, corev1.ConditionFalse, ReasonAllPermissionsUsed, "every action the request allows was used since "+status.Since.UTC().Format(time.RFC3339), now)
		return
	}
	setCondition(st, leashv1.UnusedPermissions, corev1.ConditionTrue, ReasonPermissionsUnused,
		fmt.Sprintf("%d actions the request allows were not used since %s: %s; leash audit --request %s/%s --propose prints the request narrowed to what was used",
			len(status.Unused), status.Since.UTC().Format(time.RFC3339), analyze.ListAtMost(status.Unused, 10), cr.Namespace, cr.Name), now)
}
