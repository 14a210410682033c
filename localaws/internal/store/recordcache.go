package store

import (
	"bytes"
	"reflect"
	"sync"
	"time"
)

// recordCache holds decoded records beside the exact bytes they were decoded
// from, so that reading a record whose bytes have not changed decodes
// nothing: leash local reads the caller's key and user on every request, and
// decoding their JSON was a third of its CPU under load.
//
// An entry is used only when the bytes in the file are byte for byte the
// bytes it was decoded from. A write changes the bytes, so no entry can
// outlive a write, whatever the order of transactions, a rollback, a crash
// or a restart (the cache lives in memory and starts empty). Comparing a
// record's bytes costs a memcmp; decoding them cost a JSON parse.
//
// The decoded values are shared by every reader, so the cache hands out deep
// copies (copyPlan): a caller may change what it got, as updateUser does,
// without changing what the next reader gets.
type recordCache struct {
	mu      sync.RWMutex
	buckets map[string]map[string]*cachedRecord
	size    int // bytes of raw held
	limit   int // the most bytes of raw held: maxCachedBytes but in tests
}

// cachedRecord is one decoded record and the bytes it came from.
type cachedRecord struct {
	raw   []byte
	value reflect.Value // of the type decoded into; never handed out, only copied
}

// maxCachedBytes bounds the raw bytes the cache holds (the decoded values
// take about as much again): a few thousand users' and keys' records, and a
// bound on leash local's memory whatever the store holds.
const maxCachedBytes = 4 << 20

func newRecordCache(limit int) *recordCache {
	return &recordCache{buckets: map[string]map[string]*cachedRecord{}, limit: limit}
}

// decodeRecord decodes data, the record at key in bucket, into v, a non-nil
// pointer, from the cache when data is what the cached value was decoded
// from. Only a read-only transaction adds to the cache: a writable one may
// still roll back, and its records would only be evicted by their bytes.
func (tx *Tx) decodeRecord(bucket string, k, data []byte, v any) error {
	c := tx.records
	pv := reflect.ValueOf(v)
	t := pv.Type().Elem()
	if c == nil {
		return decode(data, v)
	}
	plan := planFor(t)
	if !plan.ok {
		return decode(data, v)
	}
	if value, ok := c.lookup(bucket, k, data, t); ok {
		plan.cloneInto(pv.Elem(), value)
		return nil
	}
	if err := decode(data, v); err != nil {
		return err
	}
	if !tx.btx.Writable() {
		kept := reflect.New(t).Elem()
		plan.cloneInto(kept, pv.Elem())
		c.add(bucket, k, data, kept)
	}
	return nil
}

func (c *recordCache) lookup(bucket string, k, data []byte, t reflect.Type) (reflect.Value, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.buckets[bucket][string(k)]
	if e == nil || e.value.Type() != t || !bytes.Equal(e.raw, data) {
		return reflect.Value{}, false
	}
	return e.value, true
}

// add keeps value as the decoding of data (copied: bbolt's bytes are valid
// only in their transaction), evicting other entries to stay within
// c.limit. A record larger than the limit is not kept.
func (c *recordCache) add(bucket string, k, data []byte, value reflect.Value) {
	if len(data) > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.buckets[bucket]
	if b == nil {
		b = map[string]*cachedRecord{}
		c.buckets[bucket] = b
	}
	if old := b[string(k)]; old != nil {
		c.size -= len(old.raw)
		delete(b, string(k))
	}
	// Eviction in map order, which Go randomizes: good enough for a limit
	// that a local endpoint's working set rarely reaches.
	for _, other := range c.buckets {
		for ok, e := range other {
			if c.size+len(data) <= c.limit {
				break
			}
			c.size -= len(e.raw)
			delete(other, ok)
		}
	}
	b[string(k)] = &cachedRecord{raw: bytes.Clone(data), value: value}
	c.size += len(data)
}

// copyPlans memoizes planCopy by type.
var copyPlans sync.Map // reflect.Type → copyPlan

// copyPlan says how to copy values of one type deeply.
type copyPlan struct {
	// ok is false for a type whose copies cannot be made independent.
	ok bool
	// deepen replaces the shared parts of a shallow copy (an addressable
	// value just Set from the original) with copies of their own; nil when
	// a shallow copy already shares nothing.
	deepen func(reflect.Value)
}

// planFor returns the copy plan of t, making it on first use.
func planFor(t reflect.Type) copyPlan {
	if p, found := copyPlans.Load(t); found {
		return p.(copyPlan)
	}
	deepen, ok := planCopy(t, map[reflect.Type]*func(reflect.Value){})
	p := copyPlan{ok: ok, deepen: deepen}
	copyPlans.Store(t, p)
	return p
}

// cloneInto sets dst, addressable, to a deep copy of src.
func (p copyPlan) cloneInto(dst, src reflect.Value) {
	dst.Set(src)
	if p.deepen != nil {
		p.deepen(dst)
	}
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	stringPtrType = reflect.TypeFor[*string]()
)

// planCopy makes the deepen function of t and reports whether t can be
// copied so that no two copies share anything a caller could change.
// Exported fields, slices, maps, pointers and arrays are copied deeply.
// Unexported fields are copied as they are, so they may hold only plain
// values, a time.Time (whose location is never changed in place) or a
// *string (Secret's, which is never written through). Interfaces, channels
// and functions make a type uncacheable. inProgress holds the types being
// planned, for recursive types.
func planCopy(t reflect.Type, inProgress map[reflect.Type]*func(reflect.Value)) (func(reflect.Value), bool) {
	if f, found := inProgress[t]; found {
		return func(v reflect.Value) { (*f)(v) }, true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return nil, true
	}
	if t == timeType {
		return nil, true
	}
	self := new(func(reflect.Value))
	inProgress[t] = self
	defer delete(inProgress, t)
	var deepen func(reflect.Value)
	switch t.Kind() {
	case reflect.Slice:
		elem, ok := planCopy(t.Elem(), inProgress)
		if !ok {
			return nil, false
		}
		deepen = func(v reflect.Value) {
			if v.IsNil() {
				return
			}
			n := reflect.MakeSlice(t, v.Len(), v.Len())
			reflect.Copy(n, v)
			if elem != nil {
				for i := range n.Len() {
					elem(n.Index(i))
				}
			}
			v.Set(n)
		}
	case reflect.Pointer:
		elem, ok := planCopy(t.Elem(), inProgress)
		if !ok {
			return nil, false
		}
		deepen = func(v reflect.Value) {
			if v.IsNil() {
				return
			}
			n := reflect.New(t.Elem())
			n.Elem().Set(v.Elem())
			if elem != nil {
				elem(n.Elem())
			}
			v.Set(n)
		}
	case reflect.Map:
		key, ok1 := planCopy(t.Key(), inProgress)
		elem, ok2 := planCopy(t.Elem(), inProgress)
		if !ok1 || !ok2 {
			return nil, false
		}
		deepen = func(v reflect.Value) {
			if v.IsNil() {
				return
			}
			n := reflect.MakeMapWithSize(t, v.Len())
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			for it := v.MapRange(); it.Next(); {
				k.Set(it.Key())
				e.Set(it.Value())
				if key != nil {
					key(k)
				}
				if elem != nil {
					elem(e)
				}
				n.SetMapIndex(k, e)
			}
			v.Set(n)
		}
	case reflect.Array:
		elem, ok := planCopy(t.Elem(), inProgress)
		if !ok {
			return nil, false
		}
		if elem != nil {
			deepen = func(v reflect.Value) {
				for i := range v.Len() {
					elem(v.Index(i))
				}
			}
		}
	case reflect.Struct:
		type field struct {
			index  int
			deepen func(reflect.Value)
		}
		var fields []field
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				if f.Type == timeType || f.Type == stringPtrType {
					continue
				}
				if d, ok := planCopy(f.Type, inProgress); !ok || d != nil {
					return nil, false
				}
				continue
			}
			d, ok := planCopy(f.Type, inProgress)
			if !ok {
				return nil, false
			}
			if d != nil {
				fields = append(fields, field{i, d})
			}
		}
		if len(fields) > 0 {
			deepen = func(v reflect.Value) {
				for _, f := range fields {
					f.deepen(v.Field(f.index))
				}
			}
		}
	default: // interfaces, channels, functions, unsafe pointers
		return nil, false
	}
	*self = deepen
	if deepen == nil {
		*self = func(reflect.Value) {}
	}
	return deepen, true
}
