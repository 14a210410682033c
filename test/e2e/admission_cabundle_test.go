package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"leash.dev/leash/analyze"
	"leash.dev/leash/internal/admission"
	"leash.dev/leash/internal/admission/webhookcert"
	"leash.dev/leash/internal/operator"
)

// restoreBound is how soon a configuration re-created or given a stale
// bundle must carry the operator's bundle again. Before the configurations
// were watched, a re-created one waited for the next resync (a minute).
const restoreBound = 5 * time.Second

// rotatingWebhook is the operator's webhook as deploy/ runs it: serving
// the certificate the operator keeps (Options.Rotate), at the local
// address deploy/base/webhook.yaml was installed to call. The resync stays the
// default minute, so that only the watch can restore a bundle in time.
func rotatingWebhook(wio envtest.WebhookInstallOptions) *admission.Options {
	return &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, RefuseAt: analyze.High,
		Rotate: &webhookcert.Options{Namespace: "leash-system", ExtraIPs: []net.IP{net.ParseIP(wio.LocalServingHost)}}}
}

// TestWebhookCABundleRestored runs the operator with its own certificate
// against deploy/base/webhook.yaml on a real API server, with pods in a
// namespace whose webhooks fail closed. Deleting both configurations and
// creating them again without a caBundle, as kubectl delete and kubectl
// apply -k deploy/ do in an upgrade, leaves them without one for less than
// restoreBound, five times in a row; so does giving them a stale bundle
// (envtest's CA, which the operator's certificate does not chain to). After
// each, pods are admitted again.
func TestWebhookCABundleRestored(t *testing.T) {
	cl := newCluster(t, clusterOptions{webhooks: true})
	ctx := context.Background()
	cl.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "leash-system"}})
	cl.create(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", Labels: map[string]string{"leash.dev/admission": "enforce"}}})
	cl.api.ServiceAccounts(t, "apps")
	wio := cl.api.Env.WebhookInstallOptions
	o := cl.operatorOptions(operator.Config{})
	o.Webhook = rotatingWebhook(wio)
	_, _ = cl.runOperator(t, o)

	// At start the configurations carry envtest's CA: the operator
	// replaces it with its own.
	var ca []byte
	waitFor(t, 30*time.Second, "the operator to publish its CA", func() (bool, string) {
		s := &corev1.Secret{}
		if err := cl.c.Get(ctx, types.NamespacedName{Namespace: "leash-system", Name: webhookcert.DefaultSecret}, s); err != nil {
			return false, err.Error()
		}
		ca = s.Data[webhookcert.KeyCACert]
		return bundlesAre(ctx, t, cl.c, ca), "the configurations do not carry the Secret's ca.crt"
	})
	if bytes.Contains(ca, wio.LocalServingCAData) {
		t.Fatalf("the Secret's ca.crt holds envtest's CA")
	}
	pods := 0
	admitted := func(what string) {
		t.Helper()
		pods++
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: fmt.Sprintf("pod-%d", pods)},
			Spec: corev1.PodSpec{AutomountServiceAccountToken: new(bool), Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
		// The API server reads its webhook configurations from a cache of
		// its own, so it may still call with the old bundle for a moment.
		waitFor(t, 10*time.Second, what+": pod "+pod.Name+" admitted", func() (bool, string) {
			err := cl.c.Create(ctx, pod)
			return err == nil, fmt.Sprint(err)
		})
	}
	admitted("the operator's CA published")

	// restored measures how long after change the configurations carry ca
	// again, and fails the test past restoreBound.
	restored := func(what string, change func()) time.Duration {
		t.Helper()
		start := time.Now()
		change()
		for !bundlesAre(ctx, t, cl.c, ca) {
			if time.Since(start) > restoreBound {
				t.Fatalf("%s: the configurations do not carry the operator's CA %v later", what, restoreBound)
			}
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		t.Logf("%s: the bundle was back in %v", what, took.Round(time.Millisecond))
		return took
	}

	var times []string
	for i := range 5 {
		what := fmt.Sprintf("re-created, run %d", i+1)
		m, v := webhookConfigurations(ctx, t, cl.c)
		took := restored(what, func() {
			for _, obj := range []client.Object{m, v} {
				if err := cl.c.Delete(ctx, obj); err != nil {
					t.Fatal(err)
				}
			}
			for _, obj := range []client.Object{m, v} {
				fresh := obj.DeepCopyObject().(client.Object)
				fresh.SetResourceVersion("")
				fresh.SetUID("")
				fresh.SetCreationTimestamp(metav1.Time{})
				fresh.SetManagedFields(nil)
				fresh.SetGeneration(0)
				setCABundles(fresh, nil)
				if err := cl.c.Create(ctx, fresh); err != nil {
					t.Fatal(err)
				}
			}
		})
		times = append(times, took.Round(time.Millisecond).String())
		admitted(what)
	}
	t.Logf("re-created without a caBundle, restored in: %s", strings.Join(times, ", "))

	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		what := kind + " given a stale bundle"
		restored(what, func() {
			m, v := webhookConfigurations(ctx, t, cl.c)
			obj := client.Object(m)
			if kind == "ValidatingWebhookConfiguration" {
				obj = v
			}
			setCABundles(obj, wio.LocalServingCAData)
			if err := cl.c.Update(ctx, obj); err != nil {
				t.Fatal(err)
			}
		})
		admitted(what)
	}
}

// TestWebhookStoppedKeepsCredentials starts the operator with its own
// certificate while the MutatingWebhookConfiguration carries cert-manager's
// cert-manager.io/inject-ca-from. The webhook is stopped, not the
// operator: it serves no certificate and leaves the caBundles alone, the
// refusal is a Warning Event on the configuration, and a CredentialsRequest
// created before is minted to Ready. Once the annotation goes the webhook
// serves again, so that a new request, which the CredentialsRequest
// webhook fails closed on, is admitted and minted too.
func TestWebhookStoppedKeepsCredentials(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	ctx := context.Background()
	cl.namespace(t, "leash-system")
	cl.namespace(t, "apps")
	entries := "- effect: Allow\n  action: [\"ec2:DescribeInstances\"]\n  resource: \"*\"\n"
	// Created before the webhook configurations: the CredentialsRequest
	// webhook fails closed, and will not answer.
	cl.create(t, request(t, "apps", "before", "apps", entries))

	wio := &envtest.WebhookInstallOptions{Paths: []string{"../../deploy/base/webhook.yaml"}, LocalServingHost: "127.0.0.1"}
	if err := wio.Install(cl.api.Config); err != nil {
		t.Fatalf("installing deploy/base/webhook.yaml: %v", err)
	}
	t.Cleanup(func() { _ = wio.Cleanup() })
	m, _ := webhookConfigurations(ctx, t, cl.c)
	m.Annotations = map[string]string{webhookcert.AnnotationInjectCA: "leash-system/leash-webhook"}
	if err := cl.c.Update(ctx, m); err != nil {
		t.Fatal(err)
	}

	o := cl.operatorOptions(operator.Config{})
	o.Webhook = rotatingWebhook(*wio)
	_, _ = cl.runOperator(t, o)

	var stopped corev1.Event
	waitFor(t, 30*time.Second, "a "+webhookcert.ReasonWebhookStopped+" Event on MutatingWebhookConfiguration leash", func() (bool, string) {
		ev, err := webhookEvent(ctx, cl.c, webhookcert.ReasonWebhookStopped)
		if ev != nil {
			stopped = *ev
		}
		return ev != nil, fmt.Sprint(err)
	})
	if stopped.Type != corev1.EventTypeWarning {
		t.Errorf("Event type %s; want %s", stopped.Type, corev1.EventTypeWarning)
	}
	for _, want := range []string{"webhook is stopped", "MutatingWebhookConfiguration leash", webhookcert.AnnotationInjectCA, "--webhook-cert-dir"} {
		if !strings.Contains(stopped.Message, want) {
			t.Errorf("Event message %q does not say %q", stopped.Message, want)
		}
	}
	t.Logf("Event %s: %s", stopped.Reason, stopped.Message)

	cr := cl.waitReady(t, "apps", "before")
	if s := cl.secret(t, "apps", "before-creds"); s == nil {
		t.Errorf("request apps/before is Ready without its Secret")
	}
	t.Logf("apps/before Ready with the webhook stopped: principal %s", cr.Status.Principal)

	addr := net.JoinHostPort(wio.LocalServingHost, strconv.Itoa(wio.LocalServingPort))
	if conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}); err == nil { //nolint:gosec // only asks whether a certificate is served
		_ = conn.Close()
		t.Errorf("the stopped webhook still presents a certificate at %s", addr)
	}
	mm, v := webhookConfigurations(ctx, t, cl.c)
	for _, obj := range []client.Object{mm, v} {
		for i, b := range caBundles(obj) {
			if !bytes.Equal(b, wio.LocalServingCAData) {
				t.Errorf("%T webhook %d: the stopped webhook changed its caBundle", obj, i)
			}
		}
	}
	if err := cl.c.Create(ctx, request(t, "apps", "during", "apps", entries)); err == nil || !strings.Contains(err.Error(), `failed calling webhook "credentialsrequests.leash.dev"`) {
		t.Errorf("creating a request while the webhook is stopped: %v; want the API server to refuse it, since the CredentialsRequest webhook fails closed", err)
	} else {
		t.Logf("a request created while the webhook is stopped: %v", err)
	}

	// The annotation goes: the webhook serves again.
	mm.Annotations = nil
	if err := cl.c.Update(ctx, mm); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "a "+webhookcert.ReasonWebhookResumed+" Event", func() (bool, string) {
		ev, err := webhookEvent(ctx, cl.c, webhookcert.ReasonWebhookResumed)
		return ev != nil, fmt.Sprint(err)
	})
	waitFor(t, 10*time.Second, "a new request admitted", func() (bool, string) {
		err := cl.c.Create(ctx, request(t, "apps", "after", "apps", entries))
		return err == nil, fmt.Sprint(err)
	})
	cl.waitReady(t, "apps", "after")
}

// webhookEvent is the Event of reason on MutatingWebhookConfiguration
// leash; Events on cluster-scoped objects are kept in default.
func webhookEvent(ctx context.Context, c client.Client, reason string) (*corev1.Event, error) {
	var list corev1.EventList
	if err := c.List(ctx, &list, client.InNamespace(metav1.NamespaceDefault)); err != nil {
		return nil, err
	}
	for i, ev := range list.Items {
		if ev.Reason == reason && ev.InvolvedObject.Kind == "MutatingWebhookConfiguration" && ev.InvolvedObject.Name == "leash" {
			return &list.Items[i], nil
		}
	}
	return nil, errors.New("none yet")
}

// webhookConfigurations reads the two configurations named leash.
func webhookConfigurations(ctx context.Context, t *testing.T, c client.Client) (*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfiguration) {
	t.Helper()
	m := &admissionregistrationv1.MutatingWebhookConfiguration{}
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, m); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, v); err != nil {
		t.Fatal(err)
	}
	return m, v
}

// bundlesAre says whether both configurations exist and every one of
// deploy/base/webhook.yaml's seven webhooks carries bundle.
func bundlesAre(ctx context.Context, t *testing.T, c client.Client, bundle []byte) bool {
	t.Helper()
	var all [][]byte
	for _, obj := range []client.Object{&admissionregistrationv1.MutatingWebhookConfiguration{}, &admissionregistrationv1.ValidatingWebhookConfiguration{}} {
		if err := c.Get(ctx, types.NamespacedName{Name: "leash"}, obj); err != nil {
			return false
		}
		all = append(all, caBundles(obj)...)
	}
	if len(all) != 7 {
		t.Fatalf("%d webhooks; want deploy/base/webhook.yaml's 7", len(all))
	}
	for _, b := range all {
		if !bytes.Equal(b, bundle) {
			return false
		}
	}
	return true
}

func caBundles(obj client.Object) [][]byte {
	var out [][]byte
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for _, w := range o.Webhooks {
			out = append(out, w.ClientConfig.CABundle)
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for _, w := range o.Webhooks {
			out = append(out, w.ClientConfig.CABundle)
		}
	}
	return out
}

func setCABundles(obj client.Object, bundle []byte) {
	switch o := obj.(type) {
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for i := range o.Webhooks {
			o.Webhooks[i].ClientConfig.CABundle = bundle
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for i := range o.Webhooks {
			o.Webhooks[i].ClientConfig.CABundle = bundle
		}
	}
}
