package operator

import (
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1alpha1 "leash.dev/leash/api/v1alpha1"
	"leash.dev/leash/internal/upgrade"
)

// Reasons of the CredentialsUpgradeCheck's Upgradeable condition.
const (
	// ReasonPermissionsHeld: Upgradeable True; every next request finds
	// what it grants in its current principal, or is new or ignored.
	ReasonPermissionsHeld = "PermissionsHeld"
	// ReasonPermissionsMissing: Upgradeable False; a next request grants
	// what its current principal does not allow (status.requests lists it).
	ReasonPermissionsMissing = "PermissionsMissing"
	// ReasonRequestsNotChecked: Upgradeable Unknown; none lacks a
	// permission, but some could not be checked (not provisioned yet, a
	// principal IAM no longer knows, a manifest left a template).
	ReasonRequestsNotChecked = "RequestsNotChecked"
	// ReasonUpgradeCheckFailed: Upgradeable Unknown; the check itself
	// failed (the next requests unreadable, IAM unreachable, no root
	// credentials); status.requests are from the last check that ran.
	ReasonUpgradeCheckFailed = "UpgradeCheckFailed"
)

// listedInMessage is how many requests, and permissions of each, the
// condition's message names; status.requests holds them all.
const listedInMessage = 10

// upgradeStatus is the status the results give, carrying each answer's
// observedAt and the condition's lastTransitionTime over from prev while
// they stay the same, so that a status is written only when an answer
// changed.
func upgradeStatus(prev leashv1alpha1.CredentialsUpgradeCheckStatus, source string, results []upgrade.Result, now metav1.Time) leashv1alpha1.CredentialsUpgradeCheckStatus {
	seen := map[string]leashv1alpha1.UpgradeRequestStatus{}
	for _, r := range prev.Requests {
		seen[r.Namespace+"/"+r.Name] = r
	}
	st := leashv1alpha1.CredentialsUpgradeCheckStatus{Conditions: cloneConditions(prev.Conditions), Source: source}
	for _, r := range results {
		rs := leashv1alpha1.UpgradeRequestStatus{Namespace: r.Namespace, Name: r.Name, Principal: r.Principal,
			State: leashv1alpha1.UpgradeState(r.State), Message: r.Message, ObservedAt: now}
		for _, m := range r.Missing {
			rs.Missing = append(rs.Missing, leashv1alpha1.MissingPermission{Action: m.Action, Resource: m.Resource, Condition: m.Condition, Reason: m.Reason})
		}
		if old, ok := seen[r.Namespace+"/"+r.Name]; ok {
			old.ObservedAt = now
			if equality.Semantic.DeepEqual(old, rs) {
				rs.ObservedAt = seen[r.Namespace+"/"+r.Name].ObservedAt
			}
		}
		st.Requests = append(st.Requests, rs)
	}
	c := upgradeCondition(results)
	c.LastTransitionTime = now
	meta.SetStatusCondition(&st.Conditions, c)
	return st
}

// failedStatus is prev with Upgradeable Unknown for a check that could not
// run: the last answers stay, their observedAt saying how old they are.
func failedStatus(prev leashv1alpha1.CredentialsUpgradeCheckStatus, source string, err error, now metav1.Time) leashv1alpha1.CredentialsUpgradeCheckStatus {
	st := *prev.DeepCopy()
	st.Source = source
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: leashv1alpha1.Upgradeable, Status: metav1.ConditionUnknown,
		Reason: ReasonUpgradeCheckFailed, Message: "the check could not run: " + err.Error(), LastTransitionTime: now})
	return st
}

func cloneConditions(cs []metav1.Condition) []metav1.Condition {
	return append([]metav1.Condition(nil), cs...)
}

// upgradeCondition is the Upgradeable condition of a check's results: a
// missing permission makes it False whatever else is found; a request that
// could not be checked makes it Unknown, since its answer may be either.
func upgradeCondition(results []upgrade.Result) metav1.Condition {
	s := upgrade.Summarize(results)
	c := metav1.Condition{Type: leashv1alpha1.Upgradeable}
	switch {
	case s.Missing > 0:
		var lines []string
		for _, r := range results {
			if r.State == upgrade.Missing {
				lines = append(lines, missingLine(r))
			}
		}
		c.Status, c.Reason = metav1.ConditionFalse, ReasonPermissionsMissing
		c.Message = fmt.Sprintf("%d of the next release's CredentialsRequests grant what their current credentials do not allow: %s. Update each request to its next version (the operator then provisions what it grants) or grant the permissions, before upgrading; status.requests gives the engine's reason for each",
			s.Missing, listed(lines))
		if s.Failed > 0 {
			c.Message += fmt.Sprintf("; %d more could not be checked (%s)", s.Failed, listed(failedLines(results)))
		}
	case s.Failed > 0:
		c.Status, c.Reason = metav1.ConditionUnknown, ReasonRequestsNotChecked
		c.Message = fmt.Sprintf("%d of the next release's CredentialsRequests could not be checked, and none of the others lacks a permission: %s", s.Failed, listed(failedLines(results)))
	default:
		c.Status, c.Reason = metav1.ConditionTrue, ReasonPermissionsHeld
		c.Message = fmt.Sprintf("every one of the next release's %d CredentialsRequests finds what it grants in its current credentials (%d ok, %d new, %d ignored)", s.Requests, s.OK, s.New, s.Ignored)
	}
	return c
}

// missingLine is "ns/name (principal) lacks A on R, ...".
func missingLine(r upgrade.Result) string {
	var perms []string
	for i, m := range r.Missing {
		if i == listedInMessage {
			perms = append(perms, fmt.Sprintf("and %d more", len(r.Missing)-i))
			break
		}
		p := m.Action + " on " + m.Resource
		if m.Condition != "" {
			p += " when " + m.Condition
		}
		perms = append(perms, p)
	}
	return fmt.Sprintf("%s/%s (%s) lacks %s", r.Namespace, r.Name, r.Principal, strings.Join(perms, ", "))
}

func failedLines(results []upgrade.Result) []string {
	var lines []string
	for _, r := range results {
		if r.State == upgrade.Failed {
			lines = append(lines, fmt.Sprintf("%s/%s: %s", r.Namespace, r.Name, r.Message))
		}
	}
	return lines
}

// listed joins lines with "; ", naming at most listedInMessage of them.
func listed(lines []string) string {
	if len(lines) > listedInMessage {
		lines = append(lines[:listedInMessage:listedInMessage], fmt.Sprintf("and %d more", len(lines)-listedInMessage))
	}
	return strings.Join(lines, "; ")
}

// upgradeMetrics are the check's answer for Prometheus.
type upgradeMetrics struct {
	upgradeable, missing prometheus.Gauge
}

func newUpgradeMetrics(reg prometheus.Registerer) *upgradeMetrics {
	m := &upgradeMetrics{
		upgradeable: prometheus.NewGauge(prometheus.GaugeOpts{Name: "leash_upgradeable",
			Help: "1 when the CredentialsUpgradeCheck's Upgradeable condition is True (every next CredentialsRequest finds what it needs), else 0 (False, or Unknown: not known to be upgradeable)."}),
		missing: prometheus.NewGauge(prometheus.GaugeOpts{Name: "leash_upgrade_missing_permissions",
			Help: "Permissions the next release's CredentialsRequests grant that their current credentials do not allow, at the last check that ran."}),
	}
	reg.MustRegister(m.upgradeable, m.missing)
	return m
}

// set records a status's answer; the missing count stays from the last
// check that ran when this one failed.
func (m *upgradeMetrics) set(st leashv1alpha1.CredentialsUpgradeCheckStatus) {
	c := meta.FindStatusCondition(st.Conditions, leashv1alpha1.Upgradeable)
	up := 0.0
	if c != nil && c.Status == metav1.ConditionTrue {
		up = 1
	}
	m.upgradeable.Set(up)
	if c != nil && c.Reason == ReasonUpgradeCheckFailed {
		return
	}
	n := 0
	for _, r := range st.Requests {
		n += len(r.Missing)
	}
	m.missing.Set(float64(n))
}
