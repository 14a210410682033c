package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
)

// startAPIServer is a real API server with the CredentialsRequest CRD, and
// the scheme of its client.
func startAPIServer(t *testing.T) (*apiserver.Server, *runtime.Scheme) {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := leashv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return apiserver.Start(t, apiserver.Options{Scheme: scheme, CRDDirs: []string{filepath.Join("..", "..", "deploy", "crd")}}), scheme
}

// TestRequestHook pins the CredentialsRequest webhook's answers, from the
// AdmissionReview to the verdict and its message. Whether the author may
// do each thing is the API server's authorization's to say, so the hook
// asks a real one (SubjectAccessReviews), where team-a's deployer may do
// everything with Secrets in team-a and nothing elsewhere.
func TestRequestHook(t *testing.T) {
	srv, scheme := startAPIServer(t)
	ctx := context.Background()
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-b"}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "secrets"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "secrets"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "secrets"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "deployer"}}},
		// A Secret of team-a that leash did not create.
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "hand-made"}, StringData: map[string]string{"note": "not leash's"}},
	} {
		if err := srv.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	h := &requestHook{client: srv.Client, reader: srv.Client, decoder: admission.NewDecoder(scheme), o: Requests{
		RequestContext: RequestContext{Mode: leashv1.ModeMint, RootSecret: types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}},
		Reserved:       []string{"kube-system/aws-creds"},
	}}
	deployer := authenticationv1.UserInfo{Username: "deployer", Groups: []string{"system:authenticated"}}
	admin := authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters"}}
	cr := func(secretNS, secret string, edit ...func(*leashv1.CredentialsRequest)) *leashv1.CredentialsRequest {
		r := request("app", keySpec, nil)
		r.TypeMeta = metav1.TypeMeta{APIVersion: leashv1.GroupVersion.String(), Kind: "CredentialsRequest"}
		r.Namespace = "team-a"
		r.Spec.SecretRef = corev1.ObjectReference{Namespace: secretNS, Name: secret}
		for _, e := range edit {
			e(r)
		}
		return r
	}
	raw := func(r *leashv1.CredentialsRequest) runtime.RawExtension {
		if r == nil {
			return runtime.RawExtension{}
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: data}
	}
	ask := func(op admissionv1.Operation, user authenticationv1.UserInfo, r, old *leashv1.CredentialsRequest) admission.Request {
		return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{UID: "77e0", Operation: op, Namespace: "team-a", Name: "app",
			Kind: metav1.GroupVersionKind{Group: leashv1.GroupVersion.Group, Version: "v1", Kind: "CredentialsRequest"}, UserInfo: user, Object: raw(r), OldObject: raw(old)}}
	}
	gcp := func(r *leashv1.CredentialsRequest) {
		r.Spec.ProviderSpec = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"cloudcredential.openshift.io/v1","kind":"GCPProviderSpec"}`)}
	}
	labelled := func(r *leashv1.CredentialsRequest) { r.Labels = map[string]string{"tier": "web"} }
	tests := []struct {
		name string
		req  admission.Request
		want verdict
	}{
		{"a team's request for a Secret of its own namespace is admitted", ask(admissionv1.Create, deployer, cr("team-a", "app-credentials"), nil), verdict{allowed: true}},
		{"a team's request for another namespace's Secret is refused, naming each permission it lacks",
			ask(admissionv1.Create, deployer, cr("team-b", "app-credentials"), nil),
			verdict{says: []string{"user deployer", "may not create secrets in namespace team-b", "may not update secrets app-credentials in namespace team-b", "may not delete secrets app-credentials in namespace team-b", "may not get secrets app-credentials in namespace team-b"}}},
		{"Passthrough also asks to read the root credentials' Secret",
			ask(admissionv1.Create, deployer, cr("team-a", "app-credentials", func(r *leashv1.CredentialsRequest) {
				r.Annotations = map[string]string{"leash.dev/mode": string(leashv1.ModePassthrough)}
			}), nil), verdict{says: []string{"may not get secrets aws-creds in namespace kube-system"}}},
		{"the operator's own Secret is refused whoever asks", ask(admissionv1.Create, admin, cr("kube-system", "aws-creds"), nil),
			verdict{says: []string{"Secret kube-system/aws-creds is the operator's own"}}},
		{"a Secret leash did not create is refused, whoever asks", ask(admissionv1.Create, admin, cr("team-a", "hand-made"), nil),
			verdict{says: []string{"leash did not create it"}}},
		{"a request for another cloud is admitted: leash writes nothing for it", ask(admissionv1.Create, deployer, cr("team-b", "x", gcp), nil), verdict{allowed: true}},
		{"an update that changes neither the spec nor the mode is admitted unasked",
			ask(admissionv1.Update, deployer, cr("team-b", "app-credentials", labelled), cr("team-b", "app-credentials")), verdict{allowed: true}},
		{"an update that retargets the request is judged as a creation",
			ask(admissionv1.Update, deployer, cr("team-b", "app-credentials"), cr("team-a", "app-credentials")), verdict{says: []string{"may not create secrets in namespace team-b"}}},
		{"a deletion is admitted unasked", ask(admissionv1.Delete, deployer, nil, cr("team-b", "app-credentials")), verdict{allowed: true}},
		{"an object that is no CredentialsRequest is a bad request", func() admission.Request {
			r := ask(admissionv1.Create, deployer, cr("team-a", "x"), nil)
			r.Object.Raw = []byte(`{"apiVersion":"cloudcredential.openshift.io/v1","kind":"CredentialsRequest","spec":7}`)
			return r
		}(), verdict{code: http.StatusBadRequest}},
		{"a stored object that is no CredentialsRequest is a bad request", func() admission.Request {
			r := ask(admissionv1.Update, deployer, cr("team-a", "x"), cr("team-a", "x"))
			r.OldObject.Raw = []byte(`[]`)
			return r
		}(), verdict{code: http.StatusBadRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, h.handle(ctx, tt.req))
		})
	}
	t.Run("outside --secret-namespaces a target is refused, naming the setting", func(t *testing.T) {
		only := *h
		only.o.SecretNamespaces = []string{"team-b"}
		verdict{says: []string{"spec.secretRef.namespace team-a is not among the namespaces leash may write Secrets in (team-b)"}}.
			check(t, only.handle(ctx, ask(admissionv1.Create, admin, cr("team-a", "app-credentials"), nil)))
	})
}
