// The smoke test checks that a real API server starts and serves reads and
// writes.
package apiserver_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"leash.dev/leash/internal/apiserver"
)

func TestSmoke(t *testing.T) {
	c := apiserver.Start(t, apiserver.Options{}).Client
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "leash-smoke"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "settings"},
		Data:       map[string]string{"region": "us-east-1"},
	}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatalf("creating ConfigMap: %v", err)
	}

	var gotNS corev1.Namespace
	if err := c.Get(ctx, types.NamespacedName{Name: ns.Name}, &gotNS); err != nil {
		t.Fatalf("reading namespace back: %v", err)
	}
	if gotNS.UID == "" || gotNS.Status.Phase != corev1.NamespaceActive {
		t.Errorf("namespace read back: uid %q, phase %q; want a uid and phase Active", gotNS.UID, gotNS.Status.Phase)
	}
	var gotCM corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &gotCM); err != nil {
		t.Fatalf("reading ConfigMap back: %v", err)
	}
	if got := gotCM.Data["region"]; got != "us-east-1" || gotCM.UID == "" {
		t.Errorf("ConfigMap read back: region %q, uid %q; want region us-east-1 and a uid", got, gotCM.UID)
	}
}
