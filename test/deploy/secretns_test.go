package deploy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/apiserver"
)

// TestChartSecretNamespaces renders the chart with rbac.secretNamespaces
// and checks that the operator holds Secret rights only there: no
// ClusterRole grants them, a Role in each listed namespace does, a Role
// limited to its name lets it read the root credentials, and the operator
// is told (--secret-namespaces). The render is applied to a real API
// server, where access reviews as the operator's ServiceAccount, and its
// calls, show it may write Secrets in a listed namespace and not in
// another, and may list and watch the root Secret by name as its cache does.
func TestChartSecretNamespaces(t *testing.T) {
	objs, stderr, err := helmTemplate(t, "--set", "image.tag=latest", "--set", "rbac.secretNamespaces={team-a,team-b}")
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr)
	}
	// The Roles share a name across namespaces, so the render is indexed
	// by namespace too.
	m := map[string]*unstructured.Unstructured{}
	for _, u := range objs {
		m[u.GetNamespace()+"/"+key(u)] = u
	}
	cr := as[rbacv1.ClusterRole](t, m["/ClusterRole/leash-operator"])
	for _, r := range cr.Rules {
		if slices.Contains(r.Resources, "secrets") || slices.Contains(r.Resources, "*") {
			t.Errorf("ClusterRole grants %+v; want no cluster-wide Secret rights", r)
		}
	}
	roles := map[string][]rbacv1.PolicyRule{}
	for _, u := range objs {
		if u.GetKind() == "Role" {
			roles[u.GetNamespace()+"/"+u.GetName()] = as[rbacv1.Role](t, u).Rules
		}
	}
	for _, ns := range []string{"team-a", "team-b"} {
		checkRules(t, "Role "+ns+"/leash-operator-secrets", roles[ns+"/leash-operator-secrets"],
			[]string{" secrets get list watch create update patch delete"})
	}
	checkRules(t, "Role kube-system/leash-operator-root-credentials", roles["kube-system/leash-operator-root-credentials"],
		[]string{" secrets get list watch @aws-creds"})
	if c := container(as[appsv1.Deployment](t, m[namespace+"/Deployment/leash-operator"]), "operator"); c == nil || !slices.Contains(c.Args, "--secret-namespaces=team-a,team-b") {
		t.Errorf("operator container %+v; want --secret-namespaces=team-a,team-b", c)
	}

	// Applied: the namespaces the Roles go to exist before the chart.
	srv := apiserver.Start(t, apiserver.Options{Scheme: newScheme(t)})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, ns := range []string{namespace, "team-a", "team-b", "team-c"} {
		if err := srv.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	var docs []string
	for _, u := range objs {
		data, err := u.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	file := filepath.Join(t.TempDir(), "chart.json")
	if err := os.WriteFile(file, []byte(strings.Join(docs, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := srv.Kubeconfig(t, "leash-installer")
	out, warnings := runKubectl(t, kubectlPath(t), "--kubeconfig="+kubeconfig, "--cache-dir="+filepath.Join(t.TempDir(), "cache"),
		"apply", "--server-side", "--field-manager=leash-deploy-test", "-f", file)
	t.Logf("kubectl apply:\n%s%s", out, warnings)
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "aws-creds"}, StringData: map[string]string{"aws_access_key_id": "placeholder"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "other"}, StringData: map[string]string{"k": "v"}},
	} {
		if err := srv.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	imp := rest.CopyConfig(srv.Config)
	imp.Impersonate = rest.ImpersonationConfig{UserName: operatorUser}
	op, err := client.New(imp, client.Options{Scheme: newScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(verb, ns, name string) authorizationv1.ResourceAttributes {
		return authorizationv1.ResourceAttributes{Verb: verb, Resource: "secrets", Namespace: ns, Name: name}
	}
	secret := func(ns, name string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: map[string]string{"aws_access_key_id": "placeholder"}}
	}
	runRBACCases(ctx, t, op, []rbacCase{
		{name: "secrets create in a listed namespace", attrs: attrs("create", "team-a", ""), allowed: true,
			call: func(ctx context.Context) error { return op.Create(ctx, secret("team-a", "app-creds")) }},
		{name: "secrets update in a listed namespace", attrs: attrs("update", "team-b", "app-creds"), allowed: true},
		{name: "secrets delete in a listed namespace", attrs: attrs("delete", "team-a", "app-creds"), allowed: true,
			call: func(ctx context.Context) error { return op.Delete(ctx, secret("team-a", "app-creds")) }},
		{name: "secrets watch in a listed namespace", attrs: attrs("watch", "team-a", ""), allowed: true,
			call: func(ctx context.Context) error {
				return op.List(ctx, &corev1.SecretList{}, client.InNamespace("team-a"))
			}},
		{name: "no secrets create in another namespace", attrs: attrs("create", "team-c", ""),
			call: func(ctx context.Context) error { return op.Create(ctx, secret("team-c", "app-creds")) }},
		{name: "no secrets list in all namespaces", attrs: attrs("list", "", ""),
			call: func(ctx context.Context) error { return op.List(ctx, &corev1.SecretList{}) }},
		{name: "no secrets update of the root credentials", attrs: attrs("update", "kube-system", "aws-creds")},
		{name: "root credentials listed by name, as the operator's cache does", attrs: attrs("list", "kube-system", "aws-creds"), allowed: true,
			call: func(ctx context.Context) error {
				return op.List(ctx, &corev1.SecretList{}, client.InNamespace("kube-system"), client.MatchingFields{"metadata.name": "aws-creds"})
			}},
		{name: "no other Secret of the root's namespace", attrs: attrs("get", "kube-system", "other"),
			call: func(ctx context.Context) error {
				return op.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "other"}, &corev1.Secret{})
			}},
	})
}
