package operator

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/types"

	leashv1 "leash.dev/leash/api/v1"
)

// TestMetricsModeIsTheShownMode pins that leash_credentials_requests and
// leash_reconcile_duration_seconds label a request with the mode
// status.mode shows (kubectl's MODE column): a request through a role
// named in stsIAMRoleARN is Manual in both, not STS in one of them.
func TestMetricsModeIsTheShownMode(t *testing.T) {
	tests := []struct {
		name string
		mode leashv1.CredentialsMode
	}{
		{"a Manual request through a named role is labelled Manual, as status.mode shows it", leashv1.ModeSTS},
		{"a Mint request is labelled Mint", leashv1.ModeMint},
		{"a Passthrough request is labelled Passthrough", leashv1.ModePassthrough},
		{"a request for another cloud is labelled Ignored", leashv1.ModeIgnored},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m := NewMetrics(reg)
			out := Outcome{Mode: tt.mode, Provisioned: true}
			m.observeReconcile(out.Mode, nil, 0)
			m.record(types.NamespacedName{Namespace: "apps", Name: "reader"}, out)
			var cr leashv1.CredentialsRequest
			applyOutcome(&cr, out, true, cr.CreationTimestamp)
			want := string(cr.Status.Mode)
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, f := range families {
				for _, metric := range f.GetMetric() {
					for _, l := range metric.GetLabel() {
						if l.GetName() != "mode" {
							continue
						}
						seen[f.GetName()] = true
						if l.GetValue() != want {
							t.Errorf("%s has mode=%q, want %q as status.mode shows", f.GetName(), l.GetValue(), want)
						}
					}
				}
			}
			for _, name := range []string{"leash_credentials_requests", "leash_reconcile_duration_seconds"} {
				if !seen[name] {
					t.Errorf("%s has no series with a mode label", name)
				}
			}
		})
	}
}
