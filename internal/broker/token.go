package broker

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// claims are what the broker reads of a JWT without verifying it: exp,
// only to bound how long the TokenReview of that same token is cached, and
// the pod the token says it is bound to, only to name it in the log of a
// token the API server refused (as "claimedPod"). Neither ever decides
// whether a token is good: the API server decides that.
type claims struct {
	exp time.Time
	pod string // NAMESPACE/NAME, empty when the token names none
}

// tokenClaims reads a service-account JWT's claims. A token whose exp
// cannot be read gives the zero time, and its review is cached for
// maxReviewAge only.
func tokenClaims(token string) claims {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims{}
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return claims{}
	}
	var c struct {
		Exp        json.Number `json:"exp"`
		Kubernetes struct {
			Namespace string `json:"namespace"`
			Pod       struct {
				Name string `json:"name"`
			} `json:"pod"`
		} `json:"kubernetes.io"`
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return claims{}
	}
	var out claims
	if exp, err := c.Exp.Int64(); err == nil && exp > 0 {
		out.exp = time.Unix(exp, 0)
	}
	if k := c.Kubernetes; k.Namespace != "" && k.Pod.Name != "" {
		out.pod = k.Namespace + "/" + k.Pod.Name
	}
	return out
}

// bearer is the token of an Authorization header: the SDKs send the token
// file's content as it is; "Bearer " before it is accepted too.
func bearer(header string) string {
	token := strings.TrimSpace(header)
	if strings.EqualFold(token, "bearer") {
		return ""
	}
	if len(token) > 7 && strings.EqualFold(token[:7], "bearer ") {
		token = strings.TrimSpace(token[7:])
	}
	return token
}
