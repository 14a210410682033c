package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// payloadHash returns the hex SHA-256 of body, the HashedPayload of the
// canonical request. IAM and STS sign the body, so the hash is always
// computed; an X-Amz-Content-Sha256 header must agree with it. Taking the
// header's word instead would let a captured request carry another body.
func payloadHash(r *http.Request, body []byte) ([64]byte, *Error) {
	var hash [64]byte
	sum := sha256.Sum256(body)
	hex.Encode(hash[:], sum[:])

	values := r.Header["X-Amz-Content-Sha256"]
	switch {
	case len(values) == 0:
		return hash, nil
	case len(values) > 1:
		return hash, incomplete("The request carries more than one X-Amz-Content-Sha256 header. Send exactly one, or none.")
	case values[0] == string(hash[:]):
		return hash, nil
	case values[0] == "UNSIGNED-PAYLOAD" || strings.HasPrefix(values[0], "STREAMING-"):
		return hash, mismatch("X-Amz-Content-Sha256 is " + quoteName(values[0]) + ", which only Amazon S3 accepts. IAM and STS requests must sign their body: send its hex SHA-256, or no X-Amz-Content-Sha256 header.")
	}
	return hash, mismatch("X-Amz-Content-Sha256 does not match the SHA-256 of the request body. Sign the body you send, and send the body you signed.")
}
