package operator

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
)

// Metrics are the operator's Prometheus metrics.
type Metrics struct {
	requests  *prometheus.GaugeVec
	reconcile *prometheus.HistogramVec
	iamCalls  *prometheus.CounterVec
	actions   *prometheus.GaugeVec
	lastUsed  *prometheus.GaugeVec
	now       func() time.Time

	mu    sync.Mutex
	state map[types.NamespacedName]requestState
}

type requestState struct {
	mode, condition string
	keyCreated      time.Time
}

// NewMetrics registers the metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leash_credentials_requests",
			Help: "CredentialsRequests by mode and by condition (the True failure condition, else Ready or Pending)."},
			[]string{"mode", "condition"}),
		reconcile: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "leash_reconcile_duration_seconds",
			Help: "Time to reconcile one CredentialsRequest, by mode and result.", Buckets: prometheus.ExponentialBuckets(0.005, 2, 14)},
			[]string{"mode", "result"}),
		iamCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "leash_iam_calls_total",
			Help: "IAM and STS calls (each retry counted) by operation and result code (OK or AWS's error code)."},
			[]string{"operation", "code"}),
		actions: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leash_credentials_request_actions",
			Help: "Actions a CredentialsRequest allows, by whether its principal used them in the usage window (state used or unused); set when the operator reads a trail."},
			[]string{"namespace", "name", "state"}),
		lastUsed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "leash_credentials_request_last_used_timestamp_seconds",
			Help: "When a CredentialsRequest's principal last used an action the request allows (Unix seconds; absent when never in the window)."},
			[]string{"namespace", "name"}),
		now:   time.Now,
		state: map[types.NamespacedName]requestState{},
	}
	oldest := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "leash_oldest_access_key_age_seconds",
		Help: "Age of the oldest access key leash has published (0 when none)."}, m.oldestKeyAge)
	reg.MustRegister(m.requests, m.reconcile, m.iamCalls, m.actions, m.lastUsed, oldest)
	return m
}

// ObserveIAMCall counts one IAM or STS attempt; it is iamclient's observer.
func (m *Metrics) ObserveIAMCall(operation, code string) {
	m.iamCalls.WithLabelValues(operation, code).Inc()
}

// observeReconcile times a sync under the mode status.mode shows
// (shownMode), as leash_credentials_requests labels it.
func (m *Metrics) observeReconcile(mode leashv1.CredentialsMode, err error, d time.Duration) {
	result := "success"
	if err != nil {
		result = "error"
	}
	m.reconcile.WithLabelValues(string(shownMode(mode)), result).Observe(d.Seconds())
}

// record remembers a request's state after a sync, under the mode
// status.mode shows (shownMode): one answer for kubectl and the metrics.
func (m *Metrics) record(key types.NamespacedName, out Outcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state[key] = requestState{mode: string(shownMode(out.Mode)), condition: conditionLabel(out), keyCreated: out.KeyCreated}
	m.refresh()
}

// forget drops a request that is gone.
func (m *Metrics) forget(key types.NamespacedName) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.state, key)
	m.refresh()
	m.actions.DeletePartialMatch(prometheus.Labels{"namespace": key.Namespace, "name": key.Name})
	m.lastUsed.DeleteLabelValues(key.Namespace, key.Name)
}

// recordUsage sets a request's used and unused action counts and its
// last use (none when zero).
func (m *Metrics) recordUsage(cr *leashv1.CredentialsRequest, used, unused int, last time.Time) {
	m.actions.WithLabelValues(cr.Namespace, cr.Name, "used").Set(float64(used))
	m.actions.WithLabelValues(cr.Namespace, cr.Name, "unused").Set(float64(unused))
	if last.IsZero() {
		m.lastUsed.DeleteLabelValues(cr.Namespace, cr.Name)
		return
	}
	m.lastUsed.WithLabelValues(cr.Namespace, cr.Name).Set(float64(last.Unix()))
}

func (m *Metrics) refresh() {
	counts := map[[2]string]int{}
	for _, s := range m.state {
		counts[[2]string{s.mode, s.condition}]++
	}
	m.requests.Reset()
	for k, n := range counts {
		m.requests.WithLabelValues(k[0], k[1]).Set(float64(n))
	}
}

func (m *Metrics) oldestKeyAge() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var oldest time.Time
	for _, s := range m.state {
		if !s.keyCreated.IsZero() && (oldest.IsZero() || s.keyCreated.Before(oldest)) {
			oldest = s.keyCreated
		}
	}
	if oldest.IsZero() {
		return 0
	}
	return m.now().Sub(oldest).Seconds()
}
