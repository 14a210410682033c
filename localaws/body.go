package localaws

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"leash.dev/leash/localaws/internal/query"
)

// maxBody bounds a request body; IAM's largest parameters (policy
// documents of 131,072 characters, URL-encoded) are far smaller.
const maxBody = 1 << 20

// requestTimeout is what a client whose body did not arrive within the read
// timeout is told: the words AWS uses for a socket it stopped reading
// (RequestTimeout, 400).
const requestTimeout = "Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed."

// limitBody bounds r's body at maxBody bytes. Reading past the bound fails,
// and the server closes the connection after the answer rather than
// reading the rest.
func limitBody(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
}

// readBody reads r's body, bounded by limitBody.
func readBody(r *http.Request) ([]byte, error) {
	return io.ReadAll(r.Body)
}

// bodyTimedOut reports whether reading a body failed because the read
// timeout passed.
func bodyTimedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// bodyError is the Query protocol's answer to a body that could not be
// read.
func bodyError(err error) *query.Error {
	var tooLarge *http.MaxBytesError
	switch {
	case bodyTimedOut(err):
		return query.NewError(http.StatusBadRequest, "RequestTimeout", requestTimeout)
	case errors.As(err, &tooLarge):
		return query.MalformedInput(fmt.Sprintf("the request body is larger than %d bytes", maxBody))
	}
	return query.MalformedInput("could not read the request body: " + err.Error())
}
