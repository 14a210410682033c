package faults

import (
	"strings"
	"testing"
	"time"
)

func TestValidateNamesTheSetting(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{ThrottleRate: 1.5}, "throttle rate"},
		{Config{ErrorRate: -0.1}, "error rate"},
		{Config{ThrottleRate: 0.6, ErrorRate: 0.6}, "exceed 1"},
		{Config{Latency: -time.Second}, "latency"},
		{Config{PropagationDelay: -time.Second}, "propagation delay"},
	}
	for _, tt := range tests {
		if _, err := New(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error about %q", tt.cfg, err, tt.want)
		}
	}
}

func TestRatesAreHonoured(t *testing.T) {
	inj, err := New(Config{ThrottleRate: 0.2, ErrorRate: 0.1, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[Fault]int{}
	const n = 20000
	for i := 0; i < n; i++ {
		counts[inj.Next()]++
	}
	// With n = 20000 the standard deviation of each count is under 60.
	if c := counts[Throttle]; c < 3700 || c > 4300 {
		t.Errorf("throttled %d of %d, want about 4000", c, n)
	}
	if c := counts[ServerError]; c < 1750 || c > 2250 {
		t.Errorf("server errors %d of %d, want about 2000", c, n)
	}
}

func TestOffByDefault(t *testing.T) {
	inj, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if f := inj.Next(); f != None {
			t.Fatalf("fault %v with the default configuration", f)
		}
	}
	now := time.Now()
	if !inj.EffectiveAt(now).Equal(now) {
		t.Errorf("changes should take effect at once by default")
	}
}

func TestSameSeedSameFaults(t *testing.T) {
	a, _ := New(Config{ThrottleRate: 0.5, Seed: 7})
	b, _ := New(Config{ThrottleRate: 0.5, Seed: 7})
	for i := 0; i < 100; i++ {
		if a.Next() != b.Next() {
			t.Fatal("the same seed gave different faults")
		}
	}
}
