package operator

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// trimForCache is the manager cache's transform: it keeps of each object
// only what the operator reads from the cache, so memory grows slowly with
// the number of requests. The managed fields (most of an object's bytes
// after an apply) go; a Secret keeps the latest writer, which its watch's
// predicate reads, and loses its data, which the operator reads from the
// API server only when it syncs. An object from the cache sent back in an
// update carries no managed fields, so the server keeps its own.
func trimForCache(o any) (any, error) {
	switch obj := o.(type) {
	case *corev1.Secret:
		obj.Data, obj.StringData = nil, nil
		obj.ManagedFields = latestWriter(obj.ManagedFields)
	case client.Object:
		obj.SetManagedFields(nil)
	}
	return o, nil
}

// latestWriter is the entry of the most recent write, without the fields it
// owns: enough for lastWriter.
func latestWriter(entries []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	var latest *metav1.ManagedFieldsEntry
	for i := range entries {
		m := &entries[i]
		if m.Time != nil && (latest == nil || !m.Time.Time.Before(latest.Time.Time)) {
			latest = m
		}
	}
	if latest == nil {
		return nil
	}
	return []metav1.ManagedFieldsEntry{{Manager: latest.Manager, Operation: latest.Operation, Time: latest.Time}}
}
