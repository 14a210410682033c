package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/cloudtrail"
	"leash.dev/leash/internal/operator"
)

// TestOperatorUsage: with a trail to read (leash local's audit log here),
// each sync sets status.usage, the UnusedPermissions condition and the
// usage metrics of a request from the calls its minted user made, through
// the AWS SDK. Calls made after a sync show at the next one; refused calls
// count for nothing; Ready is never touched.
func TestOperatorUsage(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	o := cl.operatorOptions(operator.Config{})
	reg := prometheus.NewRegistry()
	o.Registry = reg
	o.Usage = &operator.Usage{Source: cloudtrail.LocalLog{Dir: cl.dataDir}}
	_, _ = cl.runOperator(t, o)

	cl.create(t, request(t, "apps", "auditor", "apps", `- effect: Allow
  action: ["iam:ListUsers", "iam:GetUser", "iam:ListRoles"]
  resource: "*"
`))
	ready := cl.waitReady(t, "apps", "auditor")
	readySince := condition(ready, leashv1.Ready).LastTransitionTime

	// Nothing used yet: all three unused.
	cr := cl.waitCondition(t, "apps", "auditor", leashv1.UnusedPermissions, corev1.ConditionTrue, operator.ReasonPermissionsUnused)
	if u := cr.Status.Usage; u == nil || !slices.Equal(u.Unused, []string{"iam:ListUsers", "iam:GetUser", "iam:ListRoles"}) || len(u.Used) != 0 || u.LastUsed != nil {
		t.Fatalf("status.usage before any call: %+v", cr.Status.Usage)
	}

	controller := cl.iamAs(t, secretKey(t, cl.secret(t, "apps", "auditor-creds")))
	syncs := func() float64 {
		var n float64
		for k, v := range gatherMetrics(t, reg) {
			if strings.HasPrefix(k, "leash_reconcile_duration_seconds_count{") {
				n += v
			}
		}
		return n
	}
	if _, err := controller.ListUsers(ctx, &iam.ListUsersInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := controller.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String("mallory")}); err == nil {
		t.Fatal("CreateUser by the request's user was allowed")
	}
	called, before := time.Now(), syncs()
	waitFor(t, time.Minute, "status.usage to show iam:ListUsers used", func() (bool, string) {
		cr = cl.get(t, "apps", "auditor")
		u := cr.Status.Usage
		out, _ := yaml.Marshal(cr.Status)
		return u != nil && slices.Equal(u.Used, []string{"iam:ListUsers"}), string(out)
	})
	// Within one sync: the one in flight when the calls were made, if any,
	// may not show them; the next one does.
	if n := syncs() - before; n > 2 {
		t.Errorf("the calls showed after %v syncs, want at most 2 (one in flight, then the next)", n)
	}
	u := cr.Status.Usage
	if !slices.Equal(u.Unused, []string{"iam:GetUser", "iam:ListRoles"}) || u.LastUsed == nil || u.LastUsed.Time.Before(called.Add(-5*time.Second)) {
		t.Errorf("status.usage after ListUsers (and a refused CreateUser): %+v", u)
	}
	if c := condition(cr, leashv1.UnusedPermissions); c == nil || c.Status != corev1.ConditionTrue || !strings.Contains(c.Message, "2 actions the request allows were not used since") ||
		!strings.Contains(c.Message, "iam:GetUser, iam:ListRoles") || !strings.Contains(c.Message, "leash audit --request apps/auditor --propose") {
		t.Errorf("UnusedPermissions: %+v", c)
	}
	m := gatherMetrics(t, reg)
	if m[`leash_credentials_request_actions{name="auditor",namespace="apps",state="used"}`] != 1 ||
		m[`leash_credentials_request_actions{name="auditor",namespace="apps",state="unused"}`] != 2 ||
		m[`leash_credentials_request_last_used_timestamp_seconds{name="auditor",namespace="apps"}`] != float64(u.LastUsed.Unix()) {
		t.Errorf("usage metrics:\n%s", metricsText(m))
	}

	for _, call := range []func() error{
		func() error { _, err := controller.GetUser(ctx, &iam.GetUserInput{}); return err },
		func() error { _, err := controller.ListRoles(ctx, &iam.ListRolesInput{}); return err },
	} {
		if err := call(); err != nil {
			t.Fatal(err)
		}
	}
	cr = cl.waitCondition(t, "apps", "auditor", leashv1.UnusedPermissions, corev1.ConditionFalse, operator.ReasonAllPermissionsUsed)
	if u := cr.Status.Usage; !slices.Equal(u.Used, []string{"iam:GetUser", "iam:ListRoles", "iam:ListUsers"}) || len(u.Unused) != 0 {
		t.Errorf("status.usage after every action was called: %+v", u)
	}
	if m := gatherMetrics(t, reg); m[`leash_credentials_request_actions{name="auditor",namespace="apps",state="unused"}`] != 0 {
		t.Errorf("unused actions metric after every action was called:\n%s", metricsText(m))
	}
	// Ready never moved.
	if c := condition(cr, leashv1.Ready); c == nil || c.Status != corev1.ConditionTrue || !c.LastTransitionTime.Equal(&readySince) {
		t.Errorf("Ready changed while usage was read: %+v (True since %v before)", c, readySince)
	}
}

func condition(cr *leashv1.CredentialsRequest, t leashv1.CredentialsRequestConditionType) *leashv1.CredentialsRequestCondition {
	for i := range cr.Status.Conditions {
		if cr.Status.Conditions[i].Type == t {
			return &cr.Status.Conditions[i]
		}
	}
	return nil
}
