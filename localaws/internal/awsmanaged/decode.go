package awsmanaged

import (
	"bytes"
	"compress/flate"
	_ "embed" // policies.bin
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"
)

// embedded is the set as hack/awsmanaged/gen encodes it; its doc comment
// describes the encoding.
//
//go:embed policies.bin
var embedded []byte

// formatVersion must equal the generator's.
const formatVersion = 1

// docRef locates a policy's compressed document in the embedded set.
type docRef struct {
	offset, length, size int
}

// set is the decoded index: the policies in IAM's listing order, and the
// compressed documents they point into (the embedded bytes, not a copy).
type set struct {
	policies []Policy
	dict     []byte
	docs     []byte
}

var index = sync.OnceValue(func() *set {
	s, err := decode(embedded)
	if err != nil {
		// policies.bin is checked in with the code that reads it; a test
		// decodes it, so this is a build gone wrong.
		panic("awsmanaged: decoding the embedded policies.bin: " + err.Error())
	}
	return s
})

// decoder reads the varints and strings of policies.bin.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) num() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > 1<<40 {
		if d.err == nil {
			d.err = errors.New("truncated or bad number")
		}
		d.b = nil
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.num()
	if n > len(d.b) {
		if d.err == nil {
			d.err = errors.New("truncated string")
		}
		d.b = nil
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}

func decode(b []byte) (*set, error) {
	if len(b) < 4 || string(b[:4]) != "LAMP" {
		return nil, errors.New("not an AWS managed policy set")
	}
	d := &decoder{b: b[4:]}
	if v := d.num(); v != formatVersion {
		return nil, fmt.Errorf("format %d, want %d; run go generate ./localaws/internal/awsmanaged", v, formatVersion)
	}
	s := &set{dict: d.bytes()}
	n := d.num()
	if d.err == nil && n > len(d.b) {
		return nil, errors.New("policy count beyond the data")
	}
	s.policies = make([]Policy, 0, n)
	// A handful of paths serve 1,500 policies: one copy of each.
	paths := map[string]string{}
	for range n {
		p := Policy{Name: string(d.bytes())}
		path := d.bytes()
		if p.Path = paths[string(path)]; p.Path == "" {
			p.Path = string(path)
			paths[p.Path] = p.Path
		}
		p.Version = d.num()
		for _, t := range []*time.Time{&p.Created, &p.Updated, &p.VersionCreated} {
			*t = time.Unix(int64(d.num()), 0).UTC()
		}
		p.doc = docRef{offset: d.num(), length: d.num(), size: d.num()}
		p.arn = ARNPrefix + p.Path + p.Name
		p.id = policyID(p.arn)
		p.versionID = "v" + strconv.Itoa(p.Version)
		s.policies = append(s.policies, p)
	}
	if d.err != nil {
		return nil, d.err
	}
	s.docs = d.b
	for i, p := range s.policies {
		if p.doc.offset+p.doc.length > len(s.docs) {
			return nil, fmt.Errorf("%s: document beyond the data", p.Name)
		}
		if i > 0 && CompareNames(s.policies[i-1].Name, p.Name) >= 0 {
			return nil, fmt.Errorf("%s: out of order", p.Name)
		}
	}
	return s, nil
}

// byName finds a policy by its exact name.
func byName(name string) (Policy, bool) {
	all := index().policies
	i := sort.Search(len(all), func(i int) bool { return CompareNames(all[i].Name, name) >= 0 })
	if i < len(all) && all[i].Name == name {
		return all[i], true
	}
	return Policy{}, false
}

// CompareNames orders policy names as IAM lists them, by their lower-cased
// form, without allocating. Policy names are ASCII.
func CompareNames(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := lower(a[i]), lower(b[i])
		if x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// readers keeps inflaters between calls: each holds tens of kilobytes of
// tables that need not be allocated per document.
var readers sync.Pool

func inflate(ref docRef) string {
	s := index()
	src := bytes.NewReader(s.docs[ref.offset : ref.offset+ref.length])
	r, _ := readers.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReaderDict(src, s.dict)
	} else if err := r.(flate.Resetter).Reset(src, s.dict); err != nil {
		panic("awsmanaged: " + err.Error())
	}
	out := make([]byte, ref.size)
	_, err := io.ReadFull(r, out)
	if err == nil {
		// The document must end where the index says it does.
		if n, _ := r.Read(make([]byte, 1)); n != 0 {
			err = errors.New("document longer than its recorded size")
		}
	}
	readers.Put(r)
	if err != nil {
		// A test inflates every document; this is a build gone wrong.
		panic("awsmanaged: inflating a document of the embedded policies.bin: " + err.Error())
	}
	return string(out)
}
