package operator

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/secretowner"
)

// A request is a way to ask leash, which may write any Secret, to write one:
// these cases pin that it writes only where the request's author could have.
func TestTargetRules(t *testing.T) {
	cluster := Config{AdminNamespaces: []string{"leash-system"}, ReservedSecrets: []string{"kube-system/aws-creds"}}
	for _, tc := range []struct {
		name       string
		cfg        Config
		namespace  string // the request's
		target     string // spec.secretRef, NAMESPACE/NAME
		mode       leashv1.CredentialsMode
		wantReason string // "" for Ready
	}{
		{"a request may name a Secret in its own namespace", cluster, "team-a", "team-a/app-creds", "", ""},
		{"a request may not name a Secret in another namespace", cluster, "team-a", "team-b/app-creds", "", ReasonNamespaceNotAllowed},
		{"a request may not name the operator's root Secret", cluster, "team-a", "kube-system/aws-creds", "", ReasonSecretReserved},
		{"not even from an administrator namespace", cluster, "leash-system", "kube-system/aws-creds", "", ReasonSecretReserved},
		{"a request in an administrator namespace may name another namespace", cluster, "leash-system", "team-b/app-creds", "", ""},
		{"with no administrator namespace, none may", Config{}, "leash-system", "team-b/app-creds", "", ReasonNamespaceNotAllowed},
		{"Passthrough outside the administrator namespaces would hand its author the root key", cluster, "team-a", "team-a/app-creds", leashv1.ModePassthrough, ReasonPassthroughNotAllowed},
		{"Passthrough in an administrator namespace is allowed", cluster, "leash-system", "leash-system/app-creds", leashv1.ModePassthrough, ""},
		{"a target outside --secret-namespaces is refused", Config{AdminNamespaces: []string{"leash-system"}, SecretNamespaces: []string{"team-b"}}, "leash-system", "team-c/app-creds", "", ReasonNamespaceNotServed},
		{"a target inside --secret-namespaces is allowed", Config{AdminNamespaces: []string{"leash-system"}, SecretNamespaces: []string{"team-b"}}, "leash-system", "team-b/app-creds", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{cfg: tc.cfg})
			if tc.cfg.AdminNamespaces == nil {
				e.p.cfg.AdminNamespaces = nil // newEnv's default is a folder's "*"
			}
			cr := mintRequest(t, "app", allow("*", "ec2:DescribeInstances"))
			cr.Namespace = tc.namespace
			ns, name, _ := strings.Cut(tc.target, "/")
			cr.Spec.SecretRef = corev1.ObjectReference{Namespace: ns, Name: name}
			if tc.mode != "" {
				withMode(cr, tc.mode)
			}
			out, err := e.sync(t, e.p, cr)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantReason == "" {
				if out.Failure != nil || !out.Provisioned {
					t.Fatalf("failure %+v, provisioned %v; want Ready", out.Failure, out.Provisioned)
				}
				return
			}
			if out.Failure == nil || out.Failure.Reason != tc.wantReason {
				t.Fatalf("failure %+v, want reason %s", out.Failure, tc.wantReason)
			}
			if !strings.Contains(out.Failure.Message, "spec.secretRef") && tc.wantReason != ReasonPassthroughNotAllowed {
				t.Errorf("message %q does not name spec.secretRef", out.Failure.Message)
			}
			if users := e.mintedUsers(t); len(users) != 0 {
				t.Errorf("refused before IAM, yet users %v exist", users)
			}
			if s := e.secret(t, cr); s != nil {
				t.Errorf("refused, yet Secret %s/%s was written", s.Namespace, s.Name)
			}
		})
	}
}

// A Secret leash did not create is never written or deleted; its owner can
// hand it over by name, and then it is the request's.
func TestSecretNotOwned(t *testing.T) {
	e := newEnv(t, envOptions{})
	cr := mintRequest(t, "app", allow("*", "ec2:DescribeInstances"))
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "app-creds"},
		Data: map[string][]byte{"token": []byte("their-token")}}
	if err := e.cluster.WriteSecret(e.ctx, theirs, nil); err != nil {
		t.Fatal(err)
	}
	out, err := e.sync(t, e.p, cr)
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure == nil || out.Failure.Reason != ReasonSecretNotOwned {
		t.Fatalf("failure %+v, want %s", out.Failure, ReasonSecretNotOwned)
	}
	if !strings.Contains(out.Failure.Message, secretowner.AnnotationHandOver+"=apps/app") {
		t.Errorf("message %q does not say how to hand the Secret over", out.Failure.Message)
	}
	if users := e.mintedUsers(t); len(users) != 0 {
		t.Errorf("a refused request minted users %v", users)
	}
	if s := e.secret(t, cr); !bytes.Equal(s.Data["token"], []byte("their-token")) || len(s.Data) != 1 {
		t.Errorf("their Secret changed: keys %v", slices.Sorted(maps.Keys(s.Data)))
	}
	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if s := e.secret(t, cr); s == nil {
		t.Fatal("removing the request deleted a Secret it does not own")
	}

	// The owner hands it over: leash writes the key beside their data, and
	// the Secret goes with the request.
	theirs.Annotations = map[string]string{secretowner.AnnotationHandOver: "apps/app"}
	if err := e.cluster.WriteSecret(e.ctx, theirs, nil); err != nil {
		t.Fatal(err)
	}
	e.ready(t, cr)
	s := e.secret(t, cr)
	if len(s.Data[SecretKeyID]) == 0 {
		t.Fatalf("the handed-over Secret holds no key: keys %v", slices.Sorted(maps.Keys(s.Data)))
	}
	if s.Annotations[secretowner.AnnotationRequestUID] != string(cr.UID) {
		t.Errorf("the handed-over Secret is not marked with the request's UID: %v", s.Annotations)
	}
	if err := e.p.Remove(e.ctx, cr); err != nil {
		t.Fatal(err)
	}
	if s := e.secret(t, cr); s != nil {
		t.Error("the handed-over Secret outlived its request")
	}
}

// A request deleted and made again under the same name has a new UID: the
// Secret created for the old one is not its by name alone.
func TestSecretOfAnEarlierRequestOfTheSameName(t *testing.T) {
	e := newEnv(t, envOptions{})
	old := mintRequest(t, "app", allow("*", "ec2:DescribeInstances"))
	e.ready(t, old)
	again := mintRequest(t, "app", allow("*", "ec2:DescribeInstances"))
	again.UID = "uid-app-again"
	out, err := e.sync(t, e.p, again)
	if err != nil {
		t.Fatal(err)
	}
	if out.Failure == nil || out.Failure.Reason != ReasonSecretNotOwned || !strings.Contains(out.Failure.Message, "another request (UID uid-app)") {
		t.Fatalf("failure %+v, want %s naming the earlier request's UID", out.Failure, ReasonSecretNotOwned)
	}
}
