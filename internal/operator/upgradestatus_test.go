package operator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	leashv1alpha1 "leash.dev/leash/api/v1alpha1"
	"leash.dev/leash/internal/upgrade"
)

func TestUpgradeCondition(t *testing.T) {
	const user = "arn:aws:iam::111122223333:user/leash/e2e/ingress"
	ok := upgrade.Result{Namespace: "ns", Name: "ok", Principal: user, State: upgrade.OK}
	missing := upgrade.Result{Namespace: "ns", Name: "ingress", Principal: user, State: upgrade.Missing,
		Missing: []upgrade.Permission{{Action: "sts:AssumeRole", Resource: "*", Reason: "no statement allows it"}}}
	failed := upgrade.Result{Namespace: "ns", Name: "late", State: upgrade.Failed, Message: "has no principal in its status"}
	for _, tt := range []struct {
		name    string
		results []upgrade.Result
		status  metav1.ConditionStatus
		reason  string
		says    []string
	}{
		{"every request holding what it grants is True", []upgrade.Result{ok, {Name: "n", State: upgrade.New}, {Name: "i", State: upgrade.Ignored}},
			metav1.ConditionTrue, ReasonPermissionsHeld, []string{"3 CredentialsRequests", "1 ok, 1 new, 1 ignored"}},
		{"a missing permission is False naming the request, its principal and the permission", []upgrade.Result{ok, missing},
			metav1.ConditionFalse, ReasonPermissionsMissing, []string{"ns/ingress (" + user + ") lacks sts:AssumeRole on *", "Update each request to its next version"}},
		{"a missing permission is False even when another request failed, naming both", []upgrade.Result{failed, missing},
			metav1.ConditionFalse, ReasonPermissionsMissing, []string{"lacks sts:AssumeRole on *", "1 more could not be checked (ns/late: has no principal"}},
		{"a request not checked, none missing, is Unknown: its answer may be either", []upgrade.Result{ok, failed},
			metav1.ConditionUnknown, ReasonRequestsNotChecked, []string{"ns/late: has no principal in its status"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := upgradeCondition(tt.results)
			if c.Type != leashv1alpha1.Upgradeable || c.Status != tt.status || c.Reason != tt.reason {
				t.Errorf("%s=%s (%s); want %s (%s)", c.Type, c.Status, c.Reason, tt.status, tt.reason)
			}
			for _, s := range tt.says {
				if !strings.Contains(c.Message, s) {
					t.Errorf("message %q does not say %q", c.Message, s)
				}
			}
		})
	}
}

// TestUpgradeStatusUnchangedAnswer pins that a check finding what the last
// one found changes nothing, so that the status is not written: each
// answer keeps its observedAt and the condition its lastTransitionTime.
func TestUpgradeStatusUnchangedAnswer(t *testing.T) {
	results := []upgrade.Result{{Namespace: "ns", Name: "a", Principal: "arn:aws:iam::1:user/a", State: upgrade.Missing,
		Missing: []upgrade.Permission{{Action: "s3:GetObject", Resource: "*", Reason: "r"}}},
		{Namespace: "ns", Name: "b", State: upgrade.New, Message: "provisioned at upgrade"}}
	t0 := metav1.NewTime(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	first := upgradeStatus(leashv1alpha1.CredentialsUpgradeCheckStatus{}, "--next-requests /next", results, t0)
	t1 := metav1.NewTime(t0.Add(time.Hour))
	again := upgradeStatus(first, "--next-requests /next", results, t1)
	if !equality.Semantic.DeepEqual(first, again) {
		t.Errorf("the same answer an hour later changed the status:\n%+v\n%+v", first, again)
	}
	// b is now provisioned and holds what it grants: only its answer is new.
	results[1] = upgrade.Result{Namespace: "ns", Name: "b", Principal: "arn:aws:iam::1:user/b", State: upgrade.OK}
	changed := upgradeStatus(again, "--next-requests /next", results, t1)
	if got := changed.Requests[0].ObservedAt; !got.Equal(&t0) {
		t.Errorf("a's unchanged answer observedAt %v; want %v", got, t0)
	}
	if got := changed.Requests[1].ObservedAt; !got.Equal(&t1) {
		t.Errorf("b's new answer observedAt %v; want %v", got, t1)
	}
	if c := meta.FindStatusCondition(changed.Conditions, leashv1alpha1.Upgradeable); c.Status != metav1.ConditionFalse || !c.LastTransitionTime.Equal(&t0) {
		t.Errorf("Upgradeable %s since %v; want False since %v, as a still lacks a permission", c.Status, c.LastTransitionTime, t0)
	}
	failed := failedStatus(changed, "--next-requests /next", errors.New("IAM unreachable"), t1)
	if c := meta.FindStatusCondition(failed.Conditions, leashv1alpha1.Upgradeable); c.Status != metav1.ConditionUnknown || c.Reason != ReasonUpgradeCheckFailed || !strings.Contains(c.Message, "IAM unreachable") {
		t.Errorf("a failed check: %+v; want Unknown %s with the error", c, ReasonUpgradeCheckFailed)
	}
	if len(failed.Requests) != 2 {
		t.Errorf("a failed check kept %d answers; want the last 2", len(failed.Requests))
	}
}

func TestNextRequestSourcesLoad(t *testing.T) {
	const manifest = `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata:
  name: %s
  namespace: apps
spec:
  secretRef: {name: s, namespace: apps}
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(strings.ReplaceAll(manifest, "%s", "a")), 0o600); err != nil {
		t.Fatal(err)
	}
	nn := types.NamespacedName{Namespace: "leash-system", Name: "next"}
	cm := func(data map[string]string) *corev1.ConfigMap { return &corev1.ConfigMap{Data: data} }
	for _, tt := range []struct {
		name    string
		sources NextRequestSources
		cm      *corev1.ConfigMap
		want    []string
		err     string
	}{
		{"a folder's requests", NextRequestSources{Dir: dir}, nil, []string{"apps/a"}, ""},
		{"a ConfigMap's values, key by key, after the folder's", NextRequestSources{Dir: dir, ConfigMap: nn},
			cm(map[string]string{"c.yaml": strings.ReplaceAll(manifest, "%s", "c"), "b.yaml": strings.ReplaceAll(manifest, "%s", "b")}),
			[]string{"apps/a", "apps/b", "apps/c"}, ""},
		{"a request in both is refused naming both places", NextRequestSources{Dir: dir, ConfigMap: nn},
			cm(map[string]string{"x.yaml": strings.ReplaceAll(manifest, "%s", "a")}), nil, "ConfigMap leash-system/next key x.yaml: CredentialsRequest apps/a is also in --next-requests " + dir},
		{"a missing ConfigMap says how to make it", NextRequestSources{ConfigMap: nn}, nil, nil, "kubectl create configmap -n leash-system next --from-file=DIR"},
		{"a ConfigMap without a request says so", NextRequestSources{ConfigMap: nn}, cm(map[string]string{"notes": "hello: world"}), nil, "holds no CredentialsRequest manifest"},
		{"a value that is not YAML names its key", NextRequestSources{ConfigMap: nn}, cm(map[string]string{"bad.yaml": "a: [b"}), nil, "ConfigMap leash-system/next key bad.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			crs, err := tt.sources.load(tt.cm)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v; want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cr := range crs {
				got = append(got, cr.Namespace+"/"+cr.Name)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("read %v; want %v", got, tt.want)
			}
		})
	}
}
