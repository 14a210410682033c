package simulate

import (
	"container/list"
	"encoding/json"

	"leash.dev/leash/policy"
)

// docCacheSize bounds the documents a run keeps parsed: enough for the
// documents a batch shares (SCPs, boundaries, common managed policies),
// small enough that a batch of distinct documents runs in constant memory.
const docCacheSize = 4096

// docCache keeps the most recently used parsed policy documents, keyed by
// their kind and exact bytes, so that a document repeated across a batch is
// parsed once. Parse errors are kept too: the same bytes fail the same way.
// The key is the bytes themselves, not a hash, so two documents can never
// be taken for each other. A nil *docCache parses every time.
type docCache struct {
	max     int
	entries map[docKey]*list.Element
	order   list.List // front: most recently used
}

type docKey struct {
	kind policy.Kind
	raw  string
}

type docEntry struct {
	key docKey
	doc *policy.Document
	err error
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, entries: make(map[docKey]*list.Element, max)}
}

// parse returns raw parsed as kind, from the cache when it was seen before.
func (c *docCache) parse(raw json.RawMessage, kind policy.Kind) (*policy.Document, error) {
	if c == nil {
		return parseDoc(raw, kind)
	}
	if e, ok := c.entries[docKey{kind, string(raw)}]; ok {
		c.order.MoveToFront(e)
		entry := e.Value.(*docEntry)
		return entry.doc, entry.err
	}
	doc, err := parseDoc(raw, kind)
	key := docKey{kind, string(raw)}
	if c.order.Len() >= c.max {
		oldest := c.order.Back()
		delete(c.entries, oldest.Value.(*docEntry).key)
		c.order.Remove(oldest)
	}
	c.entries[key] = c.order.PushFront(&docEntry{key: key, doc: doc, err: err})
	return doc, err
}
