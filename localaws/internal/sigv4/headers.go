package sigv4

import (
	"net/http"
	"strconv"
	"strings"
)

// checkSignedHeaders checks the SignedHeaders list: lower-case header names,
// sorted, without repeats, separated by ";", and including host. The SDKs
// all send it that way, and a fixed form means one list has one canonical
// request. Host must be signed so that a signature for one endpoint cannot
// be replayed against another.
func checkSignedHeaders(list string) *Error {
	const form = " List the signed headers in lower case, sorted, separated by ';', such as 'host;x-amz-date'."
	hasHost := false
	previous := ""
	for rest := list; ; {
		name, more, found := strings.Cut(rest, ";")
		if !isHeaderName(name) {
			return incomplete("SignedHeaders has an empty or malformed header name." + form)
		}
		if previous != "" && name <= previous {
			return incomplete("SignedHeaders is not sorted or names a header twice: " + quoteName(name) + " comes after " + quoteName(previous) + "." + form)
		}
		hasHost = hasHost || name == "host"
		previous = name
		if !found {
			break
		}
		rest = more
	}
	if !hasHost {
		return incomplete("SignedHeaders must include 'host': a signature that does not cover the Host header could be replayed against another endpoint. Sign the host header.")
	}
	return nil
}

// isHeaderName reports whether name is a non-empty HTTP token (RFC 9110)
// with no upper-case letters.
func isHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// appendCanonicalHeaders appends one "name:value\n" line for each signed
// header. A header sent several times has its values joined by ",", each
// trimmed and with runs of spaces collapsed to one. Host comes from
// r.Host, where Go's server puts it. A signed header the request lacks
// fails the check: the request is not the one that was signed.
func appendCanonicalHeaders(buf []byte, r *http.Request, signedHeaders string) ([]byte, *Error) {
	for rest := signedHeaders; rest != ""; {
		var name string
		name, rest, _ = strings.Cut(rest, ";")
		buf = append(buf, name...)
		buf = append(buf, ':')
		if name == "host" {
			host := r.Host
			if host == "" {
				host = r.URL.Host
			}
			buf = append(appendTrimmed(buf, host), '\n')
			continue
		}
		values, err := headerValues(r, name)
		switch {
		case err != nil:
			return buf, err
		case values == nil && name == "content-length" && r.ContentLength > 0:
			// A request built in this process, not read by a server,
			// keeps its length in ContentLength, as the SDK signs it.
			buf = strconv.AppendInt(buf, r.ContentLength, 10)
		case values == nil:
			return buf, mismatch("SignedHeaders lists " + quoteName(name) + ", but the request has no such header. Send every header you sign, unchanged.")
		default:
			for i, v := range values {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = appendTrimmed(buf, v)
			}
		}
		buf = append(buf, '\n')
	}
	return buf, nil
}

// headerValues returns the values of the header whose lower-case name is
// name. Go's server stores every header under its canonical key
// ("X-Amz-Date"), so one map lookup finds it, without allocating and without
// a scan per signed header that a request with thousands of headers could
// make quadratic. Only when that fails does it scan for another spelling,
// which a request built in process may use; a header under two spellings
// there is refused, since the order of its values would be undefined.
func headerValues(r *http.Request, name string) ([]string, *Error) {
	var canonical [64]byte
	if len(name) <= len(canonical) {
		key := canonical[:len(name)]
		upper := true
		for i := 0; i < len(name); i++ {
			c := name[i]
			if upper && 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			key[i] = c
			upper = c == '-'
		}
		if values, ok := r.Header[string(key)]; ok {
			return values, nil
		}
	}
	var values []string
	matches := 0
	for key, v := range r.Header {
		if len(key) == len(name) && strings.EqualFold(key, name) {
			values = v
			matches++
		}
	}
	if matches > 1 {
		return nil, incomplete("The header " + quoteName(name) + " appears under more than one spelling. Send it once.")
	}
	return values, nil
}

// appendTrimmed appends v without leading or trailing spaces and tabs and
// with each run of spaces collapsed to one space.
func appendTrimmed(buf []byte, v string) []byte {
	v = strings.Trim(v, " \t")
	if !strings.Contains(v, "  ") {
		return append(buf, v...)
	}
	space := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		buf = append(buf, c)
	}
	return buf
}
