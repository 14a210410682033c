package simulate

import (
	"container/list"
	"encoding/json"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"leash.dev/leash/policy"
)

// docCacheSize bounds the documents a run keeps parsed on each of the
// cache's two shelves; docCacheBytes bounds the text of the shared kinds
// (SCPs, RCPs, boundaries, session policies) and docCacheOwnBytes that of
// the principals' own documents. The shared kinds are few and used by many
// requests: enough for them. A principal's documents in a large batch are
// mostly its own, and the few shared widely are small managed policies;
// keeping more (1 MiB of a batch's large identity policies, compiled for
// every action, several times their text) made the live heap larger than
// the collector's room under streamMemoryLimit, so that it ran without
// pause: the wide batch took 40% longer with 1 MiB than with 64 KiB, and
// the shared batch, whose 200 managed policies are small, the same time.
// The text bounds the compiled documents too, which are a few times
// larger.
const (
	docCacheSize     = 1024
	docCacheBytes    = 1 << 20
	docCacheOwnBytes = 64 << 10
)

// seenSlots is how many documents the cache remembers having seen once,
// by hash alone (see docCache).
const seenSlots = 1 << 14

// docCache keeps the most recently used policy documents, parsed and
// compiled, keyed by their kind and exact bytes, so that a document repeated
// across a batch is parsed and compiled once. Parse errors are kept too: the
// same bytes fail the same way. Entries are found by a hash of the kind and
// bytes, computed once a lookup and outside the lock, and then compared
// whole, so two documents can never be taken for each other; of two that
// share a hash only the later is kept. A nil *docCache parses every time.
//
// A document is kept only from its second use: most documents of a batch
// may be each request's own, and keeping those would only push out the
// shared ones and make the heap larger for nothing. seen remembers the
// hashes of documents used once (a slot a hash, the later overwriting),
// which costs a second parse of each shared document and spares the cache
// every document used once.
// It is safe for concurrent use: a stream's workers share it.
type docCache struct {
	seed maphash.Seed
	max  int
	// shared keeps the documents of the kinds a batch shares by design
	// (SCPs, RCPs, boundaries, session policies), own the principals'
	// documents, each within max and its own bound of text: a batch of
	// mostly distinct identity policies then cannot push out the
	// organization's policies.
	shared, own docShelf
}

// docShelf is one LRU list of documents of docCache.
type docShelf struct {
	maxBytes int // the bound of the text kept
	mu       sync.Mutex
	bytes    int // the text of the documents kept
	byHash   map[uint64]*list.Element
	order    list.List // front: most recently used
	seen     []uint64  // by hash modulo its length: hashes used once
}

// shelf is the docShelf of documents of kind.
func (c *docCache) shelf(kind policy.Kind) *docShelf {
	switch kind {
	case policy.SCP, policy.RCP, policy.Boundary, policy.Session:
		return &c.shared
	}
	return &c.own
}

// docEntry is one document: parsed, and compiled unless it failed to parse
// or to compile. It is shared and never changed once made. In the cache,
// the parsed document of one that compiled is dropped (doc is nil): only a
// failed compile needs it, and the cache stays smaller.
type docEntry struct {
	kind policy.Kind
	raw  string
	hash uint64
	doc  *policy.Document
	err  error
	// compiled is the document compiled under no name (see
	// policy.Compiled.At), nil when it did not compile: then the request's
	// Set is compiled whole, which words the error with the names.
	compiled *policy.Compiled
	// placed is compiled as the last request placed it (its name and
	// level), for the next to share when it places it alike, as a batch
	// whose requests name a shared document alike does.
	placed atomic.Pointer[policy.Compiled]
}

// place returns the entry's compiled document named name at level.
func (e *docEntry) place(name string, level int) *policy.Compiled {
	last := e.placed.Load()
	if last == nil {
		last = e.compiled
	}
	if c := last.At(name, level); c == last {
		return c
	}
	// The name is kept beyond this request, whose bytes (and so name)
	// may be a mapped file's pages that are forgotten once it is answered.
	c := last.At(strings.Clone(name), level)
	e.placed.Store(c)
	return c
}

// newDocCache returns a cache of at most max documents a shelf, and
// sharedBytes and ownBytes of their text on each.
func newDocCache(max, sharedBytes, ownBytes int) *docCache {
	c := &docCache{max: max, seed: maphash.MakeSeed()}
	c.shared.maxBytes, c.own.maxBytes = sharedBytes, ownBytes
	for _, sh := range []*docShelf{&c.shared, &c.own} {
		sh.byHash, sh.seen = map[uint64]*list.Element{}, make([]uint64, seenSlots)
	}

	return c
}

// newDocEntry parses and compiles raw as kind: for every action when
// action is "", else for requests for action alone (policy.ParseFor and
// CompileOneFor), which is all a document used by one request needs. The parsed document's
// strings are slices of raw, which the entry keeps as its key.
func newDocEntry(raw string, kind policy.Kind, action string) *docEntry {
	e := &docEntry{kind: kind, raw: raw}
	e.doc, e.err = parseDoc(raw, kind, action)
	if e.err == nil {
		// Both place a trust policy as Compile does (as Resource).
		var c *policy.Compiled
		var err error
		if action == "" {
			c, err = policy.CompileOne(policy.Named{Document: e.doc}, kind)
		} else {
			c, err = policy.CompileOneFor(policy.Named{Document: e.doc}, kind, action)
		}
		if err == nil {
			e.compiled = c
		}
	}
	return e
}

// get returns the entry of raw as kind for a request for action: from the
// cache when it is kept there; else parsed and compiled for every action
// and kept, when it was used before; else parsed and compiled for action
// alone, and not kept. A nil cache parses and compiles every time. The work
// is done outside the lock, so that workers parsing different documents do
// not wait for each other; two workers meeting the same document may both
// parse it, and the first kept wins.
func (c *docCache) get(raw json.RawMessage, kind policy.Kind, action string) *docEntry {
	if c == nil {
		return newDocEntry(string(raw), kind, "")
	}
	sum := c.sum(raw, kind)
	sh := c.shelf(kind)
	e, keep := sh.lookup(sum, raw, kind, sh.maxBytes)
	if e != nil {
		return e
	}
	if !keep {
		// Not kept, so not copied: the entry lives as long as the
		// request, whose bytes are never changed once read.
		return newDocEntry(unsafe.String(unsafe.SliceData(raw), len(raw)), kind, action)
	}
	entry := newDocEntry(string(raw), kind, "")
	entry.hash = sum
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if el, ok := sh.byHash[sum]; ok {
		if e := el.Value.(*docEntry); e.kind == kind && e.raw == entry.raw {
			sh.order.MoveToFront(el)
			return e
		}
		sh.remove(el) // another document with the same hash
		delete(sh.byHash, sum)
	}
	if entry.compiled != nil {
		entry.doc = nil
	}
	for sh.order.Len() > 0 && (sh.order.Len() >= c.max || sh.bytes+len(raw) > sh.maxBytes) {
		sh.remove(sh.order.Back())
	}
	sh.byHash[sum] = sh.order.PushFront(entry)
	sh.bytes += len(entry.raw)
	return entry
}

// remove drops a kept document; sh.mu is held.
func (sh *docShelf) remove(el *list.Element) {
	e := sh.order.Remove(el).(*docEntry)
	delete(sh.byHash, e.hash)
	sh.bytes -= len(e.raw)
}

// sum is the hash of raw as kind.
func (c *docCache) sum(raw json.RawMessage, kind policy.Kind) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	_ = h.WriteByte(byte(kind))
	_, _ = h.Write(raw)
	return h.Sum64()
}

// lookup returns the kept entry of raw as kind, or nil and whether to keep
// it: whether it was used once before (its hash is in seen), which the
// call then forgets, or else remembers this use. A document over a
// sixteenth of maxBytes is never kept.
func (sh *docShelf) lookup(sum uint64, raw json.RawMessage, kind policy.Kind, maxBytes int) (*docEntry, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if el, ok := sh.byHash[sum]; ok {
		if e := el.Value.(*docEntry); e.kind == kind && e.raw == string(raw) {
			sh.order.MoveToFront(el)
			return e, false
		}
	}
	slot := &sh.seen[sum%uint64(len(sh.seen))]
	if *slot != sum || len(raw) > maxBytes/16 {
		*slot = sum
		return nil, false
	}
	*slot = 0
	return nil, true
}
