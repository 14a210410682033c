package admission

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/workload"
)

// TestBrokerPodThroughTheHooksAndTheAPIServer sends a pod that names a
// Broker-mode request through the mutating hook, stores the patched pod in
// a real API server (which validates the native sidecar and the projected
// token, and fills in its defaults and its own kube-api-access volume), and
// sends what it stored through the hooks again, as the API server does on
// reinvocation and on an update: the mutating hook changes nothing more,
// and the validating hook admits it with no finding.
func TestBrokerPodThroughTheHooksAndTheAPIServer(t *testing.T) {
	srv, _ := startAPIServer(t)
	ctx := context.Background()
	if err := srv.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps"}}); err != nil {
		t.Fatal(err)
	}
	srv.ServiceAccounts(t, "apps")
	h := testHooks(t, `apiVersion: cloudcredential.openshift.io/v1
kind: CredentialsRequest
metadata: {name: app, namespace: apps, annotations: {leash.dev/mode: Broker}}
spec:
  secretRef: {name: app-credentials, namespace: apps}
  providerSpec: {apiVersion: cloudcredential.openshift.io/v1, kind: AWSProviderSpec, statementEntries: [{effect: Allow, action: ["s3:GetObject"], resource: "*"}]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: egress, namespace: apps}
spec:
  podSelector: {}
  policyTypes: [Egress]
  egress:
  - ports: [{protocol: TCP, port: 443}]
    to: [{ipBlock: {cidr: 0.0.0.0/0, except: [169.254.169.254/32]}}]
`)
	h.o.Wiring.Agent = &testAgent

	mutate := func(p *corev1.Pod) *corev1.Pod {
		t.Helper()
		req := create(t, p)
		resp := h.mutate(ctx, req)
		if !resp.Allowed {
			t.Fatalf("the mutating hook refused the pod: %s", resp.Result.Message)
		}
		raw := req.Object.Raw
		if len(resp.Patches) > 0 {
			ops, err := json.Marshal(resp.Patches)
			if err != nil {
				t.Fatal(err)
			}
			patch, err := jsonpatch.DecodePatch(ops)
			if err != nil {
				t.Fatal(err)
			}
			if raw, err = patch.Apply(raw); err != nil {
				t.Fatal(err)
			}
		}
		out := &corev1.Pod{}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	wired := mutate(podNamed("app"))
	if err := srv.Client.Create(ctx, wired); err != nil {
		t.Fatalf("the API server refused the wired pod: %v", err)
	}
	stored := &corev1.Pod{}
	if err := srv.Client.Get(ctx, client.ObjectKeyFromObject(wired), stored); err != nil {
		t.Fatal(err)
	}
	stored.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	agent := stored.Spec.InitContainers[0]
	if agent.Name != AgentContainer || agent.RestartPolicy == nil || *agent.RestartPolicy != corev1.ContainerRestartPolicyAlways || agent.TerminationMessagePath == "" {
		t.Fatalf("stored first init container %+v: want the agent as a native sidecar, with the API server's defaults", agent)
	}
	if again := mutate(stored); !reflect.DeepEqual(again.Spec, stored.Spec) || !reflect.DeepEqual(again.Annotations, stored.Annotations) {
		t.Errorf("wiring the stored pod changed it:\n%+v\nthen\n%+v", stored.Spec, again.Spec)
	}
	resp := h.validate(false)(ctx, create(t, stored))
	if !resp.Allowed || len(resp.Warnings) > 0 {
		t.Errorf("the validating hook on the stored pod: allowed %v, warnings %v, %+v", resp.Allowed, resp.Warnings, resp.Result)
	}
	if got := stored.Annotations[workload.AnnotationCredentialsInjected]; got != "apps/app" {
		t.Errorf("annotation %s %q, want apps/app", workload.AnnotationCredentialsInjected, got)
	}
}
