package broker

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// tokenExpiry reads the exp claim of a JWT without verifying it: only to
// bound how long the TokenReview of that same token is cached, never to
// decide whether the token is good (the API server decides that). A token
// whose exp cannot be read gives the zero time, and its review is cached
// for maxReviewAge only.
func tokenExpiry(token string) time.Time {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}
	}
	var claims struct {
		Exp json.Number `json:"exp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return time.Time{}
	}
	exp, err := claims.Exp.Int64()
	if err != nil || exp <= 0 {
		return time.Time{}
	}
	return time.Unix(exp, 0)
}

// bearer is the token of an Authorization header: the SDKs send the token
// file's content as it is; "Bearer " before it is accepted too.
func bearer(header string) string {
	token := strings.TrimSpace(header)
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = strings.TrimSpace(token[7:])
	}
	return token
}
