package localaws

import (
	"sync"
	"time"

	"leash.dev/leash/policy"
)

// propagation delays policy changes as IAM's eventual consistency does:
// for a while after a principal's policies change, requests are still
// decided by the policies it had before. It is used only when a
// propagation delay is configured.
type propagation struct {
	delay time.Duration
	mu    sync.Mutex
	views map[string]*principalView
}

// principalView is what one principal's requests are decided with.
type principalView struct {
	revision uint64
	since    time.Time        // when revision was first seen
	current  *policy.Policies // compiled at revision
	previous *policy.Policies // in force until since+delay; nil once settled
}

func newPropagation(delay time.Duration) *propagation {
	return &propagation{delay: delay, views: map[string]*principalView{}}
}

// policies returns the set in force for principal at now, given the store's
// current revision; build compiles the current set when it is needed.
func (p *propagation) policies(principal string, revision uint64, now time.Time, build func() (*policy.Policies, error)) (*policy.Policies, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.views[principal]
	if v == nil {
		// A principal seen for the first time gets its policies at once;
		// only changes to what it already had are delayed.
		cur, err := build()
		if err != nil {
			return nil, err
		}
		p.views[principal] = &principalView{revision: revision, since: now, current: cur}
		return cur, nil
	}
	if v.revision != revision {
		cur, err := build()
		if err != nil {
			return nil, err
		}
		v.previous = v.inForce(now, p.delay)
		v.current, v.revision, v.since = cur, revision, now
	}
	return v.inForce(now, p.delay), nil
}

func (v *principalView) inForce(now time.Time, delay time.Duration) *policy.Policies {
	if v.previous != nil && now.Before(v.since.Add(delay)) {
		return v.previous
	}
	v.previous = nil
	return v.current
}
