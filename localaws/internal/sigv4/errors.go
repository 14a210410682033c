package sigv4

import "net/http"

// Error is an authentication failure in AWS's terms: the HTTP status, AWS's
// error code and a message that says what is wrong and how to fix it. The
// SDKs surface Code as the API error's code, and retry or correct their
// clock on some of them, so the codes are AWS's own.
type Error struct {
	// Status is the HTTP status of the response.
	Status int
	// Code is AWS's error code, one of the Code constants.
	Code string
	// Message is for people. It never holds a secret, a session token or
	// a signature.
	Message string
}

// Error returns the code and the message, as the SDKs print an API error.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// AWS's error codes for authentication failures. MissingAuthenticationToken,
// IncompleteSignature, InvalidClientTokenId and RequestExpired, with their
// statuses, are from AWS's "Common Errors" lists (the IAM API Reference
// lists all but InvalidClientTokenId; the older all-services list has it).
// SignatureDoesNotMatch and ExpiredToken are what IAM and STS, which speak
// the Query protocol, send on the wire for a bad signature or clock and for
// an expired session; the lists name only the JSON services' spelling,
// ExpiredTokenException.
const (
	// CodeMissingAuthenticationToken: the request carries no signature at
	// all. 403.
	CodeMissingAuthenticationToken = "MissingAuthenticationToken"
	// CodeIncompleteSignature: the signature is there but malformed or
	// missing a part, such as the credential or the date. 400.
	CodeIncompleteSignature = "IncompleteSignature"
	// CodeInvalidClientTokenID: the access key is unknown, deleted or
	// inactive, or the session token does not belong to it. 403.
	CodeInvalidClientTokenID = "InvalidClientTokenId"
	// CodeSignatureDoesNotMatch: the signature, its scope or its clock is
	// wrong. IAM and STS send it for a request dated more than fifteen
	// minutes from their clock ("Signature expired: ..."), and the SDKs
	// correct their clock when they see it. 403.
	CodeSignatureDoesNotMatch = "SignatureDoesNotMatch"
	// CodeRequestExpired: a presigned URL is used after X-Amz-Date plus
	// X-Amz-Expires. 400.
	CodeRequestExpired = "RequestExpired"
	// CodeExpiredToken: the temporary credentials have expired. 403.
	CodeExpiredToken = "ExpiredToken"
)

// UnknownAccessKey is what a Lookup returns for an access key that does not
// exist, was deleted or is inactive. Like AWS, it does not say which, so that
// a caller without the secret learns nothing about the key.
func UnknownAccessKey() *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeInvalidClientTokenID,
		Message: "The security token included in the request is invalid."}
}

// ExpiredCredentials is what a Lookup returns for temporary credentials whose
// session has ended.
func ExpiredCredentials() *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeExpiredToken,
		Message: "The security token included in the request is expired. Request new temporary credentials from STS and sign again."}
}

func missingAuthentication() *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeMissingAuthenticationToken,
		Message: "Request is missing Authentication Token. Sign it with AWS Signature Version 4: an 'Authorization: AWS4-HMAC-SHA256 ...' header or the X-Amz-* query parameters of a presigned URL."}
}

func incomplete(message string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeIncompleteSignature, Message: message}
}

func mismatch(message string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeSignatureDoesNotMatch, Message: message}
}

func requestExpired(message string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeRequestExpired, Message: message}
}

func invalidToken(message string) *Error {
	return &Error{Status: http.StatusForbidden, Code: CodeInvalidClientTokenID,
		Message: "The security token included in the request is invalid: " + message}
}

// InvalidRegion is AWS's answer to a request whose credential scope names a
// Region AWS does not have; fix says how to correct it.
func InvalidRegion(region, fix string) *Error {
	return mismatch("Credential should be scoped to a valid region, not " + quoteName(region) + ". " + fix)
}
