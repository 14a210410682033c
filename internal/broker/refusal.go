package broker

import (
	"encoding/json"
	"net/http"
)

// Codes of the broker's error answers, {"code": ..., "message": ...}. A
// pod's SDK shows them in its error; the broker logs each with the pod.
const (
	// CodeTokenMissing: no Authorization header; the SDK was given no
	// token file (AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE).
	CodeTokenMissing = "TokenMissing"
	// CodeTokenInvalid: the API server does not authenticate the token
	// for Audience (expired, of another audience, not a token).
	CodeTokenInvalid = "TokenInvalid"
	// CodeTokenNotBound: the token is not a service account's, or not
	// bound to a pod (a TokenRequest without boundObjectRef).
	CodeTokenNotBound = "TokenNotBound"
	// CodePodGone: the pod the token is bound to no longer exists, or is
	// another pod of the same name.
	CodePodGone = "PodGone"
	// CodeNoRequest: no CredentialsRequest in Broker mode names the pod's
	// service account, or the pod's leash.dev/credentials-injected names
	// none of those that do.
	CodeNoRequest = "NoRequest"
	// CodeAmbiguousRequest: several Broker requests name the service
	// account and the pod's leash.dev/credentials-injected picks none.
	CodeAmbiguousRequest = "AmbiguousRequest"
	// CodeForeignRole: the request's status.principal is not a role the
	// operator makes for this cluster.
	CodeForeignRole = "ForeignRole"
	// CodeRevoked: the request carries leash.dev/revoke.
	CodeRevoked = "Revoked"
	// CodeReviewFailed: the TokenReview call failed; nothing was decided.
	CodeReviewFailed = "TokenReviewFailed"
	// CodeAssumeRoleFailed: STS refused or failed the AssumeRole.
	CodeAssumeRoleFailed = "AssumeRoleFailed"
	// CodeNotReady: the broker's caches of pods and requests have not
	// synced yet.
	CodeNotReady = "NotReady"
	// CodeNotFound and CodeMethodNotAllowed: a path or method the broker
	// does not serve.
	CodeNotFound         = "NotFound"
	CodeMethodNotAllowed = "MethodNotAllowed"
)

// refusal is an error answer: its HTTP status, code and a message for the
// pod's owner. It never holds a token or a key.
type refusal struct {
	status  int
	code    string
	message string
}

func (r *refusal) Error() string { return r.code + ": " + r.message }

func refuse(status int, code, message string) *refusal {
	return &refusal{status: status, code: code, message: message}
}

// errorBody is the JSON of an error answer.
type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeRefusal(w http.ResponseWriter, r *refusal) {
	writeJSON(w, r.status, errorBody{Code: r.code, Message: r.message})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"code":"InternalError","message":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
