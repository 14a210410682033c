package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
)

// operatorSA is the operator's identity in deploy/: ServiceAccount
// leash-system/leash.
const operatorSA = "system:serviceaccount:leash-system:leash"

// clusterRoleWithoutSecrets is deploy/base/rbac.yaml's ClusterRole without its
// Secret rule, as the chart renders it with rbac.secretNamespaces.
func clusterRoleWithoutSecrets(t *testing.T) *rbacv1.ClusterRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "base", "rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var cr rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &cr); err != nil {
			t.Fatal(err)
		}
		if cr.Kind != "ClusterRole" {
			continue
		}
		cr.Rules = slices.DeleteFunc(cr.Rules, func(r rbacv1.PolicyRule) bool { return slices.Contains(r.Resources, "secrets") })
		return &cr
	}
	t.Fatal("deploy/base/rbac.yaml has no ClusterRole")
	return nil
}

// TestOperatorSecretNamespaces runs `leash operator --secret-namespaces
// team-a` as the operator's ServiceAccount where it holds Secret rights
// only through Roles: everything on Secrets in team-a, and reading the
// root credentials Secret by name. It starts, with no watch forbidden,
// provisions a request in team-a, and refuses one whose Secret is in a
// namespace it does not serve.
func TestOperatorSecretNamespaces(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	for _, ns := range []string{"leash-system", "team-a", "team-b"} {
		cl.namespace(t, ns)
	}
	root := types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
	key := cl.adminKey(t)
	cl.writeKeySecret(t, root, map[string]string{operator.SecretKeyID: key.ID, operator.SecretKeySecret: key.Secret.Reveal()})

	subject := []rbacv1.Subject{{Kind: "User", APIGroup: rbacv1.GroupName, Name: operatorSA}}
	cr := clusterRoleWithoutSecrets(t)
	cr.ObjectMeta = metav1.ObjectMeta{Name: "leash-operator"}
	cl.create(t, cr)
	cl.create(t, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "leash-operator"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "leash-operator"}, Subjects: subject})
	for _, r := range []*rbacv1.Role{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "leash-operator-secrets"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: root.Namespace, Name: "leash-operator-root-credentials"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{root.Name}, Verbs: []string{"get", "list", "watch"}}}},
	} {
		cl.create(t, r)
		cl.create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: r.Name}, Subjects: subject})
	}

	// The operator's kubeconfig: the ServiceAccount's user, with none of
	// the administrator's groups.
	u, err := cl.api.Env.AddUser(envtest.User{Name: operatorSA, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:leash-system"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	runs := newOperatorRuns(t, "operator", "--kubeconfig", kubeconfig, "--iam-endpoint", cl.url,
		"--root-credentials-secret", root.String(), "--secret-namespaces", "team-a", "--cluster-name", "e2e",
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0")
	p := runs.next()
	p.start(t)

	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"
	cl.create(t, request(t, "team-a", "app", "team-a", entries))
	cl.create(t, request(t, "team-b", "app", "team-b", entries))
	ready := cl.waitReady(t, "team-a", "app")
	s := cl.secret(t, "team-a", "app-creds")
	if len(s.Data[operator.SecretKeyID]) == 0 {
		t.Errorf("Secret team-a/app-creds has no %s", operator.SecretKeyID)
	}
	if ready.Status.Mode != leashv1.ModeMint {
		t.Errorf("request team-a/app provisioned in mode %q; want Mint", ready.Status.Mode)
	}
	refused := cl.waitCondition(t, "team-b", "app", leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, operator.ReasonNamespaceNotServed)
	for _, c := range refused.Status.Conditions {
		if c.Type == leashv1.CredentialsProvisionFailure && !strings.Contains(c.Message, "team-a") {
			t.Errorf("refusal %q does not name the namespaces the operator serves", c.Message)
		}
	}
	if err := cl.c.Get(ctx, types.NamespacedName{Namespace: "team-b", Name: "app-creds"}, &corev1.Secret{}); err == nil {
		t.Errorf("Secret team-b/app-creds was written outside --secret-namespaces")
	}
	if out := p.stderr.String(); strings.Contains(out, "forbidden") {
		t.Errorf("the operator was refused a call with only its Roles:\n%s", out)
	}
	p.terminate(t)
}
