package store

import (
	"context"
	"strings"
)

// lastUseKey is what RecordAccessKeyUse writes at most once per interval.
type lastUseKey struct{ id, service, region string }

// maxLastUseEntries bounds the memory of recent writes; past it the memory
// starts over, which costs at most one extra write per key.
const maxLastUseEntries = 10000

// RecordAccessKeyUse notes that a long-term key signed a request, for
// GetAccessKeyLastUsed. Writing on every request would cost a disk sync
// each, so it writes the same key, service and region at most once per
// Options.LastUsedInterval; IAM reports last use coarsely too. Session keys
// are not recorded, as in IAM.
func (s *Store) RecordAccessKeyUse(ctx context.Context, id string, used LastUsed) error {
	if strings.HasPrefix(id, prefixSessionKey) {
		return nil
	}
	k := lastUseKey{id, used.ServiceName, used.Region}
	s.lastUseMu.Lock()
	if prev, ok := s.lastUse[k]; ok && used.Date.Sub(prev) < s.opts.LastUsedInterval {
		s.lastUseMu.Unlock()
		return nil
	}
	if len(s.lastUse) >= maxLastUseEntries {
		clear(s.lastUse)
	}
	s.lastUse[k] = used.Date
	s.lastUseMu.Unlock()
	err := s.Update(ctx, func(tx *Tx) error { return tx.RecordAccessKeyUse(id, used) })
	if err != nil {
		s.lastUseMu.Lock()
		delete(s.lastUse, k) // so that the next request tries again
		s.lastUseMu.Unlock()
	}
	return err
}
