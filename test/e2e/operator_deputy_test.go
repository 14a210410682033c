package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/internal/secretowner"
)

// TestOperatorIsNobodysDeputy runs the operator with its root key in the
// Secret kube-system/aws-creds, as deploy/ does, and no admission webhook
// (it may be down or absent), and has a team that may do anything in its
// own namespace and nothing elsewhere ask for Secrets it could not write
// itself: the operator's root Secret, a plain Secret in another namespace,
// and a plain Secret in its own. Each is refused with a condition and a
// Warning Event; no Secret's data changes, before or after the requests are
// deleted; the administrator's cross-namespace request and a hand-over work.
func TestOperatorIsNobodysDeputy(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	for _, ns := range []string{"team-a", "team-b", "leash-system"} {
		cl.namespace(t, ns)
	}
	key := cl.adminKey(t)
	secrets := map[string]*corev1.Secret{
		"kube-system/aws-creds": {Data: map[string][]byte{operator.SecretKeyID: []byte(key.ID), operator.SecretKeySecret: []byte(key.Secret.Reveal())}},
		"kube-system/victim":    {Data: map[string][]byte{"token": []byte("kube-system-token")}},
		"team-a/plain":          {Data: map[string][]byte{"token": []byte("team-a-token")}},
	}
	for ref, s := range secrets {
		s.Namespace, s.Name, _ = strings.Cut(ref, "/")
		cl.create(t, s)
	}
	o := cl.operatorOptions(operator.Config{AdminNamespaces: []string{"leash-system"}})
	o.RootFile, o.RootSecret = "", types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
	cl.runOperator(t, o)

	team := cl.clientAs(t, "team-a", "deployer")
	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"
	attacks := []struct {
		name, target, reason string
	}{
		{"root", "kube-system/aws-creds", operator.ReasonSecretReserved},
		{"victim", "kube-system/victim", operator.ReasonNamespaceNotAllowed},
		{"plain", "team-a/plain", operator.ReasonSecretNotOwned},
	}
	for _, a := range attacks {
		cr := request(t, "team-a", a.name, "team-a", entries)
		cr.Spec.SecretRef.Namespace, cr.Spec.SecretRef.Name, _ = strings.Cut(a.target, "/")
		if err := team.Create(ctx, cr); err != nil {
			t.Fatalf("team-a may create requests in its namespace: %v", err)
		}
	}
	// A Passthrough request from team-a would hand it the root key.
	pass := request(t, "team-a", "pass", "team-a", entries)
	pass.Annotations = map[string]string{operator.AnnotationMode: string(leashv1.ModePassthrough)}
	if err := team.Create(ctx, pass); err != nil {
		t.Fatal(err)
	}
	attacks = append(attacks, struct{ name, target, reason string }{"pass", "team-a/pass-creds", operator.ReasonPassthroughNotAllowed})
	for _, a := range attacks {
		cr := cl.waitCondition(t, "team-a", a.name, leashv1.CredentialsProvisionFailure, corev1.ConditionTrue, a.reason)
		if cr.Status.Provisioned || cr.Status.Principal != "" {
			t.Errorf("%s: refused, yet provisioned %v, principal %q", a.name, cr.Status.Provisioned, cr.Status.Principal)
		}
	}
	waitFor(t, 30*time.Second, "a Warning Event for each refused request", func() (bool, string) {
		warnings := warningEvents(t, cl, "team-a")
		for _, a := range attacks {
			if len(warnings[a.name]) == 0 || warnings[a.name][0].Reason != a.reason {
				return false, a.name + " has no Warning " + a.reason
			}
		}
		return true, ""
	})
	if s := cl.secret(t, "team-a", "pass-creds"); s != nil {
		t.Error("the refused Passthrough request's Secret was written")
	}
	unchanged := func(when string) {
		t.Helper()
		for ref, want := range secrets {
			ns, name, _ := strings.Cut(ref, "/")
			got := cl.secret(t, ns, name)
			if got == nil {
				t.Errorf("%s: Secret %s is gone", when, ref)
				continue
			}
			if len(got.Data) != len(want.Data) {
				t.Errorf("%s: Secret %s has %d keys, want %d", when, ref, len(got.Data), len(want.Data))
			}
			for k, v := range want.Data {
				if !bytes.Equal(got.Data[k], v) {
					t.Errorf("%s: Secret %s key %s changed", when, ref, k)
				}
			}
			if got.Labels[leashv1.LabelCredentialsRequest] != "" || got.Annotations[secretowner.AnnotationRequestUID] != "" {
				t.Errorf("%s: Secret %s was marked as leash's: labels %v", when, ref, got.Labels)
			}
		}
	}
	unchanged("while refused")

	// The operator still works: its root key was not taken. A target
	// namespace that does not exist is a condition and a Warning, and
	// nothing is written until it does.
	admin := request(t, "leash-system", "ccm", "team-b", entries)
	cl.create(t, admin)
	cl.create(t, request(t, "leash-system", "lost", "nowhere", entries))
	cl.waitReady(t, "leash-system", "ccm")
	cl.waitCondition(t, "leash-system", "lost", leashv1.MissingTargetNamespace, corev1.ConditionTrue, "NamespaceNotFound")
	waitFor(t, 30*time.Second, "a Warning Event for the missing namespace", func() (bool, string) {
		w := warningEvents(t, cl, "leash-system")["lost"]
		return len(w) > 0 && w[0].Reason == "NamespaceNotFound", "no Warning NamespaceNotFound"
	})
	if users := cl.mintedUserNames(t); len(users) != 1 {
		t.Errorf("minted users %v, want only the administrator's ccm", users)
	}
	if s := cl.secret(t, "team-b", "ccm-creds"); s == nil || len(s.Data[operator.SecretKeyID]) == 0 {
		t.Fatal("the administrator's request in leash-system got no Secret in team-b")
	}

	for _, a := range attacks {
		if err := team.Delete(ctx, &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: a.name}}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 30*time.Second, "the refused requests to be gone", func() (bool, string) {
		for _, a := range attacks {
			err := cl.c.Get(ctx, types.NamespacedName{Namespace: "team-a", Name: a.name}, &leashv1.CredentialsRequest{})
			if !apierrors.IsNotFound(err) {
				return false, a.name + " still exists"
			}
		}
		return true, ""
	})
	unchanged("after the requests were deleted")

	// team-a hands its plain Secret over to a request of its own: leash
	// writes the key beside the Secret's data, and deletes it with the request.
	plain := cl.secret(t, "team-a", "plain")
	plain.Annotations = map[string]string{secretowner.AnnotationHandOver: "team-a/handed"}
	if err := team.Update(ctx, plain); err != nil {
		t.Fatal(err)
	}
	handed := request(t, "team-a", "handed", "team-a", entries)
	handed.Spec.SecretRef.Name = "plain"
	if err := team.Create(ctx, handed); err != nil {
		t.Fatal(err)
	}
	cl.waitReady(t, "team-a", "handed")
	s := cl.secret(t, "team-a", "plain")
	if len(s.Data[operator.SecretKeyID]) == 0 || !bytes.Equal(s.Data["token"], []byte("team-a-token")) {
		t.Errorf("the handed-over Secret has keys %d, its own token kept %v", len(s.Data), bytes.Equal(s.Data["token"], []byte("team-a-token")))
	}
	if err := team.Delete(ctx, handed); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the handed-over Secret to go with its request", func() (bool, string) {
		return cl.secret(t, "team-a", "plain") == nil, "Secret team-a/plain still exists"
	})
}

// clientAs is a client that acts as the ServiceAccount ns/name, which may
// do anything in its namespace and nothing elsewhere: a Role and a
// RoleBinding, as a cluster gives a team.
func (cl *cluster) clientAs(t *testing.T, ns, name string) client.Client {
	t.Helper()
	cl.create(t, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	cl.create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}})
	cl.create(t, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}}})
	cfg := rest.CopyConfig(cl.api.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: cl.c.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// mintedUserNames lists the users leash minted in the tests' account.
func (cl *cluster) mintedUserNames(t *testing.T) []string {
	t.Helper()
	out, err := cl.admin.ListUsers(context.Background(), &iam.ListUsersInput{PathPrefix: aws.String("/leash/")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, u := range out.Users {
		names = append(names, aws.ToString(u.UserName))
	}
	return names
}

// TestSecretRaceWithTheTeam has the team create, at the same moment as its
// requests, the very Secrets the requests name, with data of its own. Each
// race has one winner and no blend: either leash created the Secret (marked
// with the request's UID, the team's create refused) and the request is
// Ready, or the team's Secret stands byte for byte and the request is
// SecretNotOwned. Then KubeCluster's own guards: a create never applies over
// a Secret made since it was read, a write on a stale version is refused,
// and a delete names the Secret's UID.
func TestSecretRaceWithTheTeam(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "team-a")
	cl.runOperator(t, cl.operatorOptions(operator.Config{AdminNamespaces: []string{"leash-system"}}))
	team := cl.clientAs(t, "team-a", "deployer")
	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"

	const races = 8
	teamWon := make([]bool, races)
	done := make(chan int, races)
	for i := range races {
		name := fmt.Sprintf("race-%d", i)
		go func() {
			mine := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: name + "-creds"},
				Data: map[string][]byte{"token": []byte("team-" + name)}}
			if i%2 == 0 { // half the time the request goes first
				if err := team.Create(ctx, request(t, "team-a", name, "team-a", entries)); err != nil {
					t.Error(err)
				}
				teamWon[i] = team.Create(ctx, mine) == nil
			} else {
				teamWon[i] = team.Create(ctx, mine) == nil
				if err := team.Create(ctx, request(t, "team-a", name, "team-a", entries)); err != nil {
					t.Error(err)
				}
			}
			done <- i
		}()
	}
	for range races {
		<-done
	}
	for i := range races {
		name := fmt.Sprintf("race-%d", i)
		var cr *leashv1.CredentialsRequest
		waitFor(t, 60*time.Second, name+" to settle", func() (bool, string) {
			cr = cl.get(t, "team-a", name)
			ready := conditionOf(cr, leashv1.Ready)
			refused := conditionOf(cr, leashv1.CredentialsProvisionFailure)
			return (ready != nil && ready.Status == corev1.ConditionTrue) ||
				(refused != nil && refused.Status == corev1.ConditionTrue && refused.Reason == operator.ReasonSecretNotOwned), "neither Ready nor SecretNotOwned"
		})
		s := cl.secret(t, "team-a", name+"-creds")
		if teamWon[i] {
			if !bytes.Equal(s.Data["token"], []byte("team-"+name)) || len(s.Data) != 1 || s.Annotations[secretowner.AnnotationRequestUID] != "" {
				t.Errorf("%s: the team's Secret was written by leash: %d keys", name, len(s.Data))
			}
			if c := conditionOf(cr, leashv1.CredentialsProvisionFailure); c == nil || c.Reason != operator.ReasonSecretNotOwned {
				t.Errorf("%s: the team's Secret won, yet the request is not SecretNotOwned", name)
			}
		} else {
			if s.Annotations[secretowner.AnnotationRequestUID] != string(cr.UID) || len(s.Data[operator.SecretKeyID]) == 0 || len(s.Data["token"]) != 0 {
				t.Errorf("%s: leash won the race, yet its Secret is not its own alone", name)
			}
		}
	}

	// KubeCluster's guards, one at a time.
	kube := operator.KubeCluster{Client: cl.c, Reader: cl.c}
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "theirs"}, Data: map[string][]byte{"token": []byte("t")}}
	cl.create(t, theirs)
	ours := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "theirs"}, Data: map[string][]byte{"credentials": []byte("c")}}
	if err := kube.WriteSecret(ctx, ours, nil); !apierrors.IsAlreadyExists(err) {
		t.Errorf("creating over a Secret made since it was read: %v, want AlreadyExists", err)
	}
	read := cl.secret(t, "team-a", "theirs")
	changed := read.DeepCopy()
	changed.Data["token"] = []byte("t2")
	if err := cl.c.Update(ctx, changed); err != nil {
		t.Fatal(err)
	}
	if err := kube.WriteSecret(ctx, ours, read); !apierrors.IsConflict(err) {
		t.Errorf("writing on a stale version: %v, want Conflict", err)
	}
	if err := cl.c.Delete(ctx, changed); err != nil {
		t.Fatal(err)
	}
	cl.create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "theirs"}, Data: map[string][]byte{"token": []byte("new")}})
	if err := kube.DeleteSecret(ctx, "team-a", "theirs", read.UID); !apierrors.IsConflict(err) {
		t.Errorf("deleting a Secret replaced under the same name: %v, want Conflict", err)
	}
	if s := cl.secret(t, "team-a", "theirs"); s == nil || !bytes.Equal(s.Data["token"], []byte("new")) {
		t.Error("the replacement Secret was deleted or changed")
	}
}
