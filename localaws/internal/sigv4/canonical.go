package sigv4

import "net/http"

// appendCanonicalRequest appends the canonical request for r with path as
// its (not yet encoded) canonical path:
//
//	HTTPMethod
//	CanonicalURI
//	CanonicalQueryString
//	CanonicalHeaders      (one "name:value" line per signed header)
//
//	SignedHeaders
//	HashedPayload
func appendCanonicalRequest(buf []byte, r *http.Request, path string, params []param, a *authorization, payload *[64]byte) ([]byte, *Error) {
	buf = append(buf, r.Method...)
	buf = append(buf, '\n')
	buf = appendEncoded(buf, path, true)
	buf = append(buf, '\n')
	buf = appendCanonicalQuery(buf, params, a.presigned)
	buf = append(buf, '\n')
	buf, err := appendCanonicalHeaders(buf, r, a.signedHeaders)
	if err != nil {
		return buf, err
	}
	buf = append(buf, '\n')
	buf = append(buf, a.signedHeaders...)
	buf = append(buf, '\n')
	buf = append(buf, payload[:]...)
	return buf, nil
}
