package deploy

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/admission"
)

const (
	// certManagerInstall is the kustomization that applies deploy/ with
	// the component deploy/cert-manager, which takes the webhook's
	// certificate from cert-manager.
	certManagerInstall = "../../deploy/cert-manager"
	webhookService     = "leash-webhook"
	webhookPort        = 9443
)

// failurePolicies is docs/admission/certificates.md's table: each webhook's
// failurePolicy by the namespace's leash.dev/admission label ("" for
// absent); a webhook missing from a column is not called there.
var failurePolicies = map[string]map[string]string{
	"MutatingWebhookConfiguration": {
		"enforce": "enforce.pods.leash.dev Fail",
		"warn":    "pods.leash.dev Ignore",
		"":        "pods.leash.dev Ignore",
		"other":   "pods.leash.dev Ignore",
		"off":     "",
	},
	"ValidatingWebhookConfiguration": {
		"enforce": "enforce.pods.leash.dev Fail",
		"warn":    "warn.pods.leash.dev Ignore",
		"":        "pods.leash.dev Ignore",
		"other":   "pods.leash.dev Ignore",
		"off":     "",
	},
}

// requiredPolicies is failurePolicies for a pod labelled
// leash.dev/credentials-required=true (admission.LabelCredentialsRequired):
// it fails closed in every namespace the webhooks are called for, and is
// mutated once, by required.pods.leash.dev or enforce.pods.leash.dev.
var requiredPolicies = map[string]map[string]string{
	"MutatingWebhookConfiguration": {
		"enforce": "enforce.pods.leash.dev Fail",
		"warn":    "required.pods.leash.dev Fail",
		"":        "required.pods.leash.dev Fail",
		"other":   "required.pods.leash.dev Fail",
		"off":     "",
	},
	"ValidatingWebhookConfiguration": failurePolicies["ValidatingWebhookConfiguration"],
}

// webhookCalls lists "name failurePolicy" of the webhooks whose namespace
// selector matches a namespace with nsLabels and whose object selector (nil:
// every object) matches a pod with podLabels.
func webhookCalls(t *testing.T, names []string, selectors, objSelectors []*metav1.LabelSelector, policies []*admissionregistrationv1.FailurePolicyType, nsLabels, podLabels map[string]string) string {
	t.Helper()
	var out []string
	for i, sel := range selectors {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil {
			t.Fatalf("webhook %s: namespaceSelector: %v", names[i], err)
		}
		o, err := metav1.LabelSelectorAsSelector(objSelectors[i])
		if err != nil {
			t.Fatalf("webhook %s: objectSelector: %v", names[i], err)
		}
		if objSelectors[i] == nil {
			o = labels.Everything()
		}
		if s.Matches(labels.Set(nsLabels)) && o.Matches(labels.Set(podLabels)) {
			out = append(out, fmt.Sprintf("%s %s", names[i], *policies[i]))
		}
	}
	return strings.Join(out, ", ")
}

// checkWebhooks checks that the configurations call the Service, that the
// Service reaches the Deployment's webhook port, and the failurePolicy of
// each namespace setting.
func checkWebhooks(t *testing.T, objs map[string]*unstructured.Unstructured) {
	d := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
	svc := as[corev1.Service](t, objs["Service/"+webhookService])
	for k, v := range svc.Spec.Selector {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("Service %s selects %s=%s, which the operator's pods do not carry", svc.Name, k, v)
		}
	}
	if len(svc.Spec.Selector) == 0 || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 443 || svc.Spec.Ports[0].Name != "webhook" {
		t.Fatalf("Service %s: selector %v, ports %+v; want the operator's pods, one port webhook 443", svc.Name, svc.Spec.Selector, svc.Spec.Ports)
	}
	c := container(d, "operator")
	if got := containerPort(c, svc.Spec.Ports[0].TargetPort); got != webhookPort || !slices.Contains(c.Args, fmt.Sprintf("--webhook-port=%d", webhookPort)) {
		t.Errorf("Service %s targets container port %d; the operator serves --webhook-port in %q; want both %d", svc.Name, got, c.Args, webhookPort)
	}

	m := as[admissionregistrationv1.MutatingWebhookConfiguration](t, objs["MutatingWebhookConfiguration/leash"])
	v := as[admissionregistrationv1.ValidatingWebhookConfiguration](t, objs["ValidatingWebhookConfiguration/leash"])
	type hook struct {
		kind, name, path string
		cc               admissionregistrationv1.WebhookClientConfig
		sel, objSel      *metav1.LabelSelector
		fp               *admissionregistrationv1.FailurePolicyType
		se               *admissionregistrationv1.SideEffectClass
		timeout          *int32
	}
	var hooks []hook
	for _, w := range m.Webhooks {
		hooks = append(hooks, hook{"MutatingWebhookConfiguration", w.Name, "", w.ClientConfig, w.NamespaceSelector, w.ObjectSelector, w.FailurePolicy, w.SideEffects, w.TimeoutSeconds})
		if s := w.ClientConfig.Service; s == nil || s.Path == nil || *s.Path != admission.PathMutate {
			t.Errorf("mutating webhook %s calls %+v; want path %s", w.Name, s, admission.PathMutate)
		}
		if w.ReinvocationPolicy == nil || *w.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy {
			t.Errorf("mutating webhook %s: reinvocationPolicy %v; want IfNeeded", w.Name, w.ReinvocationPolicy)
		}
	}
	requestHooks := 0
	for _, w := range v.Webhooks {
		if w.Name == requestWebhook {
			requestHooks++
			checkRequestWebhook(t, w, svc)
			continue
		}
		hooks = append(hooks, hook{"ValidatingWebhookConfiguration", w.Name, "", w.ClientConfig, w.NamespaceSelector, w.ObjectSelector, w.FailurePolicy, w.SideEffects, w.TimeoutSeconds})
	}
	if requestHooks != 1 {
		t.Errorf("ValidatingWebhookConfiguration has %d webhooks %s; want 1", requestHooks, requestWebhook)
	}
	for _, h := range hooks {
		s := h.cc.Service
		if s == nil || s.Namespace != namespace || s.Name != svc.Name || s.Port == nil || *s.Port != svc.Spec.Ports[0].Port || h.cc.URL != nil {
			t.Errorf("%s %s calls %+v (URL %v); want Service %s/%s port %d", h.kind, h.name, s, h.cc.URL, namespace, svc.Name, svc.Spec.Ports[0].Port)
		}
		if len(h.cc.CABundle) != 0 {
			t.Errorf("%s %s ships a caBundle; the operator (or cert-manager) fills it", h.kind, h.name)
		}
		if h.se == nil || *h.se != admissionregistrationv1.SideEffectClassNone || h.timeout == nil || *h.timeout != 5 {
			t.Errorf("%s %s: sideEffects %v, timeoutSeconds %v; want None and 5", h.kind, h.name, h.se, h.timeout)
		}
		sel, err := metav1.LabelSelectorAsSelector(h.sel)
		if err != nil || sel.Matches(labels.Set{"kubernetes.io/metadata.name": namespace, "leash.dev/admission": "enforce"}) {
			t.Errorf("%s %s calls the webhook for pods in %s (%v): the operator could not restart while its webhook is down", h.kind, h.name, namespace, err)
		}
	}
	for _, pod := range []struct {
		labels map[string]string
		tables map[string]map[string]string
	}{
		{map[string]string{"app": "web"}, failurePolicies},
		{map[string]string{"app": "web", admission.LabelCredentialsRequired: "true"}, requiredPolicies},
	} {
		for kind, table := range pod.tables {
			var names []string
			var sels, objSels []*metav1.LabelSelector
			var fps []*admissionregistrationv1.FailurePolicyType
			for _, h := range hooks {
				if h.kind == kind {
					names, sels, objSels, fps = append(names, h.name), append(sels, h.sel), append(objSels, h.objSel), append(fps, h.fp)
				}
			}
			for label, want := range table {
				nsLabels := map[string]string{"kubernetes.io/metadata.name": "team-a"}
				if label != "" {
					nsLabels["leash.dev/admission"] = label
				}
				if got := webhookCalls(t, names, sels, objSels, fps, nsLabels, pod.labels); got != want {
					t.Errorf("%s, namespace labelled leash.dev/admission=%q, pod labelled %v: calls %q; want %q", kind, label, pod.labels, got, want)
				}
			}
		}
	}
}

// requestWebhook is the CredentialsRequest webhook's name.
const requestWebhook = "credentialsrequests.leash.dev"

// checkRequestWebhook checks the CredentialsRequest webhook: it is called
// for every create and update of a request in every namespace, fails
// closed (a security check that is down must not be skipped) within a
// short timeout, and calls the operator's path for it.
func checkRequestWebhook(t *testing.T, w admissionregistrationv1.ValidatingWebhook, svc *corev1.Service) {
	t.Helper()
	s := w.ClientConfig.Service
	if s == nil || s.Namespace != namespace || s.Name != svc.Name || s.Port == nil || *s.Port != svc.Spec.Ports[0].Port || s.Path == nil || *s.Path != admission.PathRequest {
		t.Errorf("%s calls %+v; want Service %s/%s port %d path %s", w.Name, s, namespace, svc.Name, svc.Spec.Ports[0].Port, admission.PathRequest)
	}
	want := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"cloudcredential.openshift.io"}, APIVersions: []string{"v1"}, Resources: []string{"credentialsrequests"}}}}
	if fmt.Sprint(w.Rules) != fmt.Sprint(want) {
		t.Errorf("%s rules %+v; want %+v", w.Name, w.Rules, want)
	}
	if w.FailurePolicy == nil || *w.FailurePolicy != admissionregistrationv1.Fail {
		t.Errorf("%s failurePolicy %v; want Fail: a request must not skip the check while the webhook is down", w.Name, w.FailurePolicy)
	}
	if w.SideEffects == nil || *w.SideEffects != admissionregistrationv1.SideEffectClassNone || w.TimeoutSeconds == nil || *w.TimeoutSeconds > 5 {
		t.Errorf("%s sideEffects %v, timeoutSeconds %v; want None and at most 5", w.Name, w.SideEffects, w.TimeoutSeconds)
	}
	if w.NamespaceSelector == nil || len(w.NamespaceSelector.MatchLabels)+len(w.NamespaceSelector.MatchExpressions) != 0 || w.ObjectSelector != nil {
		t.Errorf("%s selects namespaces %+v, objects %+v; want every request", w.Name, w.NamespaceSelector, w.ObjectSelector)
	}
	if len(w.MatchConditions) != 1 || !strings.Contains(w.MatchConditions[0].Expression, "request.operation == 'CREATE'") {
		t.Errorf("%s matchConditions %+v; want one that calls it for every create", w.Name, w.MatchConditions)
	}
}

// TestCertManagerComponent renders deploy/cert-manager (deploy/ with the
// cert-manager component) and checks that its parts agree: the Certificate
// is for the webhook Service's names and writes the Secret the pod mounts,
// the operator serves the mounted folder, and both configurations take
// their CA from that Certificate.
func TestCertManagerComponent(t *testing.T) {
	kubectl := kubectlPath(t)
	base := byKey(t, render(t, kubectl, deployDir))
	objs := byKey(t, render(t, kubectl, certManagerInstall))
	for k := range base {
		if objs[k] == nil {
			t.Errorf("%s of deploy/ is missing from %s", k, certManagerInstall)
		}
	}
	for _, k := range []string{"Issuer/leash-selfsigned", "Certificate/leash-webhook-ca", "Issuer/leash-webhook-ca", "Certificate/leash-webhook"} {
		if objs[k] == nil {
			t.Fatalf("%s is not rendered", k)
		}
		if objs[k].GetNamespace() != namespace {
			t.Errorf("%s is in namespace %q; want %s", k, objs[k].GetNamespace(), namespace)
		}
	}
	cert := objs["Certificate/leash-webhook"]
	secretName, _, _ := unstructured.NestedString(cert.Object, "spec", "secretName")
	dnsNames, _, _ := unstructured.NestedStringSlice(cert.Object, "spec", "dnsNames")
	issuer, _, _ := unstructured.NestedString(cert.Object, "spec", "issuerRef", "name")
	if want := []string{webhookService + "." + namespace + ".svc", webhookService + "." + namespace + ".svc.cluster.local"}; !slices.Equal(dnsNames, want) {
		t.Errorf("Certificate dnsNames %v; want the Service's %v", dnsNames, want)
	}
	if objs["Issuer/"+issuer] == nil {
		t.Errorf("Certificate's issuer %q is not rendered", issuer)
	}
	caSecret, _, _ := unstructured.NestedString(objs["Issuer/leash-webhook-ca"].Object, "spec", "ca", "secretName")
	if caCert, _, _ := unstructured.NestedString(objs["Certificate/leash-webhook-ca"].Object, "spec", "secretName"); caCert != caSecret {
		t.Errorf("the CA Issuer signs with Secret %q; the CA Certificate writes %q", caSecret, caCert)
	}

	d := as[appsv1.Deployment](t, objs["Deployment/leash-operator"])
	c := container(d, "operator")
	var dir string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--webhook-cert-dir="); ok {
			dir = v
		}
	}
	var vol string
	for _, m := range c.VolumeMounts {
		if m.MountPath == dir {
			vol = m.Name
			if !m.ReadOnly {
				t.Errorf("the certificate is mounted writable")
			}
		}
	}
	var mounted string
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.Name == vol && v.Secret != nil {
			mounted = v.Secret.SecretName
		}
	}
	if dir == "" || mounted != secretName {
		t.Errorf("the operator serves --webhook-cert-dir %q, where Secret %q is mounted; want the Certificate's Secret %q", dir, mounted, secretName)
	}
	if !slices.Contains(c.Args, fmt.Sprintf("--webhook-port=%d", webhookPort)) {
		t.Errorf("args %q lack --webhook-port=%d", c.Args, webhookPort)
	}
	for _, problem := range restrictedProblems(&d.Spec.Template.Spec) {
		t.Errorf("pod security: %s", problem)
	}
	for _, k := range []string{"MutatingWebhookConfiguration/leash", "ValidatingWebhookConfiguration/leash"} {
		if got, want := objs[k].GetAnnotations()["cert-manager.io/inject-ca-from"], namespace+"/"+cert.GetName(); got != want {
			t.Errorf("%s: cert-manager.io/inject-ca-from %q; want %q", k, got, want)
		}
		if base[k].GetAnnotations()["cert-manager.io/inject-ca-from"] != "" {
			t.Errorf("%s of deploy/ itself carries cert-manager.io/inject-ca-from", k)
		}
	}
}

// webhookRBACCases pin what the webhook and its certificate need, and no
// more.
func webhookRBACCases(ctx context.Context, t *testing.T, op, admin client.Client, attrs func(verb, grp, res, sub, ns, name string) authorizationv1.ResourceAttributes, appNamespace string) []rbacCase {
	const arg = "admissionregistration.k8s.io"
	other := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "not-leash"}}
	policy := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: appNamespace, Name: "deny-imds"}}
	for _, o := range []client.Object{other, policy} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
	tls := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "leash-webhook-tls"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": []byte("placeholder"), "tls.key": []byte("placeholder")}}
	setCABundle := func(obj client.Object) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			if err := op.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
				return err
			}
			switch o := obj.(type) {
			case *admissionregistrationv1.MutatingWebhookConfiguration:
				for i := range o.Webhooks {
					o.Webhooks[i].ClientConfig.CABundle = []byte("placeholder")
				}
				if o.Name == "not-leash" {
					o.Labels = map[string]string{"changed": "by-leash"}
				}
			case *admissionregistrationv1.ValidatingWebhookConfiguration:
				for i := range o.Webhooks {
					o.Webhooks[i].ClientConfig.CABundle = []byte("placeholder")
				}
			}
			return op.Update(ctx, obj)
		}
	}
	return []rbacCase{
		{name: "mutatingwebhookconfigurations list", attrs: attrs("list", arg, "mutatingwebhookconfigurations", "", "", ""), allowed: true,
			call: func(ctx context.Context) error {
				return op.List(ctx, &admissionregistrationv1.MutatingWebhookConfigurationList{})
			}},
		{name: "validatingwebhookconfigurations watch", attrs: attrs("watch", arg, "validatingwebhookconfigurations", "", "", ""), allowed: true},
		{name: "the configurations named leash listed by name, as the CA bundle's watch does", attrs: attrs("list", arg, "mutatingwebhookconfigurations", "", "", "leash"), allowed: true,
			call: func(ctx context.Context) error {
				for _, l := range []client.ObjectList{&admissionregistrationv1.MutatingWebhookConfigurationList{}, &admissionregistrationv1.ValidatingWebhookConfigurationList{}} {
					if err := op.List(ctx, l, client.MatchingFields{"metadata.name": "leash"}); err != nil {
						return err
					}
				}
				return nil
			}},
		{name: "mutatingwebhookconfigurations update of leash (caBundle)", attrs: attrs("update", arg, "mutatingwebhookconfigurations", "", "", "leash"), allowed: true,
			call: setCABundle(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "leash"}})},
		{name: "validatingwebhookconfigurations update of leash (caBundle)", attrs: attrs("update", arg, "validatingwebhookconfigurations", "", "", "leash"), allowed: true,
			call: setCABundle(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "leash"}})},
		{name: "validatingwebhookconfigurations patch of leash", attrs: attrs("patch", arg, "validatingwebhookconfigurations", "", "", "leash"), allowed: true},
		{name: "serviceaccounts list in all namespaces", attrs: attrs("list", "", "serviceaccounts", "", "", ""), allowed: true,
			call: func(ctx context.Context) error { return op.List(ctx, &corev1.ServiceAccountList{}) }},
		{name: "networkpolicies list in all namespaces", attrs: attrs("list", "networking.k8s.io", "networkpolicies", "", "", ""), allowed: true,
			call: func(ctx context.Context) error {
				var l networkingv1.NetworkPolicyList
				if err := op.List(ctx, &l); err != nil {
					return err
				}
				if len(l.Items) != 1 {
					return fmt.Errorf("listed %d NetworkPolicies; want 1", len(l.Items))
				}
				return nil
			}},
		{name: "networkpolicies watch", attrs: attrs("watch", "networking.k8s.io", "networkpolicies", "", "", ""), allowed: true},
		{name: "secrets create of leash-webhook-tls", attrs: attrs("create", "", "secrets", "", namespace, ""), allowed: true,
			call: func(ctx context.Context) error { return op.Create(ctx, tls.DeepCopy()) }},
		{name: "secrets update of leash-webhook-tls", attrs: attrs("update", "", "secrets", "", namespace, "leash-webhook-tls"), allowed: true,
			call: func(ctx context.Context) error {
				var s corev1.Secret
				if err := op.Get(ctx, types.NamespacedName{Namespace: namespace, Name: "leash-webhook-tls"}, &s); err != nil {
					return err
				}
				s.Data["tls.crt"] = []byte("renewed")
				return op.Update(ctx, &s)
			}},

		{name: "no mutatingwebhookconfigurations update of another", attrs: attrs("update", arg, "mutatingwebhookconfigurations", "", "", other.Name),
			call: setCABundle(other.DeepCopy())},
		{name: "no mutatingwebhookconfigurations create", attrs: attrs("create", arg, "mutatingwebhookconfigurations", "", "", ""),
			call: func(ctx context.Context) error {
				return op.Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "made-by-leash"}})
			}},
		{name: "no validatingwebhookconfigurations delete of leash", attrs: attrs("delete", arg, "validatingwebhookconfigurations", "", "", "leash"),
			call: func(ctx context.Context) error {
				return op.Delete(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "leash"}})
			}},
		{name: "no serviceaccounts update", attrs: attrs("update", "", "serviceaccounts", "", appNamespace, "cloud-controller")},
		{name: "no networkpolicies delete", attrs: attrs("delete", "networking.k8s.io", "networkpolicies", "", appNamespace, policy.Name),
			call: func(ctx context.Context) error { return op.Delete(ctx, policy.DeepCopy()) }},
		{name: "no networkpolicies create", attrs: attrs("create", "networking.k8s.io", "networkpolicies", "", appNamespace, "")},
	}
}
