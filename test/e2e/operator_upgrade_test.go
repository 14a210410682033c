package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	leashv1alpha1 "leash.dev/leash/api/v1alpha1"
	"leash.dev/leash/internal/operator"
)

// TestOperatorUpgradeable runs OpenShift's upgrade question in the
// operator: a cluster whose ingress operator's request is at its older
// version (testdata/openshift-previous) is given the next release's
// manifest in a ConfigMap. The operator's CredentialsUpgradeCheck must say
// Upgradeable=False naming exactly the one permission the newer version
// adds, sts:AssumeRole on *, with leash_upgradeable 0; once the request is
// updated to its next version and provisioned, Upgradeable=True. The
// request stays Ready throughout: the check never touches it.
func TestOperatorUpgradeable(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	for _, ns := range []string{openshiftNS, "openshift-ingress-operator", "leash-system"} {
		cl.namespace(t, ns)
	}
	const ingress = "openshift-ingress"
	previous := ingressRequests(t, filepath.Join("testdata", "openshift-previous", "cluster-ingress-operator.yaml"))
	nextFile := filepath.Join(openshiftDir, "cluster-ingress-operator.yaml")
	next := ingressRequests(t, nextFile)
	for _, cr := range previous {
		cl.create(t, cr)
	}
	manifest, err := os.ReadFile(nextFile)
	if err != nil {
		t.Fatal(err)
	}
	cmKey := types.NamespacedName{Namespace: "leash-system", Name: "next-release"}
	cl.create(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cmKey.Namespace, Name: cmKey.Name},
		Data: map[string]string{"cluster-ingress-operator.yaml": string(manifest)}})

	o := cl.operatorOptions(operator.Config{})
	o.NextRequests = operator.NextRequestSources{ConfigMap: cmKey}
	reg := o.Registry.(*prometheus.Registry)
	cl.runOperator(t, o)
	cr := cl.waitReady(t, openshiftNS, ingress)
	user := cr.Status.Principal

	// The older version lacks what the next one adds, and nothing else;
	// the other clouds' requests are ignored.
	check := waitUpgradeable(t, cl, metav1.ConditionFalse, operator.ReasonPermissionsMissing)
	got := upgradeAnswers(check)
	want := map[string]string{ingress: "missing", "openshift-ingress-azure": "ignored", "openshift-ingress-gcp": "ignored",
		"openshift-ingress-ibmcloud": "ignored", "openshift-ingress-powervs": "ignored"}
	if !equalAnswers(got, want) {
		t.Errorf("answers %v; want %v", got, want)
	}
	r := upgradeRequest(t, check, ingress)
	if len(r.Missing) != 1 || r.Missing[0].Action != "sts:AssumeRole" || r.Missing[0].Resource != "*" || r.Missing[0].Reason == "" {
		t.Errorf("%s missing %+v; want exactly sts:AssumeRole on *, with the engine's reason", ingress, r.Missing)
	}
	if r.Principal != user {
		t.Errorf("%s checked against %q; want its status.principal %q", ingress, r.Principal, user)
	}
	c := meta.FindStatusCondition(check.Status.Conditions, leashv1alpha1.Upgradeable)
	if wantMsg := openshiftNS + "/" + ingress + " (" + user + ") lacks sts:AssumeRole on *"; !strings.Contains(c.Message, wantMsg) {
		t.Errorf("Upgradeable message %q; want it to name %q", c.Message, wantMsg)
	}
	if check.Status.Source != "--next-requests-configmap "+cmKey.String() {
		t.Errorf("status.source %q; want the ConfigMap named", check.Status.Source)
	}
	waitMetrics(t, reg, 0, 1)
	stillReady(t, cl, ingress)

	// The upgrade's new manifest applied: the operator provisions it, and
	// the check finds every permission held.
	upd := cl.get(t, openshiftNS, ingress)
	upd.Spec.ProviderSpec = next[ingress].Spec.ProviderSpec
	if err := cl.c.Update(ctx, upd); err != nil {
		t.Fatal(err)
	}
	check = waitUpgradeable(t, cl, metav1.ConditionTrue, operator.ReasonPermissionsHeld)
	if r := upgradeRequest(t, check, ingress); r.State != leashv1alpha1.UpgradeOK || len(r.Missing) != 0 || r.Principal != user {
		t.Errorf("%s after the update: %+v; want ok against %s, nothing missing", ingress, r, user)
	}
	waitMetrics(t, reg, 1, 0)
	stillReady(t, cl, ingress)
	if cr := cl.get(t, openshiftNS, ingress); cr.Status.LastSyncGeneration != cr.Generation {
		t.Errorf("Upgradeable turned True before the updated request was provisioned (generation %d, last synced %d)", cr.Generation, cr.Status.LastSyncGeneration)
	}

	// The next requests gone: the check cannot tell, and says where to put
	// them; the answers last found stay.
	if err := cl.c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: cmKey.Namespace, Name: cmKey.Name}}); err != nil {
		t.Fatal(err)
	}
	check = waitUpgradeable(t, cl, metav1.ConditionUnknown, operator.ReasonUpgradeCheckFailed)
	if c := meta.FindStatusCondition(check.Status.Conditions, leashv1alpha1.Upgradeable); !strings.Contains(c.Message, "ConfigMap "+cmKey.String()) || !strings.Contains(c.Message, "kubectl create configmap") {
		t.Errorf("Upgradeable message %q; want it to name the missing ConfigMap and how to make it", c.Message)
	}
	if len(check.Status.Requests) != len(want) {
		t.Errorf("status.requests after a failed check: %d; want the %d last found", len(check.Status.Requests), len(want))
	}
	waitMetrics(t, reg, 0, 0)
	stillReady(t, cl, ingress)
}

// ingressRequests reads a manifest file's requests by name, as the API
// server takes them: without the UID leash apply derives.
func ingressRequests(t *testing.T, path string) map[string]*leashv1.CredentialsRequest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crs, err := operator.ParseRequests(path, data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*leashv1.CredentialsRequest{}
	for _, cr := range crs {
		cr.UID = ""
		out[cr.Name] = cr
	}
	return out
}

// waitUpgradeable waits until CredentialsUpgradeCheck cluster's
// Upgradeable condition has status and reason.
func waitUpgradeable(t *testing.T, cl *cluster, status metav1.ConditionStatus, reason string) *leashv1alpha1.CredentialsUpgradeCheck {
	t.Helper()
	var check *leashv1alpha1.CredentialsUpgradeCheck
	waitFor(t, 60*time.Second, fmt.Sprintf("Upgradeable=%s (%s)", status, reason), func() (bool, string) {
		check = &leashv1alpha1.CredentialsUpgradeCheck{}
		if err := cl.c.Get(context.Background(), types.NamespacedName{Name: leashv1alpha1.UpgradeCheckName}, check); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(check.Status.Conditions, leashv1alpha1.Upgradeable)
		if c != nil && c.Status == status && c.Reason == reason {
			return true, ""
		}
		out, _ := yaml.Marshal(check.Status)
		return false, string(out)
	})
	return check
}

func upgradeAnswers(check *leashv1alpha1.CredentialsUpgradeCheck) map[string]string {
	out := map[string]string{}
	for _, r := range check.Status.Requests {
		out[r.Name] = string(r.State)
	}
	return out
}

func equalAnswers(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func upgradeRequest(t *testing.T, check *leashv1alpha1.CredentialsUpgradeCheck, name string) leashv1alpha1.UpgradeRequestStatus {
	t.Helper()
	i := slices.IndexFunc(check.Status.Requests, func(r leashv1alpha1.UpgradeRequestStatus) bool {
		return r.Namespace == openshiftNS && r.Name == name
	})
	if i < 0 {
		t.Fatalf("status.requests has no %s/%s: %+v", openshiftNS, name, check.Status.Requests)
	}
	return check.Status.Requests[i]
}

// waitMetrics waits until leash_upgradeable and
// leash_upgrade_missing_permissions read up and missing.
func waitMetrics(t *testing.T, reg *prometheus.Registry, up, missing float64) {
	t.Helper()
	waitFor(t, 10*time.Second, fmt.Sprintf("leash_upgradeable %v, leash_upgrade_missing_permissions %v", up, missing), func() (bool, string) {
		m := gatherMetrics(t, reg)
		return m["leash_upgradeable"] == up && m["leash_upgrade_missing_permissions"] == missing,
			fmt.Sprintf("leash_upgradeable %v, leash_upgrade_missing_permissions %v", m["leash_upgradeable"], m["leash_upgrade_missing_permissions"])
	})
}

// stillReady fails unless the request is Ready with no failure condition:
// the upgrade check reads requests and never changes one.
func stillReady(t *testing.T, cl *cluster, name string) {
	t.Helper()
	cr := cl.get(t, openshiftNS, name)
	for _, c := range cr.Status.Conditions {
		if c.Type == leashv1.Ready && c.Status != corev1.ConditionTrue {
			t.Errorf("%s Ready is %s (%s: %s); want True throughout", name, c.Status, c.Reason, c.Message)
		}
		if slices.Contains(leashv1.FailureConditionTypes, c.Type) && c.Status == corev1.ConditionTrue {
			t.Errorf("%s has %s True (%s: %s)", name, c.Type, c.Reason, c.Message)
		}
	}
}
