package operator

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

// reportedConditions are the condition types a sync decides; each is True
// when the outcome's failure is of that type, and set False once it clears.
var reportedConditions = []leashv1.CredentialsRequestConditionType{
	leashv1.InsufficientCloudCredentials,
	leashv1.MissingTargetNamespace,
	leashv1.CredentialsProvisionFailure,
	leashv1.CredentialsDeprovisionFailure,
	leashv1.Ignored,
}

// failureConditions are the conditions that say a request is failing; each
// one's turn to True is a Warning Event. Ignored is not among them: a request
// for another cloud is not a failure.
var failureConditions = []leashv1.CredentialsRequestConditionType{
	leashv1.InsufficientCloudCredentials,
	leashv1.MissingTargetNamespace,
	leashv1.CredentialsProvisionFailure,
	leashv1.CredentialsDeprovisionFailure,
}

// turnedFailing is the failure condition that is True in after and was not
// in before: nil when none turned, including when one stays True across
// syncs, so that a request failing for an hour is one Warning, not one per
// resync.
func turnedFailing(before, after *leashv1.CredentialsRequestStatus) *leashv1.CredentialsRequestCondition {
	for _, t := range failureConditions {
		c := findCondition(after, t)
		if c == nil || c.Status != corev1.ConditionTrue {
			continue
		}
		if was := findCondition(before, t); was == nil || was.Status != corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// applyOutcome writes a sync's outcome into the request's status.
func applyOutcome(cr *leashv1.CredentialsRequest, out Outcome, synced bool, now metav1.Time) {
	st := &cr.Status
	if out.Mode != "" {
		st.Mode = shownMode(out.Mode)
	}
	// A sync that ran to its end says what exists: a principal or user it
	// does not report is gone (retired after a mode change, or never made
	// for a request refused before IAM). One cut short by a transient error
	// only adds what it found.
	if synced || out.Principal != "" {
		st.Principal = out.Principal
	}
	if synced || out.RoleTrust != "" {
		st.RoleTrust = out.RoleTrust
	}
	if out.Provisioned {
		st.Provisioned = true
	}
	if synced || out.User != "" {
		st.ProviderStatus = encodeProviderStatus(out.User, out.Policy)
	}
	if r := out.Revocation; r != nil {
		at := metav1.NewTime(r.At)
		st.RevokedAt, st.Revocation = &at, r.Message
	}
	if synced {
		st.LastSyncGeneration = cr.Generation
		st.LastSyncTimestamp = &now
	}
	for _, t := range reportedConditions {
		if out.Failure != nil && out.Failure.Type == t {
			setCondition(st, t, corev1.ConditionTrue, out.Failure.Reason, out.Failure.Message, now)
		} else if c := findCondition(st, t); c != nil {
			setCondition(st, t, corev1.ConditionFalse, ReasonResolved, resolvedMessage(c), now)
		}
	}
	applyWarnings(st, out, now)
	switch {
	case out.Failure != nil && out.Failure.Type == leashv1.Ignored:
		setCondition(st, leashv1.Ready, corev1.ConditionFalse, string(leashv1.Ignored), out.Failure.Message, now)
	case out.Failure != nil:
		setCondition(st, leashv1.Ready, corev1.ConditionFalse, out.Failure.Reason, out.Failure.Message, now)
	case out.Provisioned && out.Unchecked != "":
		setCondition(st, leashv1.Ready, corev1.ConditionTrue, ReasonRoleUnchecked, readyMessage(cr, out)+"; not checked: "+out.Unchecked, now)
	case out.Provisioned:
		setCondition(st, leashv1.Ready, corev1.ConditionTrue, ReasonCredentialsReady, readyMessage(cr, out), now)
	default:
		setCondition(st, leashv1.Ready, corev1.ConditionFalse, ReasonPending, "not provisioned yet", now)
	}
}

// applyWarnings sets PolicyWarnings from a checked request's warnings,
// and leaves it alone when the request failed before it was checked.
func applyWarnings(st *leashv1.CredentialsRequestStatus, out Outcome, now metav1.Time) {
	switch {
	case len(out.Warnings) > 0:
		setCondition(st, leashv1.PolicyWarnings, corev1.ConditionTrue, ReasonCatalogFindings, firstOf(out.Warnings), now)
	case out.Checked && findCondition(st, leashv1.PolicyWarnings) != nil:
		setCondition(st, leashv1.PolicyWarnings, corev1.ConditionFalse, ReasonNoFindings, "AWS's catalog finds nothing doubtful in spec.providerSpec.statementEntries", now)
	}
}

// shownMode is the mode status.mode and leash apply's table show: the
// documented mode, so a request with stsIAMRoleARN shows Manual (its role
// is its principal).
func shownMode(m leashv1.CredentialsMode) leashv1.CredentialsMode {
	if m == leashv1.ModeSTS {
		return leashv1.ModeManual
	}
	return m
}

// resolvedMessage says what a condition turning False fixed: the failure
// it reported. One already resolved keeps its message.
func resolvedMessage(c *leashv1.CredentialsRequestCondition) string {
	if c.Status != corev1.ConditionTrue {
		return c.Message
	}
	return fmt.Sprintf("fixed: the earlier %s (%s) no longer holds", c.Reason, c.Message)
}

func readyMessage(cr *leashv1.CredentialsRequest, out Outcome) string {
	ref := cr.Spec.SecretRef
	switch out.Mode {
	case leashv1.ModeManual:
		return fmt.Sprintf("Secret %s/%s holds a key of %s with every requested permission", ref.Namespace, ref.Name, out.Principal)
	case leashv1.ModeSTS:
		return fmt.Sprintf("Secret %s/%s configures web identity for %s", ref.Namespace, ref.Name, out.Principal)
	case leashv1.ModeBroker:
		return fmt.Sprintf("role %s is ready for the credential broker to serve pods of namespace %s; no Secret is written. Proven by leash's engine, not by a session (the operator is not the broker's identity): the role's trust admits the broker only, with session tag %s=%s, and its policy allows every requested action",
			out.Principal, ref.Namespace, brokerNamespaceKey, ref.Namespace)
	}
	msg := fmt.Sprintf("Secret %s/%s holds a working key of %s", ref.Namespace, ref.Name, out.Principal)
	if out.PolicyNote != "" {
		msg += "; " + out.PolicyNote
	}
	return msg
}

// setDeprovisionFailure reports a failed removal.
func setDeprovisionFailure(cr *leashv1.CredentialsRequest, err error, now metav1.Time) {
	msg := err.Error() + "; retrying with backoff. The finalizer stays until the cloud resources are gone"
	setCondition(&cr.Status, leashv1.CredentialsDeprovisionFailure, corev1.ConditionTrue, ReasonCloudError, msg, now)
	setCondition(&cr.Status, leashv1.Ready, corev1.ConditionFalse, ReasonDeprovisioning, msg, now)
}

func findCondition(st *leashv1.CredentialsRequestStatus, t leashv1.CredentialsRequestConditionType) *leashv1.CredentialsRequestCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition sets a condition, moving its transition time only when its
// status changes.
func setCondition(st *leashv1.CredentialsRequestStatus, t leashv1.CredentialsRequestConditionType, status corev1.ConditionStatus, reason, msg string, now metav1.Time) {
	c := findCondition(st, t)
	if c == nil {
		st.Conditions = append(st.Conditions, leashv1.CredentialsRequestCondition{Type: t})
		c = &st.Conditions[len(st.Conditions)-1]
	}
	if c.Status != status {
		c.LastTransitionTime = now
	}
	c.Status, c.Reason, c.Message, c.LastProbeTime = status, reason, msg, now
}

// conditionLabel is the request's state for metrics and tables: the True
// failure condition, else Ready or Pending.
func conditionLabel(out Outcome) string {
	switch {
	case out.Failure != nil:
		return string(out.Failure.Type)
	case out.Provisioned:
		return string(leashv1.Ready)
	}
	return "Pending"
}
