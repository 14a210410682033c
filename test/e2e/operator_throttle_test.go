package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	leashv1 "leash.dev/leash/api/v1"
	"leash.dev/leash/internal/iamclient"
	"leash.dev/leash/internal/operator"
	"leash.dev/leash/localaws/faults"
)

// TestThrottledMint mints 100 requests while leash local throttles 30% of
// IAM and STS requests, and reports what that costs: every request still
// ends Ready with one user and one key, the retries show in the operator's
// metrics exactly as leash local counted them.
func TestThrottledMint(t *testing.T) {
	const (
		n  = 100
		ns = "bulk"
	)
	var calls, throttled atomic.Int64
	cl := newCluster(t, clusterOptions{
		faults: faults.Config{ThrottleRate: 0.3, Seed: 7},
		afterCall: func(_, code string) {
			calls.Add(1)
			if code == "Throttling" {
				throttled.Add(1)
			}
		},
	})
	ctx := context.Background()
	cl.namespace(t, ns)
	reg := prometheus.NewRegistry()
	o := cl.operatorOptions(operator.Config{ClusterName: ns})
	o.Registry = reg
	// The harness rechecks every 2 s; at the production default the
	// figures are those of the mints, not of rechecking Ready requests.
	o.Recheck = 10 * time.Minute
	stop, _ := cl.runOperator(t, o)

	start := time.Now()
	for i := range n {
		cl.create(t, request(t, ns, fmt.Sprintf("app-%03d", i), ns, "- effect: Allow\n  action: [\"s3:GetObject\"]\n  resource: \"*\"\n"))
	}
	var readyAfter time.Duration
	var callsAtReady int64
	lastLog := time.Now()
	waitFor(t, 5*time.Minute, fmt.Sprintf("%d requests to be Ready", n), func() (bool, string) {
		var list leashv1.CredentialsRequestList
		if err := cl.c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return false, err.Error()
		}
		ready := 0
		for i := range list.Items {
			if readyTrue(&list.Items[i]) {
				ready++
			}
		}
		if time.Since(lastLog) >= 5*time.Second {
			lastLog = time.Now()
			t.Logf("  %v: %d of %d Ready; %d calls, %d throttled", time.Since(start).Round(time.Second), ready, n, calls.Load(), throttled.Load())
		}
		if ready == n {
			readyAfter, callsAtReady = time.Since(start), calls.Load()
		}
		return ready == n, fmt.Sprintf("%d of %d Ready", ready, n)
	})

	// Let the syncs that Ready requests' Secrets trigger finish, so that the
	// operator and leash local count the same calls, then stop it.
	waitFor(t, time.Minute, "the operator to stop calling IAM", func() (bool, string) {
		before := calls.Load()
		time.Sleep(2 * time.Second)
		return calls.Load() == before, fmt.Sprint(calls.Load()-before, " calls in 2s")
	})
	stop()
	total, thr := calls.Load(), throttled.Load()

	byCode, byOp := iamCallMetrics(t, reg)
	var metricTotal float64
	for _, v := range byCode {
		metricTotal += v
	}
	t.Logf("%d requests Ready in %v: %d IAM/STS calls by then (%.2f a request); %d in all once quiet (%.2f a request), %d of them throttled (%.0f%%)",
		n, readyAfter.Round(100*time.Millisecond), callsAtReady, float64(callsAtReady)/n, total, float64(total)/n, thr, 100*float64(thr)/float64(total))
	t.Logf("a request costs %.2f successful calls and %.2f throttled ones; leash_iam_calls_total by code: %v",
		byCode["OK"]/n, byCode["Throttling"]/n, byCode)
	t.Logf("leash_iam_calls_total by operation (all codes): %s", byOp)
	if thr == 0 {
		t.Error("leash local throttled no call; the fault injection is off")
	}
	if got := byCode["Throttling"]; got == 0 || int64(got) != thr {
		t.Errorf(`leash_iam_calls_total{code="Throttling"} = %v, leash local throttled %d`, got, thr)
	}
	if int64(metricTotal) != total {
		t.Errorf("leash_iam_calls_total sums to %v, leash local answered %d calls", metricTotal, total)
	}

	// Every request has exactly one user, with one key: the Secret's. The
	// admin client retries the throttling too, briefly, many at a time.
	checked := time.Now()
	admin := iamclient.New(iamclient.Config{Endpoint: cl.url, Credentials: cl.adminKey(t).Provider(), MaxBackoff: 20 * time.Millisecond})
	users, err := admin.ListUsers(ctx, "/leash/"+ns+"/")
	if err != nil {
		t.Fatal(err)
	}
	type owned struct {
		tags map[string]string
		keys []iamclient.KeyInfo
		err  error
	}
	found := make([]owned, len(users))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			got, err := admin.GetUser(ctx, u.Name)
			if err != nil {
				found[i].err = err
				return
			}
			found[i].tags = got.Tags
			found[i].keys, found[i].err = admin.AccessKeys(ctx, u.Name)
		}()
	}
	wg.Wait()
	byUID := map[string][]int{}
	for i, f := range found {
		if f.err != nil {
			t.Fatal(f.err)
		}
		uid := f.tags[operator.TagRequestUID]
		byUID[uid] = append(byUID[uid], i)
	}
	var list leashv1.CredentialsRequestList
	if err := cl.c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, cr := range list.Items {
		mine := byUID[string(cr.UID)]
		delete(byUID, string(cr.UID))
		if len(mine) != 1 {
			t.Errorf("%s: %d users carry its UID, want one", cr.Name, len(mine))
			continue
		}
		u, keys := users[mine[0]].Name, found[mine[0]].keys
		want := secretKey(t, cl.secret(t, ns, cr.Spec.SecretRef.Name)).ID
		if len(keys) != 1 || keys[0].ID != want {
			t.Errorf("%s: user %s has keys %v, want only %s, the Secret's", cr.Name, u, keys, want)
		}
	}
	for uid, idx := range byUID {
		for _, i := range idx {
			t.Errorf("user %s (request UID %q) belongs to no request", users[i].Name, uid)
		}
	}
	if len(list.Items) != n || len(users) != n {
		t.Errorf("%d requests and %d users under /leash/%s/, want %d of each", len(list.Items), len(users), ns, n)
	}
	t.Logf("checked %d requests: each has one user with one key, the Secret's (%v)", len(list.Items), time.Since(checked).Round(100*time.Millisecond))
}

// iamCallMetrics reads leash_iam_calls_total: summed by code, and by
// operation as text.
func iamCallMetrics(t *testing.T, reg *prometheus.Registry) (byCode map[string]float64, byOperation string) {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	byCode = map[string]float64{}
	ops := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "leash_iam_calls_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			var op, code string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "operation":
					op = l.GetValue()
				case "code":
					code = l.GetValue()
				}
			}
			byCode[code] += m.GetCounter().GetValue()
			ops[op] += m.GetCounter().GetValue()
		}
	}
	var parts []string
	for op, v := range ops {
		parts = append(parts, fmt.Sprintf("%s %.0f", op, v))
	}
	sort.Strings(parts)
	return byCode, strings.Join(parts, ", ")
}
