package v1_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/apiserver"
)

// startWithCRD starts kube-apiserver and etcd with the generated CRD
// installed. It fails, rather than skips, when the binaries are missing.
func startWithCRD(t *testing.T) client.Client {
	t.Helper()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := leashv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	srv := apiserver.Start(t, apiserver.Options{Scheme: s, CRDDirs: []string{filepath.Join("..", "..", "deploy", "crd")}})
	env := srv.Env
	var names []string
	for _, crd := range env.CRDs {
		names = append(names, crd.Name)
	}
	if !slices.Contains(names, "credentialsrequests.cloudcredential.openshift.io") {
		t.Fatalf("installed CRDs %v; want credentialsrequests.cloudcredential.openshift.io among them", names)
	}
	return srv.Client
}

// applyAsWritten creates a fixture exactly as its YAML says, the way kubectl
// would, without going through leash's Go types.
func applyAsWritten(ctx context.Context, t *testing.T, c client.Client, name string) *unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.ToJSON(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(js); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: u.GetNamespace()}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating namespace %s: %v", ns.Name, err)
	}
	if err := c.Create(ctx, u.DeepCopy()); err != nil {
		t.Fatalf("applying %s unchanged: %v", name, err)
	}
	return u
}

// sameJSON reports whether two JSON documents hold the same value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestAPIServerRoundTrip(t *testing.T) {
	c := startWithCRD(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, dec := strictDecoder(t)

	for _, fixture := range []string{"aws-ccm.yaml", "aws-sts.yaml", "gcp-other-cloud.yaml"} {
		t.Run(fixture, func(t *testing.T) {
			applied := applyAsWritten(ctx, t, c, fixture)
			want := decodeFixture(t, dec, fixture)

			var got leashv1.CredentialsRequest
			if err := c.Get(ctx, client.ObjectKeyFromObject(applied), &got); err != nil {
				t.Fatalf("reading back: %v", err)
			}
			if got.UID == "" || got.Generation != 1 {
				t.Errorf("read back uid %q generation %d; want a uid and generation 1", got.UID, got.Generation)
			}
			if got.Spec.SecretRef != want.Spec.SecretRef ||
				!reflect.DeepEqual(got.Spec.ServiceAccountNames, want.Spec.ServiceAccountNames) ||
				got.Spec.CloudTokenPath != want.Spec.CloudTokenPath {
				t.Errorf("spec read back = %+v; want %+v", got.Spec, want.Spec)
			}
			// The provider spec survives the API server whole: no field of
			// it is pruned, known to leash or not.
			if got.Spec.ProviderSpec == nil || !sameJSON(t, got.Spec.ProviderSpec.Raw, want.Spec.ProviderSpec.Raw) {
				t.Errorf("providerSpec read back = %s; want %s", got.Spec.ProviderSpec.Raw, want.Spec.ProviderSpec.Raw)
			}
		})
	}

	t.Run("status subresource", func(t *testing.T) {
		var cr leashv1.CredentialsRequest
		key := client.ObjectKey{Namespace: "openshift-cloud-credential-operator", Name: "openshift-cloud-controller-manager"}
		if err := c.Get(ctx, key, &cr); err != nil {
			t.Fatal(err)
		}
		now := metav1.NewTime(time.Now().Truncate(time.Second))
		status := leashv1.CredentialsRequestStatus{
			Provisioned:        true,
			LastSyncTimestamp:  &now,
			LastSyncGeneration: cr.Generation,
			ProviderStatus: &runtime.RawExtension{Object: &leashv1.AWSProviderStatus{
				TypeMeta: metav1.TypeMeta{APIVersion: leashv1.GroupVersion.String(), Kind: "AWSProviderStatus"},
				User:     "mycluster-openshift-cloud-controller-manager-abcde",
				Policy:   "mycluster-openshift-cloud-controller-manager-abcde-policy",
			}},
			Conditions: []leashv1.CredentialsRequestCondition{
				{Type: leashv1.Ready, Status: corev1.ConditionTrue, LastProbeTime: now, LastTransitionTime: now, Reason: "Provisioned", Message: "Secret written"},
				{Type: leashv1.CredentialsProvisionFailure, Status: corev1.ConditionFalse, LastProbeTime: now, LastTransitionTime: now},
			},
			Mode:      leashv1.ModeMint,
			Principal: "arn:aws:iam::123456789012:user/mycluster-openshift-cloud-controller-manager-abcde",
		}

		// Status written with the main resource is ignored.
		viaSpec := cr.DeepCopy()
		viaSpec.Status = status
		if err := c.Update(ctx, viaSpec); err != nil {
			t.Fatalf("updating the resource: %v", err)
		}
		if err := c.Get(ctx, key, &cr); err != nil {
			t.Fatal(err)
		}
		if cr.Status.Provisioned || len(cr.Status.Conditions) != 0 {
			t.Errorf("status written through the main resource was kept: %+v", cr.Status)
		}

		cr.Status = status
		if err := c.Status().Update(ctx, &cr); err != nil {
			t.Fatalf("updating status: %v", err)
		}
		var got leashv1.CredentialsRequest
		if err := c.Get(ctx, key, &got); err != nil {
			t.Fatal(err)
		}
		if got.Generation != 1 {
			t.Errorf("generation after status update = %d; want 1", got.Generation)
		}
		if !got.Status.Provisioned || got.Status.LastSyncGeneration != 1 || got.Status.Mode != leashv1.ModeMint ||
			got.Status.Principal != status.Principal || got.Status.LastSyncTimestamp == nil || !got.Status.LastSyncTimestamp.Equal(&now) {
			t.Errorf("status read back = %+v", got.Status)
		}
		if len(got.Status.Conditions) != 2 || got.Status.Conditions[0].Type != leashv1.Ready ||
			got.Status.Conditions[0].Status != corev1.ConditionTrue || got.Status.Conditions[0].Reason != "Provisioned" {
			t.Errorf("conditions read back = %+v", got.Status.Conditions)
		}
		var ps leashv1.AWSProviderStatus
		if got.Status.ProviderStatus == nil {
			t.Fatal("providerStatus is empty after read back")
		}
		if err := json.Unmarshal(got.Status.ProviderStatus.Raw, &ps); err != nil {
			t.Fatalf("decoding providerStatus %s: %v", got.Status.ProviderStatus.Raw, err)
		}
		if ps.Kind != "AWSProviderStatus" || ps.User != "mycluster-openshift-cloud-controller-manager-abcde" ||
			ps.Policy != "mycluster-openshift-cloud-controller-manager-abcde-policy" {
			t.Errorf("providerStatus read back = %+v", ps)
		}
	})

	t.Run("validation", func(t *testing.T) {
		noSecretRef := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cloudcredential.openshift.io/v1",
			"kind":       "CredentialsRequest",
			"metadata":   map[string]any{"name": "no-secret-ref", "namespace": "openshift-logging"},
			"spec":       map[string]any{"serviceAccountNames": []any{"x"}},
		}}
		if err := c.Create(ctx, noSecretRef); !apierrors.IsInvalid(err) {
			t.Errorf("creating a request without spec.secretRef: %v; want an Invalid error", err)
		}
		var cr leashv1.CredentialsRequest
		if err := c.Get(ctx, client.ObjectKey{Namespace: "openshift-logging", Name: "cluster-logging"}, &cr); err != nil {
			t.Fatal(err)
		}
		patch := []byte(`{"status":{"provisioned":false,"lastSyncGeneration":1,"conditions":[{"type":"Ready"}]}}`)
		if err := c.Status().Patch(ctx, &cr, client.RawPatch(types.MergePatchType, patch)); !apierrors.IsInvalid(err) {
			t.Errorf("writing a condition without status: %v; want an Invalid error", err)
		}
	})
}
