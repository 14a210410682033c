package sigv4

import (
	"slices"
	"strings"
)

// param is one query-string parameter with its name and value in SigV4's
// canonical encoding: decoded, then every byte outside A-Z a-z 0-9 - _ . ~
// percent-encoded with upper-case hex. Holding the canonical form lets the
// canonical query string be built without re-encoding, and two spellings of
// one value ("%7E" and "~", "+" and "%20") compare equal.
type param struct {
	key, value string
}

// parseQuery splits a raw query string into canonical parameters, appended
// to params (the caller passes a stack array so that short queries do not
// allocate). Empty pairs, as in "a=1&&b=2", are skipped, as url.ParseQuery
// and the SDKs skip them; a name without "=" has an empty value.
func parseQuery(raw string, params []param) ([]param, *Error) {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		rawKey, rawValue, _ := strings.Cut(pair, "=")
		key, ok := canonicalComponent(rawKey)
		if !ok {
			return nil, incomplete("The query string has a malformed percent-encoding in a parameter name. Encode reserved characters as %XX with two hex digits.")
		}
		value, ok := canonicalComponent(rawValue)
		if !ok {
			return nil, incomplete("The query string parameter " + quoteName(key) + " has a malformed percent-encoding. Encode reserved characters as %XX with two hex digits.")
		}
		params = append(params, param{key: key, value: value})
	}
	return params, nil
}

// lookupParam returns the decoded value of the parameter named key (a name
// that needs no encoding), and how many times it appears.
func lookupParam(params []param, key string) (value string, count int) {
	for _, p := range params {
		if p.key == key {
			if count == 0 {
				value = decodeCanonical(p.value)
			}
			count++
		}
	}
	return value, count
}

// appendCanonicalQuery appends the canonical query string: the parameters
// sorted by name and then by value, after encoding, joined by "&". A
// presigned request leaves out its own X-Amz-Signature, which cannot sign
// itself. params is sorted in place.
func appendCanonicalQuery(buf []byte, params []param, presigned bool) []byte {
	slices.SortFunc(params, func(a, b param) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		return strings.Compare(a.value, b.value)
	})
	first := true
	for _, p := range params {
		if presigned && p.key == "X-Amz-Signature" {
			continue
		}
		if !first {
			buf = append(buf, '&')
		}
		first = false
		buf = append(buf, p.key...)
		buf = append(buf, '=')
		buf = append(buf, p.value...)
	}
	return buf
}

// canonicalComponent returns a raw query-string name or value in canonical
// encoding, and false when a percent-escape is malformed. A component that is
// already canonical, as the SDKs send it, is returned without allocating.
func canonicalComponent(raw string) (string, bool) {
	if isCanonical(raw) {
		return raw, true
	}
	decoded, ok := decodeQuery(raw)
	if !ok {
		return "", false
	}
	return string(appendEncoded(nil, decoded, false)), true
}

// isCanonical reports whether s is in canonical encoding: unreserved bytes,
// and %XX escapes with upper-case hex of bytes that are not unreserved.
func isCanonical(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) {
			continue
		}
		if c != '%' || i+2 >= len(s) || !isUpperHex(s[i+1]) || !isUpperHex(s[i+2]) {
			return false
		}
		if isUnreserved(unhex(s[i+1])<<4 | unhex(s[i+2])) {
			return false
		}
		i += 2
	}
	return true
}

// decodeQuery decodes a raw query component as form encoding does: "+" is a
// space and %XX (either case) is a byte. It reports false for a "%" that is
// not followed by two hex digits.
func decodeQuery(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return "", false
			}
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// decodeCanonical decodes a component in canonical encoding, which has only
// well-formed %XX escapes.
func decodeCanonical(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// quoteName quotes a parameter or header name for a message, cut short so
// that a hostile name cannot flood it.
func quoteName(s string) string {
	const limit = 64
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return "'" + s + "'"
}
