package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
)

// TestOperatorRefusesBeforeIAM pins that the operator refuses, on a real
// API server and before any IAM call, the requests that cannot mean what
// they say (misspelt actions, ARNs no action takes, deny-only policies,
// unrendered templates, a role in Mint mode, a rotation shorter than its
// grace), each with a condition naming the field and the fix and one
// Warning Event, while correct requests beside them become Ready, one of
// them with a PolicyWarnings condition for a condition key that does
// nothing.
func TestOperatorRefusesBeforeIAM(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{RotationGrace: 10 * time.Minute}))

	refused := []struct {
		cr     *leashv1.CredentialsRequest
		reason string
		want   []string
	}{
		{request(t, "apps", "typo", "apps", "- effect: Allow\n  action: [\"ec2:DescribeImages\", \"ec2:DescribeInstancez\"]\n  resource: \"*\"\n"),
			"InvalidRequest", []string{"spec.providerSpec.statementEntries[0].action[1]: ", "did you mean ec2:DescribeInstances"}},
		{request(t, "apps", "service", "apps", "- effect: Allow\n  action: [\"ec2:DescribeImages\"]\n  resource: \"*\"\n- effect: Allow\n  action: [\"ecc2:DescribeInstances\"]\n  resource: \"*\"\n"),
			"InvalidRequest", []string{"spec.providerSpec.statementEntries[1].action: ", `"ecc2" is not a service prefix`, "did you mean ec2:DescribeInstances"}},
		{request(t, "apps", "bucket", "apps", "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"arn:aws:s3:::reports\"\n"),
			"InvalidRequest", []string{"spec.providerSpec.statementEntries[0].resource: ", "of no resource type that s3:GetObject accepts"}},
		{request(t, "apps", "deny-only", "apps", "- effect: Deny\n  action: [\"ec2:*\"]\n  resource: \"*\"\n"),
			"NothingAllowed", []string{"every entry is a Deny", "add an Allow entry"}},
		{request(t, "apps", "template", "${NAMESPACE}", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"),
			"UnrenderedTemplate", []string{"spec.secretRef.namespace: ", "the manifest is a template; replace ${NAMESPACE}"}},
		{stsRequest(t, "apps", "role-in-mint", "arn:aws:iam::"+account+":role/ccm", ""),
			"InvalidRequest", []string{"spec.providerSpec.stsIAMRoleARN: ", "Manual mode only", "leash.dev/mode: Manual"}},
		{func() *leashv1.CredentialsRequest {
			cr := request(t, "apps", "rotate-short", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n")
			cr.Annotations = map[string]string{operator.AnnotationRotateAfter: "5m"}
			return cr
		}(), "InvalidRequest", []string{"metadata.annotations[leash.dev/rotate-after]: 5m0s is shorter than the operator's rotation grace of 10m0s"}},
	}
	for _, r := range refused {
		cl.create(t, r.cr)
	}
	cl.create(t, request(t, "apps", "correct", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\", \"ec2:Describe*\"]\n  resource: \"*\"\n"))
	cl.create(t, request(t, "apps", "warned", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n  policyCondition:\n    StringEquals:\n      s3:prefix: home/\n"))

	for _, r := range refused {
		name := r.cr.Name
		cr := cl.waitCondition(t, "apps", name, leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, r.reason)
		msg := conditionOf(cr, leashv1.CredentialsProvisionFailure).Message
		for _, w := range r.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q does not say %q", name, msg, w)
			}
		}
		if c := conditionOf(cr, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse || c.Reason != r.reason {
			t.Errorf("%s: Ready %+v, want False with reason %s", name, c, r.reason)
		}
		if s := cl.secret(t, "apps", name+"-creds"); s != nil {
			t.Errorf("%s: Secret written for a refused request", name)
		}
	}
	correct := cl.waitReady(t, "apps", "correct")
	if c := conditionOf(correct, leashv1.PolicyWarnings); c != nil {
		t.Errorf("correct: PolicyWarnings %+v, want none", c)
	}
	warned := cl.waitReady(t, "apps", "warned")
	if c := conditionOf(warned, leashv1.PolicyWarnings); c == nil || c.Status != corev1.ConditionTrue ||
		!strings.Contains(c.Message, "spec.providerSpec.statementEntries[0].policyCondition.StringEquals.s3:prefix: condition key s3:prefix applies to none of the statement's actions") {
		t.Errorf("warned: PolicyWarnings %+v, want True naming the condition key", c)
	}

	// IAM holds the users of the two Ready requests, and none other.
	want := []string{userOf(t, correct), userOf(t, warned)}
	sort.Strings(want)
	got := cl.users(t, "/leash/")
	sort.Strings(got)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("IAM users %v, want only those of the Ready requests %v", got, want)
	}

	// One Warning Event per refused request, with its reason, and one for
	// the request with a warning.
	wantWarnings := map[string]string{"warned": "PolicyWarnings"}
	for _, r := range refused {
		wantWarnings[r.cr.Name] = r.reason
	}
	var warnings map[string][]corev1.Event
	waitFor(t, 20*time.Second, "a Warning Event for each refused or warned request", func() (bool, string) {
		warnings = warningEvents(t, cl, "apps")
		return len(warnings) == len(wantWarnings), fmt.Sprintf("Warnings for %d of %d requests", len(warnings), len(wantWarnings))
	})
	for name, reason := range wantWarnings {
		if w := warnings[name]; len(w) != 1 || w[0].Reason != reason {
			t.Errorf("%s: Warning Events %+v, want one with reason %s", name, w, reason)
		}
	}
}

// TestOperatorManualRoleMustExist pins that in Manual mode a request naming
// a role IAM does not have fails with RoleNotFound and gets no Secret and no
// principal, while one naming an existing role is Ready.
func TestOperatorManualRoleMustExist(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	ccm := cl.newRole(t, "ccm", "system:serviceaccount:apps:ccm",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{Mode: leashv1.ModeManual}))

	missing := "arn:aws:iam::" + account + ":role/no-such-role"
	cl.create(t, stsRequest(t, "apps", "missing", missing, ""))
	cl.create(t, stsRequest(t, "apps", "present", ccm, ""))

	cr := cl.waitCondition(t, "apps", "missing", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "RoleNotFound")
	msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message
	if !strings.Contains(msg, "spec.providerSpec.stsIAMRoleARN: role "+missing+" does not exist") || !strings.Contains(msg, "create the role") {
		t.Errorf("message %q: want it to name spec.providerSpec.stsIAMRoleARN, the role and the fix", msg)
	}
	if c := conditionOf(cr, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("Ready %+v, want False", c)
	}
	if s := cl.secret(t, "apps", "missing-creds"); s != nil {
		t.Error("a Secret was written for a role that does not exist")
	}
	if cr.Status.Principal != "" {
		t.Errorf("status.principal (kubectl's PRINCIPAL column) %q, want none for a role that does not exist", cr.Status.Principal)
	}
	present := cl.waitReady(t, "apps", "present")
	if present.Status.Principal != ccm || cl.secret(t, "apps", "present-creds") == nil {
		t.Errorf("present: principal %q and Secret; want %s and its Secret", present.Status.Principal, ccm)
	}
	waitFor(t, 20*time.Second, "a Warning Event for the missing role", func() (bool, string) {
		w := warningEvents(t, cl, "apps")["missing"]
		return len(w) == 1 && w[0].Reason == "RoleNotFound", fmt.Sprintf("%+v", w)
	})
	if w := warningEvents(t, cl, "apps")["present"]; len(w) != 0 {
		t.Errorf("present: Warning Events %+v, want none", w)
	}
}

// warningEvents lists the Warning Events of a namespace by the name of the
// object they are about, as kubectl get events --field-selector
// type=Warning shows them.
func warningEvents(t *testing.T, cl *cluster, ns string) map[string][]corev1.Event {
	t.Helper()
	var events corev1.EventList
	if err := cl.c.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	out := map[string][]corev1.Event{}
	for _, e := range events.Items {
		if e.Type == corev1.EventTypeWarning {
			out[e.InvolvedObject.Name] = append(out[e.InvolvedObject.Name], e)
		}
	}
	return out
}
