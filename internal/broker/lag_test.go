package broker

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// A pod created a moment ago may call the broker before the cache's watch
// has brought it. The broker then reads the pod from the API server (with
// its own RBAC) rather than refuse it as gone; a pod the API server does
// not hold either, or holds under another UID, is still refused PodGone.
// The lag is made certain with a cache that never holds a pod.
func TestPodTheCacheHasNotSeenIsReadLive(t *testing.T) {
	w := newWorld(t)
	b := w.start(t, w.brokerKube)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	blind, err := cache.New(w.brokerKube, cache.Options{Scheme: scheme, ReaderFailOnMissingInformer: true,
		DefaultLabelSelector: labels.SelectorFromSet(labels.Set{"leash.dev/test-never": "true"})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blind.GetInformer(ctx, podMetadata()); err != nil {
		t.Fatal(err)
	}
	go func() { _ = blind.Start(ctx) }()
	if !blind.WaitForCacheSync(ctx) {
		t.Fatal("the blind cache did not sync")
	}
	lagging := &Broker{cache: blind, live: b.live, sessions: b.sessions, log: b.Broker.log}

	pod := w.pod(t, "fresh-1", "app", map[string]string{annotationInjected: testNamespace + "/app-creds"})
	injected, ref := lagging.pod(ctx, identity{Namespace: testNamespace, ServiceAccount: "app", PodName: "fresh-1", PodUID: pod.UID})
	if ref != nil || injected != testNamespace+"/app-creds" {
		t.Errorf("a pod the cache has not seen: %q, %v; want it read live with its annotation", injected, ref)
	}
	for _, id := range []identity{
		{Namespace: testNamespace, ServiceAccount: "app", PodName: "never-made", PodUID: "0b0e6f7c-3f1c-4e0e-9c55-000000000001"},
		{Namespace: testNamespace, ServiceAccount: "app", PodName: "fresh-1", PodUID: "0b0e6f7c-3f1c-4e0e-9c55-000000000002"},
	} {
		if _, ref := lagging.pod(ctx, id); ref == nil || ref.code != CodePodGone {
			t.Errorf("pod %s uid %s, on neither the cache nor the API server: %v, want %s", id.pod(), id.PodUID, ref, CodePodGone)
		}
	}
}
