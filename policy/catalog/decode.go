package catalog

import (
	"bytes"
	"compress/gzip"
	_ "embed" // catalog.bin
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// embedded is the catalog as hack/catalog/gen encodes it; its doc comment
// describes the encoding.
//
//go:embed catalog.bin
var embedded []byte

// formatVersion must equal the generator's.
const formatVersion = 1

var defaultCatalog = sync.OnceValue(func() *Catalog {
	c, err := decode(embedded)
	if err != nil {
		// catalog.bin is checked in with the code that reads it; a test
		// decodes it, so this is a build gone wrong.
		panic("catalog: decoding the embedded catalog.bin: " + err.Error())
	}
	return c
})

// Default returns the catalog embedded in the binary, decoding it on the
// first call.
func Default() *Catalog { return defaultCatalog() }

// decoder reads the varints and table references of catalog.bin.
type decoder struct {
	b       []byte
	err     error
	strings []string
	lists   [][]string
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) num() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("truncated or bad number")
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a number of following items, each at least one byte long.
func (d *decoder) count() int {
	n := d.num()
	if n > uint64(len(d.b)) {
		d.fail("count %d exceeds the %d bytes left", n, len(d.b))
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	i := d.num()
	if i >= uint64(len(d.strings)) {
		d.fail("string %d of %d", i, len(d.strings))
		return ""
	}
	return d.strings[i]
}

func (d *decoder) list() []string {
	i := d.num()
	if i >= uint64(len(d.lists)) {
		d.fail("list %d of %d", i, len(d.lists))
		return nil
	}
	return d.lists[i]
}

func decode(gz []byte) (*Catalog, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	raw.Grow(4 * len(gz)) // about the ratio gzip achieves on the catalog
	if _, err := raw.ReadFrom(zr); err != nil {
		return nil, err
	}
	return decodeRaw(raw.Bytes())
}

// decodeRaw decodes catalog.bin once uncompressed.
func decodeRaw(raw []byte) (*Catalog, error) {
	if !bytes.HasPrefix(raw, []byte("LCAT")) || len(raw) < 5 || raw[4] != formatVersion {
		return nil, errors.New("not a catalog of format 1; run go generate ./policy/catalog")
	}
	d := &decoder{b: raw[5:]}
	// The totals size the arrays below; a bad one costs only a reallocation.
	nActions, nRefs, nListed := d.count(), d.count(), d.count()
	d.readStrings()
	d.readLists(nListed)
	c := d.readCatalog(nActions, nRefs)
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d bytes left over", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	c.widenShared()
	c.index()
	return c, nil
}

// readStrings reads the front-coded string table into one string that every
// entry is a substring of.
func (d *decoder) readStrings() {
	n := d.count()
	shared := make([]int, n)
	rest := make([]int, n)
	total, restTotal, prevLen := 0, 0, 0
	for i := range n {
		sh, r := d.num(), d.num()
		if d.err != nil || sh > uint64(prevLen) || r > uint64(len(d.b)) {
			d.fail("bad string %d", i)
			return
		}
		shared[i], rest[i] = int(sh), int(r)
		prevLen = shared[i] + rest[i]
		total += prevLen
		restTotal += rest[i]
	}
	if restTotal > len(d.b) {
		d.fail("the string table is truncated")
		return
	}
	// Grown once, the builder never moves what it holds, so each string's
	// shared prefix is copied from the string before it in place, and the
	// table's strings are substrings of its result.
	var buf strings.Builder
	buf.Grow(total)
	ends := make([]int, n)
	prevStart := 0
	for i := range n {
		start := buf.Len()
		buf.WriteString(buf.String()[prevStart : prevStart+shared[i]])
		buf.Write(d.b[:rest[i]])
		d.b = d.b[rest[i]:]
		prevStart = start
		ends[i] = buf.Len()
	}
	all := buf.String()
	d.strings = make([]string, n)
	start := 0
	for i, end := range ends {
		d.strings[i] = all[start:end]
		start = end
	}
}

// readLists reads the lists of strings, all backed by one array.
func (d *decoder) readLists(total int) {
	n := d.count()
	bounds := make([]int, n+1)
	backing := make([]string, 0, total)
	for i := range n {
		m := d.count()
		for range m {
			backing = append(backing, d.str())
		}
		bounds[i+1] = len(backing)
	}
	d.lists = make([][]string, n)
	for i := range n {
		if bounds[i] < bounds[i+1] {
			d.lists[i] = backing[bounds[i]:bounds[i+1]:bounds[i+1]]
		}
	}
}

func (d *decoder) readCatalog(nActions, nRefs int) *Catalog {
	c := &Catalog{all: make([]Action, 0, nActions)}
	for range d.count() {
		c.globals = append(c.globals, ConditionKey{Name: d.str(), Type: d.str(), Global: true})
	}
	nServices := d.count()
	c.services = make([]service, nServices)
	// Actions and their resources are appended to one array each and sliced
	// once all are read.
	type span struct{ start, end int }
	actionSpans := make([]span, nServices)
	resSpans := make([]span, 0, nActions)
	refs := make([]ResourceRef, 0, nRefs)
	for i := range nServices {
		s := &c.services[i]
		s.info.Prefix = d.str()
		s.info.Name = d.str()
		s.rtypes = make([]ResourceType, d.count())
		for j := range s.rtypes {
			s.rtypes[j] = ResourceType{Service: s.info.Prefix, Name: d.str(), ARN: d.str(), ConditionKeys: d.list()}
		}
		s.keys = make([]ConditionKey, d.count())
		for j := range s.keys {
			s.keys[j] = ConditionKey{Name: d.str(), Type: d.str()}
		}
		actionSpans[i].start = len(c.all)
		for range d.count() {
			a := Action{Service: s.info.Prefix, Name: d.str()}
			if level := d.num(); level < uint64(len(accessLevels)) {
				a.Access = accessLevels[level]
			} else {
				d.fail("action %s: access level %d", a, level)
			}
			a.ConditionKeys = d.list()
			start := len(refs)
			for range d.count() {
				t := d.num()
				if t >= uint64(len(s.rtypes)) {
					d.fail("action %s: resource type %d of %d", a, t, len(s.rtypes))
					return c
				}
				refs = append(refs, ResourceRef{Type: s.rtypes[t].Name, Required: d.num() == 1, ConditionKeys: d.list()})
			}
			resSpans = append(resSpans, span{start, len(refs)})
			c.all = append(c.all, a)
		}
		actionSpans[i].end = len(c.all)
		if d.err != nil {
			return c
		}
	}
	c.all = c.all[:len(c.all):len(c.all)]
	for i, sp := range resSpans {
		if sp.start < sp.end {
			c.all[i].Resources = refs[sp.start:sp.end:sp.end]
		}
	}
	for i, sp := range actionSpans {
		s := &c.services[i]
		s.actions = c.all[sp.start:sp.end:sp.end]
		s.info.Actions = len(s.actions)
		s.info.ResourceTypes = len(s.rtypes)
		s.info.ConditionKeys = len(s.keys)
	}
	return c
}

// index builds the lookup maps: services by prefix, and condition keys by
// name, the global keys first, then each service's own keys (those named
// with its prefix), then the keys services list from others.
func (c *Catalog) index() {
	c.byPrefix = make(map[string]*service, len(c.services))
	for i := range c.services {
		c.byPrefix[c.services[i].info.Prefix] = &c.services[i]
	}
	c.keys = make(map[string]ConditionKey)
	c.templates = make(map[string][]template)
	add := func(k ConditionKey) {
		lname := strings.ToLower(k.Name)
		if _, dup := c.keys[lname]; dup {
			return
		}
		c.keys[lname] = k
		if t, ok := newTemplate(k); ok {
			bucket := ""
			if colon := strings.IndexByte(t.parts[0], ':'); colon >= 0 {
				bucket = t.parts[0][:colon+1]
			}
			c.templates[bucket] = append(c.templates[bucket], t)
		}
	}
	for _, k := range c.globals {
		add(k)
	}
	for own := range 2 {
		for i := range c.services {
			s := &c.services[i]
			for _, k := range s.keys {
				prefix, _, _ := strings.Cut(k.Name, ":")
				if strings.EqualFold(prefix, s.info.Prefix) == (own == 0) {
					add(k)
				}
			}
		}
	}
}
