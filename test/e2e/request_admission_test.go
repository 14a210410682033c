package e2e

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/operator"
)

// deployer is the team-a ServiceAccount of TestRequestAdmission: it may do
// everything with Secrets and CredentialsRequests in team-a, nothing
// elsewhere.
const deployer = "system:serviceaccount:team-a:deployer"

// teamRole grants user everything on Secrets and CredentialsRequests in ns.
func teamRole(t *testing.T, cl *cluster, ns, name string, subject rbacv1.Subject) {
	t.Helper()
	cl.create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}},
		{APIGroups: []string{leashv1.GroupVersion.Group}, Resources: []string{"credentialsrequests"}, Verbs: []string{"*"}},
	}})
	cl.create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{subject}})
}

// serveWebhooks runs the operator with its admission webhooks served where
// the API server calls deploy/base/webhook.yaml's, and waits until they listen.
func serveWebhooks(t *testing.T, cl *cluster, o operator.Options) {
	t.Helper()
	wio := cl.api.Env.WebhookInstallOptions
	o.Webhook = &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir, RefuseAt: analyze.High}
	cl.runOperator(t, o)
	addr := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	waitFor(t, 30*time.Second, "the webhook to listen on "+addr, func() (bool, string) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false, err.Error()
		}
		_ = c.Close()
		return true, ""
	})
}

// TestRequestAdmission pins that a CredentialsRequest gets only what its
// author could have done: a ServiceAccount with rights on Secrets and
// requests in its own namespace alone cannot have leash write the root
// credentials, another namespace's Secret, a Secret of its own namespace
// that leash did not create, or hand it the root key (Passthrough). Each
// is refused at admission naming the missing permission or the Secret's
// owner, and no Secret changes. An administrator's request in an
// administrator namespace may target another namespace, the team's own
// request is admitted and provisioned, and the operator's finalizer
// updates and the request's deletion pass.
func TestRequestAdmission(t *testing.T) {
	cl := newCluster(t, clusterOptions{webhooks: true})
	ctx := context.Background()
	for _, ns := range []string{"team-a", "team-b", "ops"} {
		cl.namespace(t, ns)
	}
	root := types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
	key := cl.adminKey(t)
	cl.writeKeySecret(t, root, map[string]string{operator.SecretKeyID: key.ID, operator.SecretKeySecret: key.Secret.Reveal()})
	plainB := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-b", Name: "db"}, Data: map[string][]byte{"password": []byte("team-b's own")}}
	plainA := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "db"}, Data: map[string][]byte{"password": []byte("team-a's own")}}
	cl.create(t, plainB)
	cl.create(t, plainA)
	cl.create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "deployer"}})
	teamRole(t, cl, "team-a", "deployer", rbacv1.Subject{Kind: "ServiceAccount", Name: "deployer", Namespace: "team-a"})

	o := cl.operatorOptions(operator.Config{AdminNamespaces: []string{"ops"}, ReservedSecrets: []string{root.String()}})
	o.RootFile, o.RootSecret = "", root
	serveWebhooks(t, cl, o)

	// The team's client: the API server authenticates it as the
	// ServiceAccount, with its groups, as a pod's token would be.
	as := rest.CopyConfig(cl.api.Config)
	as.Impersonate = rest.ImpersonationConfig{UserName: deployer,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team-a", "system:authenticated"}}
	team, err := client.New(as, client.Options{Scheme: operator.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func() map[types.NamespacedName]map[string][]byte {
		out := map[types.NamespacedName]map[string][]byte{}
		for _, ref := range []types.NamespacedName{root, client.ObjectKeyFromObject(plainA), client.ObjectKeyFromObject(plainB)} {
			s := &corev1.Secret{}
			if err := cl.c.Get(ctx, ref, s); err != nil {
				t.Fatal(err)
			}
			out[ref] = s.Data
		}
		return out
	}
	before := snapshot()

	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"
	named := func(name string, ref types.NamespacedName, ann map[string]string) *leashv1.CredentialsRequest {
		cr := request(t, "team-a", name, ref.Namespace, entries)
		cr.Spec.SecretRef.Name = ref.Name
		cr.Annotations = ann
		return cr
	}
	for _, tt := range []struct {
		name string
		cr   *leashv1.CredentialsRequest
		want []string
	}{
		{"the root credentials Secret is refused with every permission the author lacks", named("root", root, nil), []string{
			"user " + deployer + " may not create secrets in namespace kube-system",
			"may not update secrets aws-creds in namespace kube-system",
			"may not delete secrets aws-creds in namespace kube-system",
			"may not get secrets aws-creds in namespace kube-system",
			"Secret kube-system/aws-creds is the operator's own",
		}},
		{"another namespace's Secret is refused with the permissions the author lacks", named("other", client.ObjectKeyFromObject(plainB), nil), []string{
			"user " + deployer + " may not create secrets in namespace team-b",
			"may not update secrets db in namespace team-b",
			notOwned("team-b", "db"),
		}},
		{"a Secret of the author's namespace that leash did not create is refused as not leash's", named("own", client.ObjectKeyFromObject(plainA), nil), []string{
			notOwned("team-a", "db"),
		}},
		{"Passthrough is refused to an author who may not read the root credentials", named("passthrough", types.NamespacedName{Namespace: "team-a", Name: "pass-creds"},
			map[string]string{operator.AnnotationMode: string(leashv1.ModePassthrough)}), []string{
			"user " + deployer + " may not get secrets aws-creds in namespace kube-system",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, dry := range []bool{true, false} {
				var opts []client.CreateOption
				if dry {
					opts = append(opts, client.DryRunAll)
				}
				err := team.Create(ctx, tt.cr.DeepCopy(), opts...)
				if !apierrors.IsForbidden(err) {
					t.Fatalf("dry run %v: %v; want the webhook to refuse it", dry, err)
				}
				if !dry {
					t.Logf("refused: %v", err)
				}
				for _, w := range tt.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("dry run %v: refusal %q\nlacks %q", dry, err, w)
					}
				}
				if strings.Contains(err.Error(), "may not") != strings.Contains(tt.want[0], "may not") {
					t.Errorf("dry run %v: refusal %q names permissions; want only %q", dry, err, tt.want)
				}
			}
			err := cl.c.Get(ctx, client.ObjectKeyFromObject(tt.cr), &leashv1.CredentialsRequest{})
			if !apierrors.IsNotFound(err) {
				t.Errorf("the refused request is stored: %v", err)
			}
		})
	}

	// The team's own request, to a new Secret of its namespace, is admitted
	// and provisioned; retargeting it is judged as creating it was, while
	// the operator's finalizer and a label pass.
	mine := named("app", types.NamespacedName{Namespace: "team-a", Name: "app-creds"}, nil)
	if err := team.Create(ctx, mine); err != nil {
		t.Fatalf("the team's request to its own namespace: %v", err)
	}
	ready := cl.waitReady(t, "team-a", "app")
	if len(ready.Finalizers) == 0 {
		t.Errorf("the provisioned request has no finalizer: the operator's update did not pass")
	}
	// update changes the team's request as its author, read afresh: the
	// operator writes its status meanwhile.
	update := func(change func(cr *leashv1.CredentialsRequest)) error {
		return retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cr := &leashv1.CredentialsRequest{}
			if err := team.Get(ctx, client.ObjectKeyFromObject(ready), cr); err != nil {
				return err
			}
			change(cr)
			return team.Update(ctx, cr)
		})
	}
	err = update(func(cr *leashv1.CredentialsRequest) {
		cr.Spec.SecretRef = corev1.ObjectReference{Namespace: root.Namespace, Name: root.Name}
	})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "may not create secrets in namespace kube-system") {
		t.Errorf("retargeting the request to %s: %v; want refused", root, err)
	}
	if err := update(func(cr *leashv1.CredentialsRequest) { cr.Labels = map[string]string{"team": "a"} }); err != nil {
		t.Errorf("labelling the request: %v", err)
	}

	// An administrator's request in an administrator namespace targets
	// another namespace.
	ops := request(t, "ops", "shared", "team-b", entries)
	cl.create(t, ops)
	cl.waitReady(t, "ops", "shared")

	after := snapshot()
	for ref, data := range before {
		if !equalData(data, after[ref]) {
			t.Errorf("Secret %s changed", ref)
		}
	}

	// Deleting passes: the operator removes its finalizer and the Secret.
	if err := team.Delete(ctx, ready.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the request and its Secret to go", func() (bool, string) {
		err := cl.c.Get(ctx, client.ObjectKeyFromObject(ready), &leashv1.CredentialsRequest{})
		serr := cl.c.Get(ctx, types.NamespacedName{Namespace: "team-a", Name: "app-creds"}, &corev1.Secret{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(serr), "request: " + errString(err) + ", Secret: " + errString(serr)
	})
}

// notOwned is the start of secretowner.NotOwnedMessage for a Secret leash
// did not create.
func notOwned(ns, name string) string {
	return "Secret " + ns + "/" + name + " of spec.secretRef already exists and leash did not create it"
}

func equalData(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func errString(err error) string {
	if err == nil {
		return "exists"
	}
	return err.Error()
}
