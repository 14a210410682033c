package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/manager"

	"leash.dev/leash/internal/operator"
)

// replica is one operator with leader election, as each pod of deploy/ runs.
type replica struct {
	mgr  manager.Manager
	stop func() error
}

func (r replica) elected() bool {
	select {
	case <-r.mgr.Elected():
		return true
	default:
		return false
	}
}

func startReplica(t *testing.T, cl *cluster) replica {
	t.Helper()
	o := cl.operatorOptions(operator.Config{})
	o.LeaderElection, o.LeaderElectionNamespace = true, "default"
	mgr, _, err := operator.NewManager(cl.api.Config, o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stop := sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() { _ = stop() })
	return replica{mgr: mgr, stop: stop}
}

// TestLeaderElection runs two replicas: only the elected one reconciles,
// and when it stops (releasing its lease) the other takes over.
func TestLeaderElection(t *testing.T) {
	cl := newCluster(t, clusterOptions{})
	cl.namespace(t, "apps")
	replicas := []replica{startReplica(t, cl), startReplica(t, cl)}
	var leader, follower replica
	waitFor(t, 30*time.Second, "one replica to be elected", func() (bool, string) {
		a, b := replicas[0].elected(), replicas[1].elected()
		if a && b {
			t.Fatal("both replicas are leaders")
		}
		switch {
		case a:
			leader, follower = replicas[0], replicas[1]
		case b:
			leader, follower = replicas[1], replicas[0]
		}
		return a || b, ""
	})
	entries := "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n"
	cl.create(t, request(t, "apps", "first", "apps", entries))
	cl.waitReady(t, "apps", "first")
	if follower.elected() {
		t.Fatal("the follower was elected while the leader runs")
	}
	if err := leader.stop(); err != nil {
		t.Fatalf("leader: %v", err)
	}
	waitFor(t, 60*time.Second, "the follower to be elected", func() (bool, string) { return follower.elected(), "" })
	cl.create(t, request(t, "apps", "second", "apps", entries))
	cl.waitReady(t, "apps", "second")
	if users := cl.users(t, "/leash/"); len(users) != 2 {
		t.Errorf("users %v, want one per request", users)
	}
}
