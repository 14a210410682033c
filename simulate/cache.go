package simulate

import (
	"container/list"
	"encoding/json"

	"leash.dev/leash/policy"
)

// docCacheSize bounds the documents a run keeps parsed: enough for the
// documents a batch shares (SCPs, boundaries, common managed policies),
// small enough that a batch of distinct documents runs in constant memory.
const docCacheSize = 1024

// docCache keeps the most recently used parsed policy documents, keyed by
// their kind and exact bytes, so that a document repeated across a batch is
// parsed once. Parse errors are kept too: the same bytes fail the same way.
// The key is the bytes themselves, not a hash, so two documents can never
// be taken for each other. A nil *docCache parses every time.
type docCache struct {
	max int
	// byKind maps a kind to its documents by their bytes: one map per kind
	// keeps the key a plain string, which Go looks up from a []byte
	// without copying it.
	byKind map[policy.Kind]map[string]*list.Element
	order  list.List // front: most recently used
}

type docEntry struct {
	kind policy.Kind
	raw  string
	doc  *policy.Document
	err  error
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, byKind: map[policy.Kind]map[string]*list.Element{}}
}

// parse returns raw parsed as kind, from the cache when it was seen before.
func (c *docCache) parse(raw json.RawMessage, kind policy.Kind) (*policy.Document, error) {
	if c == nil {
		return parseDoc(raw, kind)
	}
	docs := c.byKind[kind]
	if docs == nil {
		docs = map[string]*list.Element{}
		c.byKind[kind] = docs
	}
	if e, ok := docs[string(raw)]; ok {
		c.order.MoveToFront(e)
		entry := e.Value.(*docEntry)
		return entry.doc, entry.err
	}
	doc, err := parseDoc(raw, kind)
	if c.order.Len() >= c.max {
		oldest := c.order.Remove(c.order.Back()).(*docEntry)
		delete(c.byKind[oldest.kind], oldest.raw)
	}
	key := string(raw)
	docs[key] = c.order.PushFront(&docEntry{kind: kind, raw: key, doc: doc, err: err})
	return doc, err
}
