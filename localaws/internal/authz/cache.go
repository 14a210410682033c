package authz

import (
	"sync"

	"leash.dev/leash/policy"
)

// Cache keeps compiled policy sets, so that a caller's policies are parsed
// and compiled once, not on every request. The key must change whenever
// any of the set's documents does (the store's revision of the principal,
// or a hash of the documents).
type Cache struct {
	mu  sync.Mutex
	max int
	m   map[string]*policy.Policies
}

// NewCache holds at most max sets; when full it starts over, which costs
// one compile per principal and bounds memory without bookkeeping.
func NewCache(max int) *Cache {
	return &Cache{max: max, m: make(map[string]*policy.Policies)}
}

// Get returns the set for key, building it when absent. A failed build is
// not cached.
func (c *Cache) Get(key string, build func() (*policy.Policies, error)) (*policy.Policies, error) {
	c.mu.Lock()
	p, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	p, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.m) >= c.max {
		c.m = make(map[string]*policy.Policies)
	}
	c.m[key] = p
	c.mu.Unlock()
	return p, nil
}
