// Package jsonrpc is the AWS JSON 1.1 protocol that CloudTrail speaks: a
// POST of a JSON body naming its operation in X-Amz-Target, answered with a
// JSON body, or with {"__type":"Code","message":"…"} and an HTTP status for
// an error. Timestamps travel as seconds since the epoch.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"
)

// ContentType is the protocol's media type.
const ContentType = "application/x-amz-json-1.1"

// Error is a refused request: HTTP status, AWS's error code and a message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Target is the operation a request names in X-Amz-Target, such as
// "CloudTrail_20131101.LookupEvents"'s service prefix and action; ok is false
// for a request of another protocol.
func Target(r *http.Request) (prefix, action string, ok bool) {
	t := r.Header.Get("X-Amz-Target")
	i := strings.LastIndexByte(t, '.')
	if i <= 0 {
		return "", "", false
	}
	return t[:i], t[i+1:], true
}

// Decode reads a request body into v. An empty body is an empty object.
func Decode(r *http.Request, body []byte, v any) *Error {
	if r.Method != http.MethodPost {
		return &Error{Status: http.StatusBadRequest, Code: "SerializationException", Message: "send the request as a POST"}
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, ContentType) {
		return &Error{Status: http.StatusBadRequest, Code: "SerializationException", Message: fmt.Sprintf("Content-Type %q: send %s", ct, ContentType)}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &Error{Status: http.StatusBadRequest, Code: "SerializationException", Message: "the request body is not the operation's JSON: " + err.Error()}
	}
	return nil
}

// WriteResult sends v as the operation's result.
func WriteResult(w http.ResponseWriter, requestID string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		WriteError(w, requestID, &Error{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: "could not encode the response"})
		return
	}
	write(w, requestID, http.StatusOK, body)
}

// WriteError sends e.
func WriteError(w http.ResponseWriter, requestID string, e *Error) {
	body, _ := json.Marshal(struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}{e.Code, e.Message})
	w.Header().Set("X-Amzn-ErrorType", e.Code)
	write(w, requestID, e.Status, body)
}

func write(w http.ResponseWriter, requestID string, status int, body []byte) {
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("X-Amzn-RequestId", requestID)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Time is a timestamp as the protocol writes it: seconds since the epoch,
// with a fraction for milliseconds.
type Time struct{ time.Time }

// MarshalJSON writes the seconds since the epoch.
func (t Time) MarshalJSON() ([]byte, error) {
	return []byte(fmt.Sprintf("%.3f", float64(t.UnixMilli())/1000)), nil
}

// UnmarshalJSON reads seconds since the epoch.
func (t *Time) UnmarshalJSON(b []byte) error {
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("a timestamp is seconds since the epoch: %w", err)
	}
	if math.IsNaN(secs) || math.IsInf(secs, 0) || math.Abs(secs) > 1e12 {
		return fmt.Errorf("timestamp %v is out of range", secs)
	}
	whole, frac := math.Modf(secs)
	t.Time = time.Unix(int64(whole), int64(math.Round(frac*1e3))*int64(time.Millisecond)).UTC()
	return nil
}
