package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
	"leash.dev/leash/internal/operator"
)

// TestSecretConflict pins one owner per Secret on the API server: of two
// requests naming one Secret the older is Ready and the newer refused with
// SecretConflict and a Warning, with no user and no write of its own; when
// the owner is deleted the other takes over at once, not at a recheck.
func TestSecretConflict(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	o := cl.operatorOptions(operator.Config{})
	// Rechecks far apart: only the watches can make the hand-over quick.
	o.Recheck = 10 * time.Minute
	_, _ = cl.runOperator(t, o)

	older := request(t, "apps", "older", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n")
	older.Spec.SecretRef.Name = "shared-creds"
	cl.create(t, older)
	cl.waitReady(t, "apps", "older")
	// Creation times have a resolution of one second.
	time.Sleep(1100 * time.Millisecond)
	newer := request(t, "apps", "newer", "apps", "- effect: Allow\n  action: [\"iam:ListUsers\"]\n  resource: \"*\"\n")
	newer.Spec.SecretRef.Name = "shared-creds"
	cl.create(t, newer)

	cr := cl.waitCondition(t, "apps", "newer", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, operator.ReasonSecretConflict)
	if msg := conditionOf(cr, leashv1.CredentialsProvisionFailure).Message; !strings.Contains(msg, "apps/older") || !strings.Contains(msg, "spec.secretRef") {
		t.Errorf("message %q: want it to name the owner apps/older and spec.secretRef", msg)
	}
	if c := conditionOf(cr, leashv1.Ready); c == nil || c.Status != corev1.ConditionFalse || c.Reason != operator.ReasonSecretConflict {
		t.Errorf("Ready = %+v, want False with reason %s", c, operator.ReasonSecretConflict)
	}
	if cr.Status.Principal != "" || userOfStatus(cr) != "" {
		t.Errorf("the refused request's status names principal %q, user %q; want none", cr.Status.Principal, userOfStatus(cr))
	}
	cl.waitWarning(t, "apps", "newer", operator.ReasonSecretConflict)
	owned := secretKey(t, cl.secret(t, "apps", "shared-creds"))
	if users := cl.users(t, "/leash/"); len(users) != 1 || !strings.HasPrefix(users[0], "e2e-apps-older-") {
		t.Errorf("IAM users %v, want only the owner's", users)
	}
	// A few rechecks of the refused request later, the Secret is the owner's.
	time.Sleep(3 * time.Second)
	s := cl.secret(t, "apps", "shared-creds")
	if got := secretKey(t, s); got.ID != owned.ID || s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/older" {
		t.Errorf("the Secret holds key %s for %q, want the owner's %s for apps/older", got.ID, s.Annotations[leashv1.AnnotationCredentialsRequest], owned.ID)
	}

	// The owner goes: the other request takes the Secret over within
	// seconds, with a user of its own.
	if err := cl.c.Delete(ctx, cl.get(t, "apps", "older")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitFor(t, 15*time.Second, "apps/newer to take the Secret over", func() (bool, string) {
		cr := cl.get(t, "apps", "newer")
		c := conditionOf(cr, leashv1.Ready)
		return c != nil && c.Status == corev1.ConditionTrue, fmt.Sprintf("%+v", c)
	})
	t.Logf("the hand-over took %v", time.Since(start).Round(time.Millisecond))
	s = cl.secret(t, "apps", "shared-creds")
	key := secretKey(t, s)
	if s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/newer" || key.ID == owned.ID {
		t.Errorf("Secret after the hand-over: key %s for %q, want a new key for apps/newer", key.ID, s.Annotations[leashv1.AnnotationCredentialsRequest])
	}
	id, err := cl.iamClient(key).CallerIdentity(ctx)
	if err != nil || !strings.Contains(id.ARN, ":user/leash/e2e/e2e-apps-newer-") {
		t.Errorf("the Secret's key acts as %q (%v), want apps/newer's user", id.ARN, err)
	}
	if users := cl.users(t, "/leash/"); len(users) != 1 || !strings.HasPrefix(users[0], "e2e-apps-newer-") {
		t.Errorf("IAM users %v, want only the new owner's", users)
	}
}

// TestApplySecretConflict pins that leash apply refuses the second request
// of a folder naming the same Secret, and mints the first.
func TestApplySecretConflict(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		writeFile(t, filepath.Join(dir, name+".yaml"), `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: `+name+`, namespace: apps}
spec:
  secretRef: {name: shared-creds, namespace: apps}
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - {effect: Allow, action: ["ec2:DescribeInstances"], resource: "*"}
`)
	}
	data := t.TempDir()
	stdout, _, code := applyRun(t, "-f", dir, "--data", data)
	if code != 1 || !strings.Contains(lineWith(stdout, "apps/a"), "Ready") || !strings.Contains(lineWith(stdout, "apps/b"), operator.ReasonSecretConflict) ||
		!strings.Contains(stdout, "belongs to CredentialsRequest apps/a") {
		t.Errorf("exit %d, want 1 with apps/a Ready and apps/b refused in favour of apps/a:\n%s", code, stdout)
	}
	s := readSecret(t, filepath.Join(data, "secrets", "apps", "shared-creds.yaml"))
	if s.Annotations[leashv1.AnnotationCredentialsRequest] != "apps/a" {
		t.Errorf("the Secret is written for %q, want apps/a", s.Annotations[leashv1.AnnotationCredentialsRequest])
	}
	local := startLocal(t, data)
	users, err := local.iam(local.adminKey(t)).ListUsers(context.Background(), &iam.ListUsersInput{PathPrefix: aws.String("/leash/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(users.Users) != 1 || !strings.HasPrefix(aws.ToString(users.Users[0].UserName), "leash-apps-a-") {
		t.Errorf("IAM users %v, want only apps/a's", users.Users)
	}
}

// waitWarning waits for a Warning Event with reason on the request, as
// `kubectl get events --field-selector type=Warning` shows it.
func (cl *cluster) waitWarning(t *testing.T, ns, name, reason string) corev1.Event {
	t.Helper()
	var found corev1.Event
	waitFor(t, 30*time.Second, "a Warning Event "+reason+" on "+ns+"/"+name, func() (bool, string) {
		var events corev1.EventList
		if err := cl.c.List(context.Background(), &events, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range events.Items {
			if e.Type == corev1.EventTypeWarning && e.InvolvedObject.Name == name {
				if e.Reason == reason {
					found = e
					return true, ""
				}
				seen = append(seen, e.Reason)
			}
		}
		return false, fmt.Sprintf("Warnings %v", seen)
	})
	return found
}

// TestModeSwitchRetiresMintedUser pins that a request leaving Mint mode
// leaves no key that no Secret names: switched to Passthrough, its user and
// key are deleted once the Secret holds the root key; switched to Manual
// with its Secret gone, likewise, with a Warning for the missing Secret;
// and a request refused by validation shows no user or principal.
func TestModeSwitchRetiresMintedUser(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "apps")
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))
	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"
	cl.create(t, request(t, "apps", "pass", "apps", entries))
	cl.create(t, request(t, "apps", "manual", "apps", entries))
	minted := map[string]string{}
	for _, name := range []string{"pass", "manual"} {
		minted[name] = userOf(t, cl.waitReady(t, "apps", name))
	}
	passKey := secretKey(t, cl.secret(t, "apps", "pass-creds"))

	switchMode := func(name string, mode leashv1.CredentialsMode) {
		t.Helper()
		cr := cl.get(t, "apps", name)
		cr.Annotations = map[string]string{operator.AnnotationMode: string(mode)}
		if err := cl.c.Update(ctx, cr); err != nil {
			t.Fatal(err)
		}
	}
	// a. Mint to Passthrough: the Secret holds the root key, and the minted
	// user with its key is gone.
	switchMode("pass", leashv1.ModePassthrough)
	waitFor(t, 30*time.Second, "apps/pass to be Ready in Passthrough mode with no minted user", func() (bool, string) {
		cr := cl.get(t, "apps", "pass")
		c := conditionOf(cr, leashv1.Ready)
		return cr.Status.Mode == leashv1.ModePassthrough && c != nil && c.Status == corev1.ConditionTrue && userOfStatus(cr) == "",
			fmt.Sprintf("mode %s, user %q, Ready %+v", cr.Status.Mode, userOfStatus(cr), c)
	})
	if cr := cl.get(t, "apps", "pass"); strings.Contains(cr.Status.Principal, "/leash/") {
		t.Errorf("status.principal %q still names the minted user", cr.Status.Principal)
	}
	if got := secretKey(t, cl.secret(t, "apps", "pass-creds")); got.ID != cl.adminKey(t).ID {
		t.Errorf("the Passthrough Secret holds key %s, want the root's", got.ID)
	}
	if _, err := cl.admin.GetUser(ctx, &iam.GetUserInput{UserName: aws.String(minted["pass"])}); apiErrCode(err) != "NoSuchEntity" {
		t.Errorf("the minted user after the switch to Passthrough: %v, want NoSuchEntity", err)
	}
	if _, err := cl.iamClient(passKey).CallerIdentity(ctx); err == nil {
		t.Error("the minted key still works after the switch to Passthrough")
	}

	// b. Mint to Manual, the administrator having deleted the Secret: the
	// request fails (and warns) for want of a Secret, and the minted user
	// is gone.
	switchMode("manual", leashv1.ModeManual)
	if err := cl.c.Delete(ctx, cl.secret(t, "apps", "manual-creds")); err != nil {
		t.Fatal(err)
	}
	cl.waitCondition(t, "apps", "manual", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "SecretMissing")
	waitFor(t, 30*time.Second, "apps/manual's status to name no user or principal", func() (bool, string) {
		cr := cl.get(t, "apps", "manual")
		return userOfStatus(cr) == "" && cr.Status.Principal == "", fmt.Sprintf("user %q principal %q", userOfStatus(cr), cr.Status.Principal)
	})
	cl.waitWarning(t, "apps", "manual", "SecretMissing")

	// No active key is left that no Secret names: leash's path holds no
	// user, and every key in the account is named by a Secret or is the
	// administrator's own.
	if users := cl.users(t, "/leash/"); len(users) != 0 {
		t.Errorf("users under /leash/ after the switches: %v, want none", users)
	}
	named := map[string]bool{cl.adminKey(t).ID: true}
	var secrets corev1.SecretList
	if err := cl.c.List(ctx, &secrets); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		named[string(s.Data["aws_access_key_id"])] = true
	}
	for _, u := range cl.users(t, "/") {
		for _, id := range cl.keys(t, u) {
			if !named[id] {
				t.Errorf("access key %s of user %s is named by no Secret", id, u)
			}
		}
	}

	// c. A request refused by validation shows no user, no principal, and
	// a Warning.
	cl.create(t, request(t, "apps", "invalid", "apps", "- effect: allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cr := cl.waitCondition(t, "apps", "invalid", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "InvalidRequest")
	if userOfStatus(cr) != "" || cr.Status.Principal != "" {
		t.Errorf("a refused request's status names user %q and principal %q, which were never made", userOfStatus(cr), cr.Status.Principal)
	}
	cl.waitWarning(t, "apps", "invalid", "InvalidRequest")
}

// TestManualWatchesSecret pins that a Manual request follows the
// administrator's Secret as it changes, within 5 s, though nothing is
// rechecked for ten minutes: created, broken (with a Warning), fixed.
func TestManualWatchesSecret(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	o := cl.operatorOptions(operator.Config{Mode: leashv1.ModeManual})
	o.Recheck, o.RecheckFailed = 10*time.Minute, 10*time.Minute
	_, _ = cl.runOperator(t, o)
	_, key := cl.newUser(t, "ctl", map[string]string{"read": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`})
	cl.create(t, request(t, "apps", "ctl", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cl.waitCondition(t, "apps", "ctl", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, "SecretMissing")
	ref := types.NamespacedName{Namespace: "apps", Name: "ctl-creds"}

	within := func(what string, ct leashv1.CredentialsRequestConditionType, reason string) {
		t.Helper()
		start := time.Now()
		waitFor(t, 5*time.Second, what, func() (bool, string) {
			c := conditionOf(cl.get(t, "apps", "ctl"), ct)
			return c != nil && c.Status == corev1.ConditionTrue && c.Reason == reason, fmt.Sprintf("%+v", c)
		})
		t.Logf("%s after %v", what, time.Since(start).Round(time.Millisecond))
	}
	cl.writeKeySecret(t, ref, map[string]string{"aws_access_key_id": key.ID, "aws_secret_access_key": key.Secret.Reveal()})
	within("Ready once the Secret is created", leashv1.Ready, "CredentialsReady")
	cl.writeKeySecret(t, ref, map[string]string{"aws_access_key_id": key.ID})
	within("SecretMalformed once the Secret is broken", leashv1.CredentialsProvisionFailure, "SecretMalformed")
	cl.waitWarning(t, "apps", "ctl", "SecretMalformed")
	cl.writeKeySecret(t, ref, map[string]string{"aws_access_key_id": key.ID, "aws_secret_access_key": key.Secret.Reveal()})
	within("Ready once the Secret is fixed", leashv1.Ready, "CredentialsReady")
	if err := cl.c.Delete(context.Background(), cl.secret(t, "apps", "ctl-creds")); err != nil {
		t.Fatal(err)
	}
	within("SecretMissing once the Secret is deleted", leashv1.CredentialsProvisionFailure, "SecretMissing")
}

// TestRecheckInterval pins that a failing request is checked again at the
// recheck interval, for what no watch shows: a permission granted in IAM.
func TestRecheckInterval(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	o := cl.operatorOptions(operator.Config{Mode: leashv1.ModeManual})
	o.Recheck, o.RecheckFailed = 10*time.Minute, time.Second
	_, _ = cl.runOperator(t, o)
	_, key := cl.newUser(t, "ctl", nil)
	cl.writeKeySecret(t, types.NamespacedName{Namespace: "apps", Name: "ctl-creds"},
		map[string]string{"aws_access_key_id": key.ID, "aws_secret_access_key": key.Secret.Reveal()})
	cl.create(t, request(t, "apps", "ctl", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))
	cl.waitCondition(t, "apps", "ctl", leashv1.InsufficientCloudCredentials, corev1.ConditionTrue, "MissingPermissions")
	cl.waitWarning(t, "apps", "ctl", "MissingPermissions")
	if _, err := cl.admin.PutUserPolicy(context.Background(), &iam.PutUserPolicyInput{UserName: aws.String("ctl"), PolicyName: aws.String("read"),
		PolicyDocument: aws.String(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitFor(t, 5*time.Second, "Ready at the next recheck after the grant", func() (bool, string) {
		c := conditionOf(cl.get(t, "apps", "ctl"), leashv1.Ready)
		return c != nil && c.Status == corev1.ConditionTrue, fmt.Sprintf("%+v", c)
	})
	t.Logf("the grant was noticed after %v", time.Since(start).Round(time.Millisecond))
}

// TestStatusReadsRight reads requests as an administrator does, with
// kubectl: a request with a role shows the documented mode Manual; one for
// another cloud shows Ignored, with a message and no Warning; a fixed
// problem's condition says what was fixed; a failure warns.
func TestStatusReadsRight(t *testing.T) {
	kubectl := apiserver.Kubectl(t)
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	role := cl.newRole(t, "ccm", "system:serviceaccount:apps:ccm", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:DescribeInstances","Resource":"*"}]}`)
	_, _ = cl.runOperator(t, cl.operatorOptions(operator.Config{}))

	sts := stsRequest(t, "apps", "ccm", role, "")
	sts.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModeManual)}
	cl.create(t, sts)
	gcp := request(t, "apps", "gcp", "apps", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n")
	gcp.Spec.ProviderSpec = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"cloudcredential.openshift.io/v1","kind":"GCPProviderSpec","predefinedRoles":["roles/viewer"]}`)}
	cl.create(t, gcp)
	cl.create(t, request(t, "apps", "later", "later", "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"))

	cr := cl.waitReady(t, "apps", "ccm")
	if cr.Status.Mode != leashv1.ModeManual || cr.Status.Principal != role {
		t.Errorf("request with a role: mode %q principal %q, want Manual and %s", cr.Status.Mode, cr.Status.Principal, role)
	}
	cr = cl.waitCondition(t, "apps", "gcp", leashv1.Ready, corev1.ConditionFalse, "Ignored")
	if c := conditionOf(cr, leashv1.Ready); cr.Status.Mode != leashv1.ModeIgnored || !strings.Contains(c.Message, "GCPProviderSpec") {
		t.Errorf("request for another cloud: mode %q, Ready message %q; want Ignored and a message naming GCPProviderSpec", cr.Status.Mode, c.Message)
	}
	// A fixed problem: the namespace appears.
	cl.waitCondition(t, "apps", "later", leashv1.MissingTargetNamespace, corev1.ConditionTrue, "NamespaceNotFound")
	cl.waitWarning(t, "apps", "later", "NamespaceNotFound")
	cl.namespace(t, "later")
	cr = cl.waitCondition(t, "apps", "later", leashv1.MissingTargetNamespace, corev1.ConditionFalse, "Resolved")
	if msg := conditionOf(cr, leashv1.MissingTargetNamespace).Message; !strings.Contains(msg, "NamespaceNotFound") || !strings.Contains(msg, "namespace later") {
		t.Errorf("resolved MissingTargetNamespace message %q, want it to say what was fixed", msg)
	}

	kubeconfig := cl.api.Kubeconfig(t, "e2e-admin")
	args := []string{"--kubeconfig=" + kubeconfig, "--cache-dir=" + filepath.Join(filepath.Dir(kubeconfig), "cache")}
	table := kubectlOutput(t, kubectl, append(args, "get", "credentialsrequests", "-n", "apps")...)
	t.Logf("kubectl get credentialsrequests -n apps:\n%s", table)
	rows := map[string][]string{}
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) >= 3 {
			rows[f[0]] = f
		}
	}
	if r := rows["ccm"]; len(r) < 4 || r[1] != "Manual" || r[2] != "True" || r[3] != role {
		t.Errorf("row of ccm %q, want Manual True %s", r, role)
	}
	if r := rows["gcp"]; len(r) < 3 || r[1] != "Ignored" {
		t.Errorf("row of gcp %q, want MODE Ignored", r)
	}
	described := kubectlOutput(t, kubectl, append(args, "describe", "credentialsrequest", "-n", "apps", "later")...)
	if !strings.Contains(described, "Resolved") || !strings.Contains(described, "fixed: the earlier NamespaceNotFound") {
		t.Errorf("kubectl describe of the fixed request does not say what was fixed:\n%s", described)
	}
	warnings := kubectlOutput(t, kubectl, append(args, "get", "events", "-n", "apps", "--field-selector", "type=Warning")...)
	t.Logf("kubectl get events --field-selector type=Warning:\n%s", warnings)
	if !strings.Contains(warnings, "NamespaceNotFound") || strings.Contains(warnings, "credentialsrequest/gcp") || strings.Contains(warnings, "NotAWS") {
		t.Errorf("Warning Events: want NamespaceNotFound and nothing for the request for another cloud")
	}
}

// TestOperatorLogsSettings runs `leash operator` with a ConfigMap and reads
// the one line of settings it logs at start: the ConfigMap's values over
// the flags, and no secret; and a recheck interval under a second is
// refused before it starts.
func TestOperatorLogsSettings(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "leash-system")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "leash-system", Name: "leash-config"},
		Data: map[string]string{"mode": "Manual", "clusterName": "from-cm", "recheckInterval": "30s", "oidcIssuer": "https://oidc.example.com/from-cm",
			"brokerPrincipal": "arn:aws:iam::111122223333:role/leash-broker"}}
	cl.create(t, cm)
	kubeconfig := cl.api.Kubeconfig(t, "operator")
	args := []string{"operator", "--kubeconfig", kubeconfig, "--iam-endpoint", cl.url,
		"--root-credentials-file", cl.local.AdminCredentialsPath(), "--config-map", "leash-system/leash-config",
		"--cluster-name", "from-flag", "--metrics-bind-address", "0", "--health-probe-bind-address", "0"}
	runs := newOperatorRuns(t, args...)
	p := runs.next()
	p.start(t)
	var line string
	waitFor(t, 30*time.Second, "the operator's settings line", func() (bool, string) {
		for _, l := range strings.Split(p.stderr.String(), "\n") {
			if strings.Contains(l, `"msg":"operator settings"`) {
				line = l
				return true, ""
			}
		}
		return false, p.stderr.String()
	})
	t.Logf("%s", line)
	for _, want := range []string{`"mode":"Manual"`, `"clusterName":"from-cm"`, `"iamEndpoint":"` + cl.url + `"`, `"recheckInterval":"30s"`,
		`"oidcIssuer":"https://oidc.example.com/from-cm"`, `"oidcAudience":"sts.amazonaws.com"`,
		`"brokerPrincipal":"arn:aws:iam::111122223333:role/leash-broker"`,
		`"rootCredentials":"file ` + cl.local.AdminCredentialsPath() + `"`, `"permissionsBoundary":"none"`} {
		if !strings.Contains(line, want) {
			t.Errorf("settings line lacks %s", want)
		}
	}
	if n := strings.Count(p.stderr.String(), `"msg":"operator settings"`); n != 1 {
		t.Errorf("settings logged %d times, want once", n)
	}
	p.terminate(t)
	runs.checkNoSecrets(t, []string{cl.adminKey(t).Secret.Reveal()})

	cm.Data["recheckInterval"] = "100ms"
	if err := cl.c.Update(context.Background(), cm); err != nil {
		t.Fatal(err)
	}
	bad := runs.next()
	bad.start(t)
	select {
	case <-bad.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the operator started with a recheck interval of 100ms")
	}
	stderr := bad.stderr.String()
	if code := exitStatus(t, bad.err, "leash operator"); code != 2 || !strings.Contains(stderr, "at least 1s") {
		t.Errorf("recheckInterval 100ms: exit %d, %q; want 2 and what to use", code, stderr)
	}
}

// TestApplyIgnoresOtherClouds pins that leash apply shows a request for
// another cloud as Ignored and does not count it as a failure.
func TestApplyIgnoresOtherClouds(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "aws.yaml"), `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: aws, namespace: apps}
spec:
  secretRef: {name: aws-creds, namespace: apps}
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: AWSProviderSpec
    statementEntries:
    - {effect: Allow, action: ["ec2:DescribeInstances"], resource: "*"}
`)
	writeFile(t, filepath.Join(dir, "gcp.yaml"), `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: gcp, namespace: apps}
spec:
  secretRef: {name: gcp-creds, namespace: apps}
  providerSpec:
    apiVersion: cloudcredential.openshift.io/v1
    kind: GCPProviderSpec
    predefinedRoles: ["roles/viewer"]
`)
	stdout, _, code := applyRun(t, "-f", dir, "--data", t.TempDir())
	row := strings.Fields(lineWith(stdout, "apps/gcp"))
	if code != 0 || len(row) != 5 || row[1] != "Ignored" || row[4] != "Ignored" || !strings.Contains(stdout, "GCPProviderSpec") {
		t.Errorf("exit %d, row of apps/gcp %q; want 0, and MODE and STATE Ignored with a message naming GCPProviderSpec:\n%s", code, row, stdout)
	}
}
