// Package sigv4 verifies AWS Signature Version 4 on the requests that the AWS
// SDKs and the AWS CLI send to leash's local IAM and STS endpoint, so that
// they work against it unchanged, with real keys and real signatures.
//
// Verify accepts both ways of carrying a signature that AWS documents: the
// Authorization header ("AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
// Signature=...") and the query string of a presigned URL (X-Amz-Algorithm,
// X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders,
// X-Amz-Signature, X-Amz-Security-Token). It rebuilds the canonical request
// the way AWS does for every service but S3, derives the signing key from
// the secret the caller's key store returns, and compares signatures in
// constant time. On failure it returns an *Error in AWS's terms (code, HTTP
// status, message), ready to be written as a Query-protocol error response.
//
// The rules follow AWS's "Create a signed AWS API request" and "Elements of
// an AWS API request signature" pages of the IAM User Guide. Where the SDKs
// disagree with each other, Verify accepts what each of them sends:
//
//   - Canonical URI. botocore (the AWS CLI) and the JavaScript and Java SDKs
//     remove dot segments and repeated slashes from the path before
//     encoding it; the Go SDK does not. Verify tries the normalized path
//     first and, only when the path was not already normal, the path as
//     sent. The two differ only for paths such as "//" or "/a/../b"; IAM
//     and STS clients send "/".
//   - Payload. IAM and STS sign the body, so the payload hash is always the
//     SHA-256 of the body. X-Amz-Content-Sha256, when present, must equal it:
//     trusting it alone would let a captured request carry another body.
//     UNSIGNED-PAYLOAD and streaming payloads are S3's and are refused.
//   - Presigned expiry. X-Amz-Expires, when present, ends the URL's life
//     (at most 604800 seconds, seven days); without it a presigned request
//     gets the same fifteen minutes either side as a header-signed one.
//
// Nothing this package returns or formats holds a secret access key, a
// session token or a signature.
package sigv4
