package operator

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// metricsRegistry is the registry controller-runtime's metrics endpoint
// serves.
func metricsRegistry() prometheus.Registerer { return ctrlmetrics.Registry }
