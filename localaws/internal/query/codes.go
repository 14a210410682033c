package query

import (
	"fmt"
	"net/http"
)

// The constructors below give each error AWS's code and HTTP status. The
// modeled IAM and STS errors take theirs from the awsQueryError trait of the
// SDK's service model; the others from AWS's list of common errors. See the
// package documentation for the choices between codes.

// NoSuchEntity: the named user, role, policy or key does not exist.
func NoSuchEntity(message string) *Error {
	return NewError(http.StatusNotFound, "NoSuchEntity", message)
}

// EntityAlreadyExists: a create names something that exists.
func EntityAlreadyExists(message string) *Error {
	return NewError(http.StatusConflict, "EntityAlreadyExists", message)
}

// DeleteConflict: a delete of something that still has attachments, such
// as a user with access keys or a role in an instance profile.
func DeleteConflict(message string) *Error {
	return NewError(http.StatusConflict, "DeleteConflict", message)
}

// LimitExceeded: a quota, such as two access keys per user, would be
// exceeded. IAM's model gives it 409.
func LimitExceeded(message string) *Error {
	return NewError(http.StatusConflict, "LimitExceeded", message)
}

// ConcurrentModification: two changes to one entity raced.
func ConcurrentModification(message string) *Error {
	return NewError(http.StatusConflict, "ConcurrentModification", message)
}

// MalformedPolicyDocument: a policy document that does not parse or
// breaks the policy grammar. IAM and STS share the code.
func MalformedPolicyDocument(message string) *Error {
	return NewError(http.StatusBadRequest, "MalformedPolicyDocument", message)
}

// InvalidInput: a value that passes the shape's constraints but makes no
// sense, such as a malformed ARN.
func InvalidInput(message string) *Error {
	return NewError(http.StatusBadRequest, "InvalidInput", message)
}

// UnmodifiableEntity: a change to something only AWS may change, such as
// a service-linked role.
func UnmodifiableEntity(message string) *Error {
	return NewError(http.StatusBadRequest, "UnmodifiableEntity", message)
}

// PolicyNotAttachable: the managed policy cannot be attached here.
func PolicyNotAttachable(message string) *Error {
	return NewError(http.StatusBadRequest, "PolicyNotAttachable", message)
}

// ServiceFailure: IAM's modeled server fault.
func ServiceFailure(message string) *Error {
	return NewError(http.StatusInternalServerError, "ServiceFailure", message)
}

// ValidationError: a parameter breaks a constraint of its shape. Prefer
// Params.Invalid, which words the message as IAM and STS do.
func ValidationError(message string) *Error {
	return NewError(http.StatusBadRequest, "ValidationError", message)
}

// MalformedInput: the input cannot be read as the operation's shape.
func MalformedInput(message string) *Error {
	return NewError(http.StatusBadRequest, "MalformedInput", message)
}

// MalformedQueryString: the query string or body is not valid form
// encoding. AWS's common errors give it 404.
func MalformedQueryString(message string) *Error {
	return NewError(http.StatusNotFound, "MalformedQueryString", message)
}

// MissingAction: the request has no Action parameter.
func MissingAction() *Error {
	return NewError(http.StatusBadRequest, "MissingAction",
		"Missing Action: send the operation's name as the Action parameter, such as Action=ListUsers")
}

// InvalidAction: the service has no such operation in that version, worded
// as AWS words it. The name is echoed up to maxEchoedAction characters, so
// a request with a megabyte Action is not answered with a megabyte.
func InvalidAction(action, version string) *Error {
	if len(action) > maxEchoedAction {
		action = fmt.Sprintf("%s…(%d more characters)", action[:maxEchoedAction], len(action)-maxEchoedAction)
	}
	if len(version) > maxEchoedAction {
		version = fmt.Sprintf("%s…(%d more characters)", version[:maxEchoedAction], len(version)-maxEchoedAction)
	}
	return NewError(http.StatusBadRequest, "InvalidAction",
		"Could not find operation "+action+" for version "+version)
}

// maxEchoedAction is the most of an unknown Action an error repeats: longer
// than any operation's name.
const maxEchoedAction = 128

// MissingParameter: a parameter of the protocol itself, such as Version,
// is absent. An operation's own required members are a ValidationError.
func MissingParameter(name string) *Error {
	return NewError(http.StatusBadRequest, "MissingParameter",
		"The request must contain the parameter "+name)
}

// AccessDenied: the caller is not allowed the action. Word the message
// with authz.Message.
func AccessDenied(message string) *Error {
	return NewError(http.StatusForbidden, "AccessDenied", message)
}

// Throttling: the caller is over its request rate. The SDK retries it with
// backoff. An empty message gives AWS's, "Rate exceeded".
func Throttling(message string) *Error {
	if message == "" {
		message = "Rate exceeded"
	}
	return NewError(http.StatusBadRequest, "Throttling", message)
}

// InternalFailure: the request failed for a reason of the service's own.
func InternalFailure(message string) *Error {
	return NewError(http.StatusInternalServerError, "InternalFailure", message)
}

// ServiceUnavailable: a temporary failure; the SDK retries it.
func ServiceUnavailable(message string) *Error {
	return NewError(http.StatusServiceUnavailable, "ServiceUnavailable", message)
}

// InvalidClientTokenID: the access key ID or session token is not one the
// service issued. An empty message gives AWS's.
func InvalidClientTokenID(message string) *Error {
	if message == "" {
		message = "The security token included in the request is invalid."
	}
	return NewError(http.StatusForbidden, "InvalidClientTokenId", message)
}

// SignatureDoesNotMatch: the signature is not the one the secret key
// gives.
func SignatureDoesNotMatch(message string) *Error {
	return NewError(http.StatusForbidden, "SignatureDoesNotMatch", message)
}

// IncompleteSignature: the Authorization header or presigned query lacks a
// part of the signature.
func IncompleteSignature(message string) *Error {
	return NewError(http.StatusBadRequest, "IncompleteSignature", message)
}

// MissingAuthenticationToken: the request is not signed at all. An empty
// message gives AWS's.
func MissingAuthenticationToken(message string) *Error {
	if message == "" {
		message = "Request is missing Authentication Token"
	}
	return NewError(http.StatusForbidden, "MissingAuthenticationToken", message)
}

// RequestExpired: the signature's date is too far from the server's clock.
func RequestExpired(message string) *Error {
	return NewError(http.StatusBadRequest, "RequestExpired", message)
}

// ExpiredToken: the session token of temporary credentials has expired.
// An empty message gives AWS's.
func ExpiredToken(message string) *Error {
	if message == "" {
		message = "The security token included in the request is expired"
	}
	return NewError(http.StatusForbidden, "ExpiredToken", message)
}

// ExpiredIdentityToken: STS's ExpiredTokenException, for an expired web
// identity or SAML token given to AssumeRoleWith*.
func ExpiredIdentityToken(message string) *Error {
	return NewError(http.StatusBadRequest, "ExpiredTokenException", message)
}

// InvalidIdentityToken: STS cannot accept the web identity token, such as
// one whose signature or issuer does not check out.
func InvalidIdentityToken(message string) *Error {
	return NewError(http.StatusBadRequest, "InvalidIdentityToken", message)
}

// IDPRejectedClaim: the identity provider's token or assertion does not
// satisfy the role's trust policy.
func IDPRejectedClaim(message string) *Error {
	return NewError(http.StatusForbidden, "IDPRejectedClaim", message)
}

// IDPCommunicationError: STS could not reach the identity provider.
func IDPCommunicationError(message string) *Error {
	return NewError(http.StatusBadRequest, "IDPCommunicationError", message)
}

// PackedPolicyTooLarge: the session policies and tags exceed what fits in
// a session token.
func PackedPolicyTooLarge(message string) *Error {
	return NewError(http.StatusBadRequest, "PackedPolicyTooLarge", message)
}

// RegionDisabled: STS is not activated in the requested region.
func RegionDisabled(message string) *Error {
	return NewError(http.StatusForbidden, "RegionDisabledException", message)
}
