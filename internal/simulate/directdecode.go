package simulate

import (
	"encoding/json"
	"unsafe"

	"leash.dev/leash/internal/jsonscan"
)

// decodeDirect decodes the common request (strings of valid UTF-8, escapes
// as encoding/json decodes them, each field once, no nulls) into c without
// reflection, its documents and context values slices of data rather than
// copies. For anything else it
// reports false, and decode takes the general path; for the input it takes,
// c is what encoding/json makes of it, which
// TestDecodeDirectAgreesWithEncodingJSON and FuzzDecodeDirect pin.
func decodeDirect(data []byte, c *Case) bool {
	// The request's bytes are never changed once read (they are the
	// reader's gift to this request alone), so the scanner reads them as a
	// string without copying them, and the Case's strings point into them.
	s := &scanner{Scanner: jsonscan.New(unsafe.String(unsafe.SliceData(data), len(data))), data: data}
	var seen uint16
	s.Space()
	ok := s.Object(func(key string) bool {
		bit := caseField(key)
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		var ok bool
		switch bit {
		case fieldPrincipal:
			c.Principal, ok = s.Str()
		case fieldAction:
			c.Action, ok = s.Str()
		case fieldResource:
			c.Resource, ok = s.Str()
		case fieldResourceAccount:
			c.ResourceAccount, ok = s.Str()
		case fieldContext:
			c.Context = map[string]json.RawMessage{}
			ok = s.Object(func(k string) bool {
				if _, dup := c.Context[k]; dup {
					return false
				}
				v, ok := rawValue(s)
				c.Context[k] = v
				return ok
			})
		case fieldIdentityPolicies:
			c.IdentityPolicies, ok = namedDocuments(s)
		case fieldResourcePolicy:
			c.ResourcePolicy, ok = rawValue(s)
		case fieldPermissionsBoundary:
			c.PermissionsBoundary, ok = rawValue(s)
		case fieldSessionPolicy:
			c.SessionPolicy, ok = rawValue(s)
		case fieldSCPs:
			c.SCPs, ok = levelsOf(s)
		case fieldRCPs:
			c.RCPs, ok = levelsOf(s)
		}
		return ok
	})
	return ok && s.End()
}

// The fields of a request, as bits, to tell a repeated one.
const (
	fieldPrincipal = 1 << iota
	fieldAction
	fieldResource
	fieldResourceAccount
	fieldContext
	fieldIdentityPolicies
	fieldResourcePolicy
	fieldPermissionsBoundary
	fieldSCPs
	fieldRCPs
	fieldSessionPolicy
)

// caseField is the bit of a request field, 0 for an unknown one.
func caseField(key string) uint16 {
	switch key {
	case "principal":
		return fieldPrincipal
	case "action":
		return fieldAction
	case "resource":
		return fieldResource
	case "resourceAccount":
		return fieldResourceAccount
	case "context":
		return fieldContext
	case "identityPolicies":
		return fieldIdentityPolicies
	case "resourcePolicy":
		return fieldResourcePolicy
	case "permissionsBoundary":
		return fieldPermissionsBoundary
	case "scps":
		return fieldSCPs
	case "rcps":
		return fieldRCPs
	case "sessionPolicy":
		return fieldSessionPolicy
	}
	return 0
}

// scanner is a jsonscan.Scanner over a request's bytes, which it keeps to
// return raw values as slices of them.
type scanner struct {
	*jsonscan.Scanner
	data []byte
	// docs and levels hold the request's lists of named documents and of
	// levels end to end, each list a view of them, so that a request's
	// lists cost an array or two rather than one each time one doubles.
	docs   []NamedDocument
	levels [][]NamedDocument
}

// rawValue reads any value but null (which encoding/json treats apart).
func rawValue(s *scanner) (json.RawMessage, bool) {
	if s.Next('n') {
		return nil, false
	}
	start, end, ok := s.Value()
	return s.data[start:end:end], ok
}

// namedDocuments reads an array of {"name", "document"}; an empty array is
// an empty slice, as encoding/json makes it.
func namedDocuments(s *scanner) ([]NamedDocument, bool) {
	if s.docs == nil {
		s.docs = make([]NamedDocument, 0, 16)
	}
	start := len(s.docs)
	ok := s.Array(func() bool {
		var n NamedDocument
		var name, doc bool
		ok := s.Object(func(key string) bool {
			var ok bool
			switch {
			case key == "name" && !name:
				name = true
				n.Name, ok = s.Str()
			case key == "document" && !doc:
				doc = true
				n.Document, ok = rawValue(s)
			}
			return ok
		})
		s.docs = append(s.docs, n)
		return ok
	})
	return s.docs[start:len(s.docs):len(s.docs)], ok
}

// levelsOf reads the levels of SCPs or RCPs: an array of arrays of named
// documents.
func levelsOf(s *scanner) ([][]NamedDocument, bool) {
	if s.levels == nil {
		s.levels = make([][]NamedDocument, 0, 8)
	}
	start := len(s.levels)
	ok := s.Array(func() bool {
		level, ok := namedDocuments(s)
		s.levels = append(s.levels, level)
		return ok
	})
	return s.levels[start:len(s.levels):len(s.levels)], ok
}
