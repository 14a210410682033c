package operator

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	leashv1 "leash.dev/leash/api/v1"
)

// TestTrimForCache pins what the cache keeps: a Secret's latest writer for
// the watch's predicate and none of its data; a request without managed
// fields, so an update from the cache leaves the server's alone.
func TestTrimForCache(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	fields := &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: fieldOwner, Operation: metav1.ManagedFieldsOperationApply, Time: &t0, FieldsV1: fields},
			{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Time: &t1, FieldsV1: fields},
		}},
		Data: map[string][]byte{SecretKeyID: []byte("AKIAIOSFODNN7EXAMPLE")},
	}
	if _, err := trimForCache(s); err != nil {
		t.Fatal(err)
	}
	if s.Data != nil {
		t.Errorf("the cached Secret keeps its data")
	}
	if got := lastWriter(s); got != "kubectl-edit" {
		t.Errorf("lastWriter of the cached Secret = %q, want kubectl-edit", got)
	}
	if len(s.ManagedFields) != 1 || s.ManagedFields[0].FieldsV1 != nil {
		t.Errorf("the cached Secret's managed fields are %+v, want the latest writer alone", s.ManagedFields)
	}

	cr := &leashv1.CredentialsRequest{ObjectMeta: metav1.ObjectMeta{Name: "r", ManagedFields: s.ManagedFields}}
	cr.Status.Mode = leashv1.ModeMint
	if _, err := trimForCache(cr); err != nil {
		t.Fatal(err)
	}
	if cr.ManagedFields != nil || cr.Status.Mode != leashv1.ModeMint {
		t.Errorf("the cached request: managed fields %v, mode %q; want none and Mint", cr.ManagedFields, cr.Status.Mode)
	}
}
