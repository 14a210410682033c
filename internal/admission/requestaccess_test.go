package admission

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/reqmode"
)

// accessLines words each access as Access.String does, for comparing.
func accessLines(as []Access) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}

func TestRequestAccess(t *testing.T) {
	root := types.NamespacedName{Namespace: "kube-system", Name: "aws-creds"}
	writes := []string{
		"create secrets in namespace apps",
		"update secrets app-credentials in namespace apps",
		"delete secrets app-credentials in namespace apps",
		"get secrets app-credentials in namespace apps",
	}
	mode := func(m leashv1.CredentialsMode) map[string]string {
		return map[string]string{reqmode.Annotation: string(m)}
	}
	withSAs := func(cr *leashv1.CredentialsRequest) *leashv1.CredentialsRequest {
		cr.Spec.ServiceAccountNames = []string{"app", "worker"}
		return cr
	}
	for _, tt := range []struct {
		name string
		cr   *leashv1.CredentialsRequest
		rc   RequestContext
		want []string
	}{
		{"Mint writes the target Secret, so its author must be able to",
			request("app", keySpec, nil), RequestContext{Mode: leashv1.ModeMint, RootSecret: root}, writes},
		{"Passthrough also hands out the root key, so its author must be able to read the root Secret",
			request("app", keySpec, mode(leashv1.ModePassthrough)), RequestContext{Mode: leashv1.ModeMint, RootSecret: root},
			append(slices.Clone(writes), "get secrets aws-creds in namespace kube-system")},
		{"the cluster's mode decides when the request has no annotation",
			request("app", keySpec, nil), RequestContext{Mode: leashv1.ModePassthrough, RootSecret: root},
			append(slices.Clone(writes), "get secrets aws-creds in namespace kube-system")},
		{"Passthrough with a root file needs reading every Secret, as there is no Secret to ask about",
			request("app", keySpec, mode(leashv1.ModePassthrough)), RequestContext{Mode: leashv1.ModeMint},
			append(slices.Clone(writes), "get secrets in all namespaces")},
		{"Manual only reads the Secret the administrator wrote",
			request("app", keySpec, mode(leashv1.ModeManual)), RequestContext{Mode: leashv1.ModeMint, RootSecret: root},
			[]string{"get secrets app-credentials in namespace apps"}},
		{"Manual with a role ARN is STS, which writes the web-identity Secret and proves no role of its own",
			withSAs(request("app", stsSpec, mode(leashv1.ModeManual))), RequestContext{Mode: leashv1.ModeMint, RootSecret: root}, writes},
		{"STS making the role requests a token of each named service account",
			withSAs(request("app", keySpec, mode(leashv1.ModeSTS))), RequestContext{Mode: leashv1.ModeMint, RootSecret: root},
			append(slices.Clone(writes), "create serviceaccounts/token app in namespace apps", "create serviceaccounts/token worker in namespace apps")},
		{"a request for another cloud needs nothing: leash leaves it alone",
			request("app", `{"kind":"GCPProviderSpec"}`, nil), RequestContext{Mode: leashv1.ModeMint, RootSecret: root}, nil},
		{"an invalid providerSpec still needs the Secret's rights",
			request("app", `{"kind":"AWSProviderSpec","statementEntries":"no"}`, mode(leashv1.ModePassthrough)), RequestContext{Mode: leashv1.ModeMint, RootSecret: root}, writes},
		{"an unknown mode annotation still needs the Secret's rights",
			request("app", keySpec, map[string]string{reqmode.Annotation: "Borrow"}), RequestContext{Mode: leashv1.ModeManual, RootSecret: root}, writes},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := accessLines(RequestAccess(tt.cr, tt.rc))
			if !slices.Equal(got, tt.want) {
				t.Errorf("RequestAccess:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

func TestRetargets(t *testing.T) {
	base := request("app", keySpec, map[string]string{"team": "a"})
	for _, tt := range []struct {
		name   string
		change func(cr *leashv1.CredentialsRequest)
		want   bool
	}{
		{"a finalizer changes nothing the operator does", func(cr *leashv1.CredentialsRequest) { cr.Finalizers = []string{"leash.dev/cleanup"} }, false},
		{"a label or another annotation changes nothing", func(cr *leashv1.CredentialsRequest) {
			cr.Labels = map[string]string{"x": "y"}
			cr.Annotations["team"] = "b"
		}, false},
		{"status changes nothing", func(cr *leashv1.CredentialsRequest) { cr.Status.Provisioned = true }, false},
		{"a new target Secret retargets", func(cr *leashv1.CredentialsRequest) {
			cr.Spec.SecretRef = corev1.ObjectReference{Namespace: "kube-system", Name: "aws-creds"}
		}, true},
		{"a new providerSpec retargets", func(cr *leashv1.CredentialsRequest) {
			cr.Spec.ProviderSpec = &runtime.RawExtension{Raw: []byte(stsSpec)}
		}, true},
		{"a new mode annotation retargets", func(cr *leashv1.CredentialsRequest) { cr.Annotations[reqmode.Annotation] = "Passthrough" }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cr := base.DeepCopy()
			tt.change(cr)
			if got := Retargets(base, cr); got != tt.want {
				t.Errorf("Retargets = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRefusalNamesEachMissingPermission(t *testing.T) {
	cr := request("app", keySpec, nil)
	cr.Spec.SecretRef = corev1.ObjectReference{Namespace: "kube-system", Name: "aws-creds"}
	got := Refusal("system:serviceaccount:team-a:deployer", RequestAccess(cr, RequestContext{Mode: leashv1.ModeMint})[:2])
	want := "user system:serviceaccount:team-a:deployer may not create secrets in namespace kube-system (leash creates spec.secretRef); " +
		"may not update secrets aws-creds in namespace kube-system (leash writes spec.secretRef); "
	if !strings.HasPrefix(got, want) {
		t.Errorf("Refusal = %q\nwant it to start %q", got, want)
	}
}
