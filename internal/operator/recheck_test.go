package operator

import (
	"strings"
	"testing"
	"time"

	leashv1 "leash.dev/leash/api/v1"
)

// TestNextSync pins when a request is synced again with no event.
func TestNextSync(t *testing.T) {
	r := &Reconciler{Recheck: 10 * time.Minute, RecheckFailed: 15 * time.Second}
	failed := &Failure{Type: leashv1.InsufficientCloudCredentials, Reason: "MissingPermissions"}
	tests := []struct {
		name string
		out  Outcome
		want time.Duration
	}{
		{"a ready request waits for the recheck", Outcome{Provisioned: true}, 10 * time.Minute},
		{"a failing request is rechecked at the recheck interval", Outcome{Failure: failed}, 15 * time.Second},
		{"a key due sooner than the recheck wakes the request", Outcome{Provisioned: true, RequeueAfter: time.Minute}, time.Minute},
		{"a key due sooner than a failing request's recheck wakes it", Outcome{Failure: failed, RequeueAfter: time.Second}, time.Second},
		{"a request for another cloud is no failure to recheck", Outcome{Failure: &Failure{Type: leashv1.Ignored}}, 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.nextSync(tt.out); got != tt.want {
				t.Errorf("nextSync = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOptionsValidate pins the recheck interval's bounds.
func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name    string
		recheck time.Duration
		want    string // part of the error; empty when valid
	}{
		{"zero means the default", 0, ""},
		{"a second is enough", time.Second, ""},
		{"under a second is refused with what to use", 500 * time.Millisecond, "at least 1s"},
		{"a negative interval is refused", -time.Minute, "at least 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Config: Config{Mode: leashv1.ModeMint, ClusterName: "unit"}, RecheckFailed: tt.recheck}
			err := o.Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
