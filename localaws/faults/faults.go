// Package faults makes the local endpoint behave like a busy, eventually
// consistent AWS on request: throttling, server errors, latency, and a delay
// before new keys and policy changes take effect. All are off by default;
// the operator's reliability tests turn them on.
package faults

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Config says how often and how much to misbehave.
type Config struct {
	// ThrottleRate is the fraction of requests answered with Throttling.
	ThrottleRate float64
	// ErrorRate is the fraction answered with a 5xx ServiceFailure.
	ErrorRate float64
	// Latency is added to every request.
	Latency time.Duration
	// PropagationDelay is how long a new access key or a policy change
	// takes to take effect, as IAM's eventual consistency does.
	PropagationDelay time.Duration
	// Seed makes the choice of failing requests repeatable; 0 picks one.
	Seed uint64
}

// Validate names the setting that is out of range and its bounds.
func (c Config) Validate() error {
	switch {
	case c.ThrottleRate < 0 || c.ThrottleRate > 1:
		return fmt.Errorf("throttle rate %v: must be a fraction from 0 to 1, such as 0.05", c.ThrottleRate)
	case c.ErrorRate < 0 || c.ErrorRate > 1:
		return fmt.Errorf("error rate %v: must be a fraction from 0 to 1, such as 0.01", c.ErrorRate)
	case c.ThrottleRate+c.ErrorRate > 1:
		return fmt.Errorf("throttle rate %v plus error rate %v exceed 1", c.ThrottleRate, c.ErrorRate)
	case c.Latency < 0:
		return fmt.Errorf("latency %v: must not be negative", c.Latency)
	case c.PropagationDelay < 0:
		return fmt.Errorf("propagation delay %v: must not be negative", c.PropagationDelay)
	}
	return nil
}

// Fault is what to do to one request.
type Fault uint8

// The faults a request can get.
const (
	None Fault = iota
	Throttle
	ServerError
)

// Injector draws the fault of each request. It is safe for concurrent use.
type Injector struct {
	cfg Config
	mu  sync.Mutex
	rnd *rand.Rand
}

// New returns an injector for a valid configuration.
func New(cfg Config) (*Injector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	seed := cfg.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	return &Injector{cfg: cfg, rnd: rand.New(rand.NewPCG(seed, seed>>1|1))}, nil
}

// Config returns the configuration.
func (i *Injector) Config() Config { return i.cfg }

// Next waits the configured latency and returns the fault for one request.
func (i *Injector) Next() Fault {
	if i.cfg.Latency > 0 {
		time.Sleep(i.cfg.Latency)
	}
	if i.cfg.ThrottleRate == 0 && i.cfg.ErrorRate == 0 {
		return None
	}
	i.mu.Lock()
	x := i.rnd.Float64()
	i.mu.Unlock()
	switch {
	case x < i.cfg.ThrottleRate:
		return Throttle
	case x < i.cfg.ThrottleRate+i.cfg.ErrorRate:
		return ServerError
	}
	return None
}

// EffectiveAt is when a change made at t takes effect.
func (i *Injector) EffectiveAt(t time.Time) time.Time { return t.Add(i.cfg.PropagationDelay) }
