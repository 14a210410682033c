// Package envtest checks that a real Kubernetes API server (kube-apiserver
// and etcd, built from the Go module proxy by hack/envtest/build.sh) starts
// under controller-runtime's envtest and serves reads and writes.
package envtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// assetsDir is where kube-apiserver and etcd are: KUBEBUILDER_ASSETS, else
// the folder hack/envtest/build.sh builds into by default.
func assetsDir() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	cache := os.Getenv("LEASH_CI_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "leash-ci")
	}
	return filepath.Join(cache, "envtest", "k8s-1.34.4")
}

// startAPIServer starts kube-apiserver and etcd and stops them when the test
// ends. It fails the test, rather than skipping it, when the binaries are
// missing: a skipped test here would look like a pass in CI.
func startAPIServer(t *testing.T) client.Client {
	t.Helper()
	dir := assetsDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			t.Fatalf("%s is missing (%v); build kube-apiserver and etcd (5 to 10 minutes the first time) with\n"+
				"\texport KUBEBUILDER_ASSETS=\"$(hack/envtest/build.sh)\"\n"+
				"from the repository root, as `make test` and .ci/run do", bin, err)
		}
	}
	env := &envtest.Environment{BinaryAssetsDirectory: dir}
	start := time.Now()
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting the API server from %s: %v", dir, err)
	}
	t.Logf("API server started in %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the API server: %v", err)
		}
	})
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return c
}

func TestSmoke(t *testing.T) {
	c := startAPIServer(t)
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
