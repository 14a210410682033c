package query

import "net/http"

// Error is a failed request as the Query protocol reports it: an HTTP
// status, who is at fault, AWS's error code and a message for people. The
// SDK surfaces Code as smithy.APIError's ErrorCode and Status as the
// response error's HTTP status, and maps the modeled codes to its typed
// errors (types.NoSuchEntityException and the like).
//
// Functions return *Error rather than error, so that a handler gets the
// status and code without a type assertion. Keep it typed: a nil *Error
// stored in an error variable is not a nil error.
type Error struct {
	// Status is the HTTP status of the response.
	Status int
	// Type is Sender when the caller is at fault and Receiver when the
	// service is.
	Type string
	// Code is AWS's error code, such as NoSuchEntity.
	Code string
	// Message says what went wrong, in words a person can act on.
	Message string
}

// The values of Error.Type.
const (
	Sender   = "Sender"
	Receiver = "Receiver"
)

// NewError returns an error with the given status, code and message; the
// Type follows the status (Receiver for 5xx, Sender otherwise). Use it for
// codes this package has no constructor for.
func NewError(status int, code, message string) *Error {
	typ := Sender
	if status >= http.StatusInternalServerError {
		typ = Receiver
	}
	return &Error{Status: status, Type: typ, Code: code, Message: message}
}

// Error returns the code and message, as the SDK prints an API error.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}
