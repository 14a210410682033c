package e2e

import (
	"context"
	"path/filepath"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/admission"
	"leash.dev/leash/analyze"
	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/operator"
	"leash.dev/leash/test/apiserver"
	"leash.dev/leash/workload"
)

// TestAdmissionAdmitsTheSTSExample runs examples/ccm-sts as a cluster runs
// it: applied with kubectl to an API server whose ServiceAccount admission
// adds its own kube-api-access token volume to every pod before the
// webhooks run, with the operator in STS mode making the request's role
// and serving the webhooks. The Deployment's pod is admitted, as is a pod
// the mutating webhook wires to the same request, and leash check workload
// finds nothing in either pod as the API server stored it: the webhook and
// the check give the same verdict.
func TestAdmissionAdmitsTheSTSExample(t *testing.T) {
	cl := newSTSClusterWith(t, clusterOptions{webhooks: true})
	ctx := context.Background()
	const ns, request, sa = "kube-system", "aws-cloud-controller-manager-sts", "cloud-controller-manager"

	// kube-system fails closed: a pod is stored only if the webhooks
	// answered and allowed it.
	kubeSystem := &corev1.Namespace{}
	if err := cl.c.Get(ctx, client.ObjectKey{Name: ns}, kubeSystem); err != nil {
		t.Fatal(err)
	}
	kubeSystem.Labels["leash.dev/admission"] = "enforce"
	if err := cl.c.Update(ctx, kubeSystem); err != nil {
		t.Fatal(err)
	}
	// The operator serves its webhooks before the example is applied: the
	// CredentialsRequest webhook fails closed.
	wio := cl.api.Env.WebhookInstallOptions
	o := cl.operatorOptions(operator.Config{Mode: leashv1.ModeSTS, OIDCIssuer: stsIssuerURL})
	o.Webhook = &admission.Options{Host: wio.LocalServingHost, Port: wio.LocalServingPort, CertDir: wio.LocalServingCertDir, RefuseAt: analyze.High}
	_, _ = cl.runOperator(t, o)
	waitListening(t, wio)
	kubeconfig := cl.api.Kubeconfig(t, "e2e-admin")
	kubectlOutput(t, apiserver.Kubectl(t), "--kubeconfig="+kubeconfig, "--cache-dir="+filepath.Join(filepath.Dir(kubeconfig), "cache"),
		"apply", "-f", filepath.Join("..", "..", "examples", "ccm-sts"))
	cr := cl.waitReady(t, ns, request)

	var d appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aws-cloud-controller-manager"}, &d); err != nil {
		t.Fatal(err)
	}
	np := &networkingv1.NetworkPolicy{}
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "aws-cloud-controller-manager-egress"}, np); err != nil {
		t.Fatal(err)
	}
	// admitted creates p, wants the API server's token volume in the
	// stored pod (else this test proves nothing) and no finding from
	// leash check workload on it.
	admitted := func(t *testing.T, p *corev1.Pod) *corev1.Pod {
		t.Helper()
		if err := cl.c.Create(ctx, p); err != nil {
			t.Fatalf("the webhook refused the pod: %v", err)
		}
		got := &corev1.Pod{}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		if apiAccess(got.Spec) == "" || got.Spec.ServiceAccountName != sa {
			t.Errorf("stored pod runs as %q with volumes %+v: want %s and a kube-api-access-* volume from the ServiceAccount admission", got.Spec.ServiceAccountName, got.Spec.Volumes, sa)
		}
		if ids := checkWorkload(t, manifest(got, "Pod", "v1"), manifest(cr.DeepCopy(), "CredentialsRequest", "cloudcredential.openshift.io/v1"),
			manifest(np.DeepCopy(), "NetworkPolicy", "networking.k8s.io/v1")); len(ids) != 0 {
			t.Errorf("leash check workload on the stored pod: %v, want none, as the webhook admitted it", ids)
		}
		return got
	}

	t.Run("the Deployment's pod, with its own projected token, is admitted", func(t *testing.T) {
		admitted(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws-cloud-controller-manager-0", Labels: d.Spec.Template.Labels},
			Spec: *d.Spec.Template.Spec.DeepCopy()})
	})

	t.Run("a pod the mutating webhook wires to the request is admitted", func(t *testing.T) {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "aws-cloud-controller-manager-wired", Labels: d.Spec.Template.Labels,
			Annotations: map[string]string{workload.AnnotationCredentials: request}},
			Spec: corev1.PodSpec{ServiceAccountName: sa, Containers: []corev1.Container{{Name: "ccm", Image: d.Spec.Template.Spec.Containers[0].Image}}}}
		got := admitted(t, p)
		wired := false
		for _, v := range got.Spec.Volumes {
			wired = wired || v.Name == admission.TokenVolume
		}
		if !wired {
			t.Errorf("stored volumes %+v: want %s, the token the mutating webhook adds", got.Spec.Volumes, admission.TokenVolume)
		}
	})
}
