package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
)

// verifySignature rebuilds the canonical request and the string to sign,
// signs it with the key derived from secret, and compares the result with
// the request's signature in constant time. When the path as sent differs
// from its normalized form, a signature over either is accepted (see
// canonicalPaths); each is a signature by the key's owner over this request.
func (a *authorization) verifySignature(r *http.Request, params []param, payload *[64]byte, secret string) *Error {
	key := signingKey(secret, a.amzDate[:8], a.region, a.service)
	normalized, asSent := canonicalPaths(wirePath(r))

	var canonicalScratch [1024]byte
	canonical, err := appendCanonicalRequest(canonicalScratch[:0], r, normalized, params, a, payload)
	if err != nil {
		return err
	}
	var stringScratch [256]byte
	stringToSign := a.appendStringToSign(stringScratch[:0], sha256.Sum256(canonical))
	if a.signatureMatches(&key, stringToSign) {
		return nil
	}
	if asSent != "" {
		canonical, _ = appendCanonicalRequest(canonical[:0], r, asSent, params, a, payload)
		var asSentScratch [256]byte
		if a.signatureMatches(&key, a.appendStringToSign(asSentScratch[:0], sha256.Sum256(canonical))) {
			return nil
		}
	}
	return mismatch("The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.\n\nThe String-to-Sign should have been\n'" + string(stringToSign) + "'")
}

// appendStringToSign appends the string to sign:
//
//	AWS4-HMAC-SHA256
//	RequestDateTime
//	CredentialScope
//	hex(SHA-256(CanonicalRequest))
func (a *authorization) appendStringToSign(buf []byte, canonicalHash [32]byte) []byte {
	buf = append(buf, algorithm...)
	buf = append(buf, '\n')
	buf = append(buf, a.amzDate...)
	buf = append(buf, '\n')
	buf = append(buf, a.scope...)
	buf = append(buf, '\n')
	return hex.AppendEncode(buf, canonicalHash[:])
}

// signatureMatches signs stringToSign and compares the hex signature with the
// request's in constant time, so that the time taken says nothing about how
// many leading digits of a forged signature were right.
func (a *authorization) signatureMatches(key *[32]byte, stringToSign []byte) bool {
	sum := hmacSHA256(key[:], stringToSign)
	var want [64]byte
	hex.Encode(want[:], sum[:])
	return equalConstantTime(want[:], a.signature)
}

// signingKey derives the key that signs requests for one day, Region and
// service:
//
//	kDate    = HMAC("AWS4" + secret, YYYYMMDD)
//	kRegion  = HMAC(kDate, region)
//	kService = HMAC(kRegion, service)
//	kSigning = HMAC(kService, "aws4_request")
func signingKey(secret, date, region, service string) [32]byte {
	var seed [64]byte
	k := hmacSHA256(append(append(seed[:0], "AWS4"...), secret...), date)
	k = hmacSHA256(k[:], region)
	k = hmacSHA256(k[:], service)
	return hmacSHA256(k[:], terminator)
}

// hmacSHA256 is HMAC-SHA256 as RFC 2104 defines it,
//
//	H((K ^ opad) || H((K ^ ipad) || message)),
//
// computed with sha256.Sum256 over stack buffers. crypto/hmac allocates two
// hash states and two pads for every key, and a signature needs five keys;
// this keeps Verify to a handful of allocations. Tests pin it to crypto/hmac.
func hmacSHA256[M string | []byte](key []byte, message M) [32]byte {
	const blockSize = 64
	var k [blockSize]byte
	if len(key) > blockSize {
		sum := sha256.Sum256(key)
		copy(k[:], sum[:])
	} else {
		copy(k[:], key)
	}

	var innerScratch [blockSize + 192]byte
	inner := innerScratch[:blockSize]
	for i := range k {
		inner[i] = k[i] ^ 0x36
	}
	inner = append(inner, message...)
	innerSum := sha256.Sum256(inner)

	var outer [blockSize + sha256.Size]byte
	for i := range k {
		outer[i] = k[i] ^ 0x5c
	}
	copy(outer[blockSize:], innerSum[:])
	return sha256.Sum256(outer[:])
}

// equalConstantTime reports whether a and b hold the same bytes, taking time
// that depends on their length but not on where they differ.
func equalConstantTime[A, B string | []byte](a A, b B) bool {
	if len(a) != len(b) {
		return false
	}
	var diff byte
	for i := 0; i < len(a); i++ {
		diff |= a[i] ^ b[i]
	}
	return diff == 0
}
