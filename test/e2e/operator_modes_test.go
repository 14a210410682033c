package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
)

// TestPassthrough copies a root key that leash local shows to carry the
// requested permissions, refuses requests it does not cover, and follows a
// rotation of the root key.
func TestPassthrough(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	cl.namespace(t, "kube-system")

	rootARN, rootKey := cl.newUser(t, "root-a", map[string]string{
		"workload": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"},
			{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`,
		// One queue only, so that a request for a pattern of queues is
		// covered only partly.
		"queue": `{"Version":"2012-10-17","Statement":[
			{"Effect":"Allow","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-east-1:` + account + `:krops-a"}]}`,
	})
	rootRef := types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
	cl.writeKeySecret(t, rootRef, map[string]string{
		"aws_access_key_id": rootKey.ID, "aws_secret_access_key": rootKey.Secret.Reveal()})

	o := cl.operatorOptions(operator.Config{Mode: leashv1.ModePassthrough})
	o.RootFile, o.RootSecret = "", rootRef
	_, _ = cl.runOperator(t, o)

	// a. A request the root covers gets the root's key.
	cl.create(t, request(t, "apps", "covered", "apps", `- effect: Allow
  action: ["ec2:DescribeInstances"]
  resource: "*"
- effect: Allow
  action: ["s3:GetObject"]
  resource: "arn:aws:s3:::bucket/*"
`))
	// The exact queue the root may use is covered too.
	cl.create(t, request(t, "apps", "one-queue", "apps", `- effect: Allow
  action: ["sqs:SendMessage"]
  resource: "arn:aws:sqs:us-east-1:`+account+`:krops-a"
`))
	// A root key that may not read its own policies cannot be checked: the
	// request says so and what to grant, and no Secret is written.
	cr := cl.waitCondition(t, "apps", "covered", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "PermissionsUnknown")
	if msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message; !strings.Contains(msg, rootARN) || !strings.Contains(msg, "iam:SimulatePrincipalPolicy") {
		t.Errorf("message %q: want it to name the root principal and what to grant", msg)
	}
	if s := cl.secret(t, "apps", "covered-creds"); s != nil {
		t.Error("a Secret was written before the root's permissions were checked")
	}
	if _, err := cl.admin.PutUserPolicy(context.Background(), &iam.PutUserPolicyInput{UserName: aws.String("root-a"), PolicyName: aws.String("self"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
			"Action":["iam:GetUser","iam:ListUserPolicies","iam:GetUserPolicy","iam:ListAttachedUserPolicies","iam:ListGroupsForUser"],
			"Resource":"` + rootARN + `"}]}`)}); err != nil {
		t.Fatal(err)
	}
	cr = cl.waitReady(t, "apps", "covered")
	if cr.Status.Mode != leashv1.ModePassthrough || cr.Status.Principal != rootARN {
		t.Errorf("status: mode %q principal %q, want Passthrough and %s", cr.Status.Mode, cr.Status.Principal, rootARN)
	}
	if got := secretKey(t, cl.secret(t, "apps", "covered-creds")).ID; got != rootKey.ID {
		t.Errorf("passthrough Secret holds key %s, want the root's %s", got, rootKey.ID)
	}
	if userOfStatus(cr) != "" {
		t.Error("a passthrough request recorded a minted user in status.providerStatus")
	}
	cl.waitReady(t, "apps", "one-queue")

	// b. A permission the root lacks, next to one it has under a condition;
	// and a resource pattern the root covers only in part.
	cl.create(t, request(t, "apps", "too-much", "apps", `- effect: Allow
  action: ["iam:CreateUser"]
  resource: "*"
- effect: Allow
  action: ["s3:GetObject"]
  resource: "*"
  policyCondition:
    StringEquals:
      aws:RequestedRegion: ["eu-north-1"]
`))
	cl.create(t, request(t, "apps", "all-queues", "apps", `- effect: Allow
  action: ["sqs:SendMessage"]
  resource: "arn:aws:sqs:us-east-1:`+account+`:krops-*"
`))
	cr = cl.waitCondition(t, "apps", "too-much", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "RootLacksPermissions")
	msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message
	if !strings.Contains(msg, "iam:CreateUser") || strings.Contains(msg, "s3:GetObject") {
		t.Errorf("message %q: want it to name iam:CreateUser and not s3:GetObject, which the root has", msg)
	}
	if c := conditionOf(cr, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("Ready = %+v, want False", c)
	}
	cr = cl.waitCondition(t, "apps", "all-queues", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "RootLacksPermissions")
	if msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message; !strings.Contains(msg, "krops-*") {
		t.Errorf("message %q: want it to name the resource pattern krops-*", msg)
	}
	for _, name := range []string{"too-much-creds", "all-queues-creds"} {
		if s := cl.secret(t, "apps", name); s != nil {
			t.Errorf("Secret apps/%s was written for a request the root does not cover", name)
		}
	}

	// c. A new root key reaches the passthrough Secret.
	newRoot := cl.newKey(t, "root-a")
	cl.writeKeySecret(t, rootRef, map[string]string{
		"aws_access_key_id": newRoot.ID, "aws_secret_access_key": newRoot.Secret.Reveal()})
	start := time.Now()
	waitFor(t, 30*time.Second, "the passthrough Secret to carry the new root key "+newRoot.ID, func() (bool, string) {
		s := cl.secret(t, "apps", "covered-creds")
		if s == nil {
			return false, "no Secret"
		}
		id := string(s.Data["aws_access_key_id"])
		return id == newRoot.ID, "key " + id
	})
	t.Logf("root rotation reached the passthrough Secret in %v", time.Since(start).Round(time.Millisecond))
	if s := cl.secret(t, "apps", "covered-creds"); !strings.Contains(string(s.Data["credentials"]), "aws_access_key_id = "+newRoot.ID+"\n") {
		t.Error("the Secret's credentials file does not carry the new root key")
	}
	if cr := cl.get(t, "apps", "covered"); cr.Status.Principal != rootARN {
		t.Errorf("status.principal after rotation = %q, want %s", cr.Status.Principal, rootARN)
	}
	cl.waitCondition(t, "apps", "too-much", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "RootLacksPermissions")
	if s := cl.secret(t, "apps", "too-much-creds"); s != nil {
		t.Error("the root rotation wrote a Secret for a request the root does not cover")
	}
}

// TestManual checks an administrator's Secret without ever writing it:
// missing, half a key, a key without the permission, then one with it.
func TestManual(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{Mode: leashv1.ModeManual}))

	cl.create(t, request(t, "apps", "ctl", "apps", `- effect: Allow
  action: ["iam:GetUser"]
  resource: "*"
`))
	ref := types.NamespacedName{Namespace: "apps", Name: "ctl-creds"}

	// a. No Secret.
	cr := cl.waitCondition(t, "apps", "ctl", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "SecretMissing")
	if c := conditionOf(cr, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("Ready = %+v, want False", c)
	}
	if cr.Status.Mode != leashv1.ModeManual {
		t.Errorf("status.mode = %q, want Manual", cr.Status.Mode)
	}

	// b. Half a key. The operator watches the Secrets Manual requests name.
	ctlARN, ctlKey := cl.newUser(t, "ctl", nil)
	cl.writeKeySecret(t, ref, map[string]string{"aws_access_key_id": ctlKey.ID})
	start := time.Now()
	cr = cl.waitCondition(t, "apps", "ctl", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "SecretMalformed")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the half key was noticed after %v; a failed request is rechecked every 2 s", took.Round(time.Millisecond))
	} else {
		t.Logf("the half key was noticed after %v", took.Round(time.Millisecond))
	}
	if msg := conditionOf(cr, leashv1.CredentialsProvisionFailure).Message; !strings.Contains(msg, "aws_secret_access_key") ||
		!strings.Contains(msg, "missing") {
		t.Errorf("message %q: want it to say that aws_secret_access_key is missing", msg)
	}

	// c. A whole key of a user without the permission.
	cl.writeKeySecret(t, ref, map[string]string{"aws_access_key_id": ctlKey.ID, "aws_secret_access_key": ctlKey.Secret.Reveal()})
	cr = cl.waitCondition(t, "apps", "ctl", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "MissingPermissions")
	if msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message; !strings.Contains(msg, "iam:GetUser") {
		t.Errorf("message %q: want it to name iam:GetUser", msg)
	}
	if c := conditionOf(cr, leashv1.CredentialsProvisionFailure); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("CredentialsProvisionFailure = %+v, want False once the Secret is whole", c)
	}
	if cr.Status.Principal != ctlARN {
		t.Errorf("status.principal = %q, want %s", cr.Status.Principal, ctlARN)
	}
	before := cl.secret(t, ref.Namespace, ref.Name).ResourceVersion

	// d. Granting the permission makes the request Ready.
	if _, err := cl.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String("ctl"), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"iam:GetUser","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	cr = cl.waitReady(t, "apps", "ctl")
	// Not after the root's one-minute permission cache expires: a cached
	// denial is confirmed against IAM before it is reported.
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the grant was noticed after %v; a failed request is rechecked every 2 s", took.Round(time.Millisecond))
	} else {
		t.Logf("the grant was noticed after %v", took.Round(time.Millisecond))
	}
	if c := conditionOf(cr, leashv1.InsufficientCloudCredentials); c == nil || c.Status != corev1.ConditionFalse {
		t.Errorf("InsufficientCloudCreds = %+v, want False after the grant", c)
	}
	if !cr.Status.Provisioned || cr.Status.Principal != ctlARN {
		t.Errorf("status: provisioned %v principal %q, want true and %s", cr.Status.Provisioned, cr.Status.Principal, ctlARN)
	}
	// A few rechecks later the administrator's Secret is still as written.
	time.Sleep(5 * time.Second)
	s := cl.secret(t, ref.Namespace, ref.Name)
	if s.ResourceVersion != before {
		t.Errorf("the operator modified the administrator's Secret (resourceVersion %s, then %s)", before, s.ResourceVersion)
	}
	if len(s.Labels) != 0 || len(s.Annotations) != 0 || len(s.OwnerReferences) != 0 || len(s.Finalizers) != 0 {
		t.Errorf("the administrator's Secret gained metadata: labels %v annotations %v", s.Labels, s.Annotations)
	}
	if got := string(s.Data["aws_access_key_id"]); got != ctlKey.ID || len(s.Data) != 2 {
		t.Errorf("the administrator's Secret holds key %s and %d entries, want %s and 2", got, len(s.Data), ctlKey.ID)
	}

	// Deleting a Manual request leaves the Secret alone.
	if err := cl.c.Delete(ctx, cl.get(t, "apps", "ctl")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the request to be gone", func() (bool, string) {
		err := cl.c.Get(ctx, types.NamespacedName{Namespace: "apps", Name: "ctl"}, &leashv1.CredentialsRequest{})
		return apierrors.IsNotFound(err), ""
	})
	if s := cl.secret(t, ref.Namespace, ref.Name); s == nil || s.ResourceVersion != before {
		t.Error("deleting a Manual request deleted or changed the administrator's Secret")
	}
}

// TestSTS writes web-identity configuration for a role instead of a key,
// checks the role's permissions with the root credentials, and takes the
// Secret back with the request.
func TestSTS(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	describe := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`
	ccm := cl.newRole(t, "ccm", "system:serviceaccount:apps:ccm", describe)
	bare := cl.newRole(t, "ccm-bare", "system:serviceaccount:apps:bare",
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListAllMyBuckets","Resource":"*"}]}`)
	if ccm != "arn:aws:iam::"+account+":role/ccm" {
		t.Fatalf("role ARN %s", ccm)
	}
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{Mode: leashv1.ModeManual}))

	cl.create(t, stsRequest(t, "apps", "ccm", ccm, ""))
	cr := cl.waitReady(t, "apps", "ccm")
	// The documented mode: Manual, with the role as the principal.
	if cr.Status.Mode != leashv1.ModeManual || cr.Status.Principal != ccm || !cr.Status.Provisioned {
		t.Errorf("status: mode %q principal %q provisioned %v, want Manual, %s, true", cr.Status.Mode, cr.Status.Principal, cr.Status.Provisioned, ccm)
	}
	s := cl.secret(t, "apps", "ccm-creds")
	if s == nil {
		t.Fatal("no Secret for the STS request")
	}
	want := "[default]\nrole_arn = " + ccm + "\nweb_identity_token_file = /var/run/secrets/openshift/serviceaccount/token\nsts_regional_endpoints = regional\n"
	if got := string(s.Data["credentials"]); got != want {
		t.Errorf("credentials =\n%s\nwant\n%s", got, want)
	}
	if _, ok := s.Data["aws_access_key_id"]; ok {
		t.Error("an STS Secret holds aws_access_key_id")
	}
	if _, ok := s.Data["aws_secret_access_key"]; ok {
		t.Error("an STS Secret holds aws_secret_access_key")
	}
	if s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/ccm" {
		t.Errorf("Secret annotations %v, want the request's", s.Annotations)
	}

	// A token path of its own, and a role without the permission: the
	// Secret is written, and the role's lack reported.
	cl.create(t, stsRequest(t, "apps", "bare", bare, "/var/run/secrets/tokens/aws"))
	cr = cl.waitCondition(t, "apps", "bare", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "RoleLacksPermissions")
	if msg := conditionOf(cr, leashv1.InsufficientCloudCredentials).Message; !strings.Contains(msg, "ec2:DescribeInstances") || !strings.Contains(msg, bare) {
		t.Errorf("message %q: want it to name ec2:DescribeInstances and the role", msg)
	}
	if cr.Status.Mode != leashv1.ModeManual {
		t.Errorf("status.mode = %q, want Manual", cr.Status.Mode)
	}
	s = cl.secret(t, "apps", "bare-creds")
	if s == nil {
		t.Fatal("no Secret for the STS request whose role lacks permissions")
	}
	want = "[default]\nrole_arn = " + bare + "\nweb_identity_token_file = /var/run/secrets/tokens/aws\nsts_regional_endpoints = regional\n"
	if got := string(s.Data["credentials"]); got != want {
		t.Errorf("credentials =\n%s\nwant\n%s", got, want)
	}

	// Deleting the first request deletes its Secret, and only its.
	if err := cl.c.Delete(ctx, cl.get(t, "apps", "ccm")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the request and its Secret to be gone", func() (bool, string) {
		err := cl.c.Get(ctx, types.NamespacedName{Namespace: "apps", Name: "ccm"}, &leashv1.CredentialsRequest{})
		return apierrors.IsNotFound(err) && cl.secret(t, "apps", "ccm-creds") == nil, ""
	})
	if cl.secret(t, "apps", "bare-creds") == nil {
		t.Error("deleting one STS request deleted another's Secret")
	}
}

// TestKubectlColumnsAndDescribe reads requests the way an administrator
// does, with kubectl: the printer columns and describe's conditions.
func TestKubectlColumnsAndDescribe(t *testing.T) {
	kubectl := apiserver.Kubectl(t)
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))

	cl.create(t, request(t, "apps", "reader", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cl.create(t, request(t, "apps", "lost", "nowhere", "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n"))
	ready := cl.waitReady(t, "apps", "reader")
	cl.waitCondition(t, "apps", "lost", leashv1.MissingTargetNamespace, corev1.ConditionTrue, "NamespaceNotFound")
	key := secretKey(t, cl.secret(t, "apps", "reader-creds"))

	kubeconfig := cl.api.Kubeconfig(t, "e2e-admin")
	dir := filepath.Dir(kubeconfig)
	args := []string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(dir, "cache")}

	table := kubectlOutput(t, kubectl, append(args, "get", "credentialsrequests", "-A")...)
	t.Logf("kubectl get credentialsrequests -A:\n%s", table)
	lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
	if got := strings.Fields(lines[0]); strings.Join(got, " ") != "NAMESPACE NAME MODE READY PRINCIPAL AGE" {
		t.Errorf("header %q, want NAMESPACE NAME MODE READY PRINCIPAL AGE", lines[0])
	}
	rows := map[string][]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) >= 2 {
			rows[f[0]+"/"+f[1]] = f
		}
	}
	if r := rows["apps/reader"]; len(r) != 6 || r[2] != "Mint" || r[3] != "True" || r[4] != ready.Status.Principal {
		t.Errorf("row of apps/reader = %q, want Mint True %s AGE", r, ready.Status.Principal)
	}
	if r := rows["apps/lost"]; len(r) < 5 || r[2] != "Mint" || r[3] != "False" {
		t.Errorf("row of apps/lost = %q, want Mint False", r)
	}

	described := kubectlOutput(t, kubectl, append(args, "describe", "credentialsrequest", "-n", "apps", "lost")...)
	t.Logf("kubectl describe credentialsrequest -n apps lost:\n%s", described)
	for _, want := range []string{"MissingTargetNamespace", "NamespaceNotFound", "namespace nowhere of spec.secretRef does not exist; create it"} {
		if !strings.Contains(described, want) {
			t.Errorf("kubectl describe does not show %q", want)
		}
	}
	for name, out := range map[string]string{"get": table, "describe": described} {
		if strings.Contains(out, key.Secret.Reveal()) {
			t.Errorf("kubectl %s shows the Secret's secret access key", name)
		}
	}
	readyDescribed := kubectlOutput(t, kubectl, append(args, "describe", "credentialsrequest", "-n", "apps", "reader")...)
	if strings.Contains(readyDescribed, key.Secret.Reveal()) {
		t.Error("kubectl describe of the Ready request shows the Secret's secret access key")
	}
	if !strings.Contains(readyDescribed, ready.Status.Principal) {
		t.Errorf("kubectl describe of the Ready request does not show its principal %s", ready.Status.Principal)
	}
}

// TestOperatorMetrics reads the operator's metrics after one minted request.
func TestOperatorMetrics(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	reg := prometheus.NewRegistry()
	o := cl.operatorOptions(operator.Config{})
	o.Registry = reg
	_, metrics := cl.runOperator(t, o)
	if metrics == nil {
		t.Fatal("runOperator returned no metrics")
	}
	cl.create(t, request(t, "apps", "reader", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cl.waitReady(t, "apps", "reader")

	var got map[string]float64
	waitFor(t, 10*time.Second, "the metrics of one Ready minted request", func() (bool, string) {
		got = gatherMetrics(t, reg)
		return got[`leash_credentials_requests{condition="Ready",mode="Mint"}`] == 1 &&
			got["leash_oldest_access_key_age_seconds"] > 0, metricsText(got)
	})
	t.Logf("metrics:\n%s", metricsText(got))
	if n := got[`leash_credentials_requests{condition="Ready",mode="Mint"}`]; n != 1 {
		t.Errorf(`leash_credentials_requests{mode="Mint",condition="Ready"} = %v, want 1`, n)
	}
	for _, op := range []string{"CreateUser", "CreateAccessKey"} {
		if n := got[`leash_iam_calls_total{code="OK",operation="`+op+`"}`]; n < 1 {
			t.Errorf(`leash_iam_calls_total{operation=%q,code="OK"} = %v, want at least 1`, op, n)
		}
	}
	var observed float64
	for k, v := range got {
		if strings.HasPrefix(k, "leash_reconcile_duration_seconds_count{") {
			observed += v
		}
	}
	if observed < 1 {
		t.Error("leash_reconcile_duration_seconds has no observations")
	}
	if age := got["leash_oldest_access_key_age_seconds"]; age <= 0 {
		t.Errorf("leash_oldest_access_key_age_seconds = %v, want > 0", age)
	}
}

// gatherMetrics flattens a registry into name{labels} → value: a gauge's or
// counter's value, and a histogram's sample count as name_count.
func gatherMetrics(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+`="`+l.GetValue()+`"`)
			}
			sort.Strings(labels)
			suffix := ""
			if len(labels) > 0 {
				suffix = "{" + strings.Join(labels, ",") + "}"
			}
			switch {
			case m.GetGauge() != nil:
				out[f.GetName()+suffix] = m.GetGauge().GetValue()
			case m.GetCounter() != nil:
				out[f.GetName()+suffix] = m.GetCounter().GetValue()
			case m.GetHistogram() != nil:
				out[f.GetName()+"_count"+suffix] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}

func metricsText(m map[string]float64) string {
	lines := make([]string, 0, len(m))
	for k, v := range m {
		lines = append(lines, k+" "+strconv.FormatFloat(v, 'g', -1, 64))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// conditionOf is the request's condition of a type; nil when it has none.
func conditionOf(cr *leashv1.CredentialsRequest, ct leashv1.CredentialsRequestConditionType) *leashv1.CredentialsRequestCondition {
	for i := range cr.Status.Conditions {
		if cr.Status.Conditions[i].Type == ct {
			return &cr.Status.Conditions[i]
		}
	}
	return nil
}

// userOfStatus is the minted user a request's status records; empty when
// none.
func userOfStatus(cr *leashv1.CredentialsRequest) string {
	if cr.Status.ProviderStatus == nil {
		return ""
	}
	var st leashv1.AWSProviderStatus
	_ = json.Unmarshal(cr.Status.ProviderStatus.Raw, &st)
	return st.User
}

// newUser creates an IAM user with inline policies (name → document) and
// one access key, and returns its ARN and the key.
func (cl *cluster) newUser(t *testing.T, name string, policies map[string]string) (string, iamclient.AccessKey) {
	t.Helper()
	ctx := context.Background()
	out, err := cl.admin.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	for pname, doc := range policies {
		if _, err := cl.admin.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name),
			PolicyName: aws.String(pname), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatalf("policy %s of %s: %v", pname, name, err)
		}
	}
	return aws.ToString(out.User.Arn), cl.newKey(t, name)
}

// newKey creates an access key for a user and waits until it works.
func (cl *cluster) newKey(t *testing.T, user string) iamclient.AccessKey {
	t.Helper()
	out, err := cl.admin.CreateAccessKey(context.Background(), &iam.CreateAccessKeyInput{UserName: aws.String(user)})
	if err != nil {
		t.Fatal(err)
	}
	key := iamclient.AccessKey{ID: aws.ToString(out.AccessKey.AccessKeyId), Secret: iamclient.NewSecret(aws.ToString(out.AccessKey.SecretAccessKey))}
	waitFor(t, 30*time.Second, "access key "+key.ID+" to work", func() (bool, string) {
		_, err := cl.iamClient(key).CallerIdentity(context.Background())
		if err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	t.Logf("created access key %s for %s", key.ID, user)
	return key
}

// newRole creates a role that a service account assumes with its web
// identity, with one inline policy, and returns its ARN.
func (cl *cluster) newRole(t *testing.T, name, subject, doc string) string {
	t.Helper()
	ctx := context.Background()
	issuer := "oidc.e2e.example.com"
	trust := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow",
		"Principal":{"Federated":"arn:aws:iam::` + account + `:oidc-provider/` + issuer + `"},
		"Action":"sts:AssumeRoleWithWebIdentity",
		"Condition":{"StringEquals":{"` + issuer + `:sub":"` + subject + `"}}}]}`
	out, err := cl.admin.CreateRole(ctx, &iam.CreateRoleInput{RoleName: aws.String(name), AssumeRolePolicyDocument: aws.String(trust)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.admin.PutRolePolicy(ctx, &iam.PutRolePolicyInput{RoleName: aws.String(name),
		PolicyName: aws.String(name + "-policy"), PolicyDocument: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.Role.Arn)
}

// writeKeySecret creates or replaces an unlabelled Secret, as an
// administrator does.
func (cl *cluster) writeKeySecret(t *testing.T, ref types.NamespacedName, data map[string]string) {
	t.Helper()
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}, StringData: data}
	err := cl.c.Create(ctx, s)
	if apierrors.IsAlreadyExists(err) {
		cur := &corev1.Secret{}
		if err := cl.c.Get(ctx, ref, cur); err != nil {
			t.Fatal(err)
		}
		cur.Data, cur.StringData = nil, data
		err = cl.c.Update(ctx, cur)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// stsRequest is a request for ec2:DescribeInstances through a role.
func stsRequest(t *testing.T, ns, name, role, tokenPath string) *leashv1.CredentialsRequest {
	t.Helper()
	cr := request(t, ns, name, ns, "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n")
	spec := leashv1.AWSProviderSpec{STSIAMRoleARN: role, StatementEntries: []leashv1.StatementEntry{
		{Effect: "Allow", Action: []string{"ec2:DescribeInstances"}, Resource: "*"}}}
	spec.APIVersion, spec.Kind = leashv1.GroupVersion.String(), "AWSProviderSpec"
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	cr.Spec.ProviderSpec = &runtime.RawExtension{Raw: raw}
	cr.Spec.CloudTokenPath = tokenPath
	return cr
}

// kubectlOutput runs kubectl and returns its standard output.
func kubectlOutput(t *testing.T, kubectl string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args[2:], " "), err, errOut.String())
	}
	return out.String()
}
