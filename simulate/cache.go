package simulate

import (
	"container/list"
	"encoding/json"
	"sync"

	"leash.dev/leash/policy"
)

// docCacheSize bounds the documents a run keeps parsed: enough for the
// documents a batch shares (SCPs, boundaries, common managed policies),
// small enough that a batch of distinct documents runs in constant memory.
const docCacheSize = 1024

// docCache keeps the most recently used policy documents, parsed and
// compiled, keyed by their kind and exact bytes, so that a document repeated
// across a batch is parsed and compiled once. Parse errors are kept too: the
// same bytes fail the same way. The key is the bytes themselves, not a hash,
// so two documents can never be taken for each other. A nil *docCache parses
// every time. It is safe for concurrent use: a stream's workers share it.
type docCache struct {
	mu  sync.Mutex
	max int
	// byKind maps a kind to its documents by their bytes: one map per kind
	// keeps the key a plain string, which Go looks up from a []byte
	// without copying it.
	byKind map[policy.Kind]map[string]*list.Element
	order  list.List // front: most recently used
}

// docEntry is one document: parsed, and compiled unless it failed to parse
// or to compile. It is shared and never changed once made. In the cache,
// the parsed document of one that compiled is dropped (doc is nil): only a
// failed compile needs it, and the cache stays smaller.
type docEntry struct {
	kind policy.Kind
	raw  string
	doc  *policy.Document
	err  error
	// compiled is the document compiled under no name (see
	// policy.Compiled.As), nil when it did not compile: then the request's
	// Set is compiled whole, which words the error with the names.
	compiled *policy.Compiled
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, byKind: map[policy.Kind]map[string]*list.Element{}}
}

// newDocEntry parses and compiles raw as kind. The parsed document's
// strings are slices of raw, which the entry keeps as its key.
func newDocEntry(raw string, kind policy.Kind) *docEntry {
	e := &docEntry{kind: kind, raw: raw}
	e.doc, e.err = parseDoc(raw, kind)
	if e.err == nil {
		// CompileOne places a trust policy as Compile does (as Resource).
		if c, err := policy.CompileOne(policy.Named{Document: e.doc}, kind); err == nil {
			e.compiled = c
		}
	}
	return e
}

// get returns the entry of raw as kind, from the cache when it was seen
// before; a nil cache parses and compiles every time. It parses and compiling it when it is
// not in the cache. The work is done outside the lock, so that workers
// parsing different documents do not wait for each other; two workers
// meeting the same new document may both parse it, and the first kept wins.
func (c *docCache) get(raw json.RawMessage, kind policy.Kind) *docEntry {
	if c == nil {
		return newDocEntry(string(raw), kind)
	}
	c.mu.Lock()
	if e, ok := c.byKind[kind][string(raw)]; ok {
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*docEntry)
	}
	c.mu.Unlock()
	entry := newDocEntry(string(raw), kind)
	if entry.compiled != nil {
		entry.doc = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	docs := c.byKind[kind]
	if docs == nil {
		docs = map[string]*list.Element{}
		c.byKind[kind] = docs
	}
	if e, ok := docs[entry.raw]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*docEntry)
	}
	if c.order.Len() >= c.max {
		oldest := c.order.Remove(c.order.Back()).(*docEntry)
		delete(c.byKind[oldest.kind], oldest.raw)
	}
	docs[entry.raw] = c.order.PushFront(entry)
	return entry
}
