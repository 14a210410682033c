package sigv4

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"
)

// scenario is one request put to Verify and what Verify must say. Every
// scenario also checks that a refusal reveals nothing: see check.
type scenario struct {
	name string
	// key signs the request. newKey makes a fresh one when it is empty.
	key key
	// build signs a request with k and perhaps spoils it.
	build func(t testing.TB, k key) signed
	// lookup is the key store; lookupOf(k) when nil.
	lookup func(k key) Lookup
	// now is the server's clock; signTime when zero.
	now time.Time
	// code is the error code Verify must return, "" for success.
	code string
	// message, when set, must appear in the error's message.
	message string
	// want, when set, checks what a success proved.
	want func(t testing.TB, k key, s *Signed)
}

// check runs the scenario and returns what Verify said.
func check(t *testing.T, sc scenario) (*Signed, *Error) {
	t.Helper()
	k := sc.key
	if k.id == "" {
		k = newKey()
	}
	s := sc.build(t, k)
	lookup := lookupOf(k)
	if sc.lookup != nil {
		lookup = sc.lookup(k)
	}
	now := sc.now
	if now.IsZero() {
		now = signTime
	}
	got, err := Verify(s.r, s.body, now, lookup)
	wantCode(t, err, sc.code)
	if err != nil {
		if sc.message != "" && !strings.Contains(err.Message, sc.message) {
			t.Errorf("message %q does not say %q", err.Message, sc.message)
		}
		wantNoSecrets(t, err, k, s)
	}
	if got != nil && sc.want != nil {
		sc.want(t, k, got)
	}
	return got, err
}

// wantNoSecrets fails the test if the error holds the secret access key, the
// session token, the request's signature or the signature that would have
// been right: any of them would help someone without the key.
func wantNoSecrets(t testing.TB, err *Error, k key, s signed) {
	t.Helper()
	hidden := map[string]string{"secret access key": k.secret.SecretAccessKey}
	if k.secret.SessionToken != "" {
		hidden["session token"] = k.secret.SessionToken
	}
	if token := s.r.Header.Get("X-Amz-Security-Token"); token != "" {
		hidden["request's session token"] = token
	}
	if token := s.r.URL.Query().Get("X-Amz-Security-Token"); token != "" {
		hidden["request's session token in the query"] = token
	}
	if sig := requestSignature(s.r); sig != "" {
		hidden["request's signature"] = sig
	}
	if sig := rightSignature(s, k.secret.SecretAccessKey); sig != "" {
		hidden["right signature"] = sig
	}
	for what, value := range hidden {
		if len(value) >= 8 && (strings.Contains(err.Message, value) || strings.Contains(err.Error(), value)) {
			t.Errorf("the error reveals the %s: %v", what, err)
		}
	}
}

func requestSignature(r *http.Request) string {
	if sig := r.URL.Query().Get("X-Amz-Signature"); sig != "" {
		return sig
	}
	_, sig, _ := strings.Cut(r.Header.Get("Authorization"), "Signature=")
	return sig
}

// rightSignature is the signature the request would need to verify, or ""
// when its authorization is too malformed to have one.
func rightSignature(s signed, secret string) string {
	params, err := parseQuery(s.r.URL.RawQuery, nil)
	if err != nil {
		return ""
	}
	a, err := readAuthorization(s.r, params)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(s.body)
	var payload [64]byte
	hex.Encode(payload[:], sum[:])
	normalized, _ := canonicalPaths(wirePath(s.r))
	canonical, err := appendCanonicalRequest(nil, s.r, normalized, params, &a, &payload)
	if err != nil {
		return ""
	}
	k := signingKey(secret, a.amzDate[:8], a.region, a.service)
	mac := hmacSHA256(k[:], a.appendStringToSign(nil, sha256.Sum256(canonical)))
	return hex.EncodeToString(mac[:])
}

// spoil returns a builder that signs with build and then changes the
// request with change.
func spoil(build func(testing.TB, key) signed, change func(s *signed)) func(testing.TB, key) signed {
	return func(t testing.TB, k key) signed {
		s := build(t, k)
		change(&s)
		return s
	}
}

// setAuthorization rewrites the Authorization header with old replaced by new.
func setAuthorization(old, new string) func(s *signed) {
	return func(s *signed) {
		s.r.Header.Set("Authorization", strings.Replace(s.r.Header.Get("Authorization"), old, new, 1))
	}
}

// setQuery replaces the raw query string, in r.URL and in RequestURI.
func setQuery(s *signed, raw string) {
	s.r.URL.RawQuery = raw
	path, _, _ := strings.Cut(s.r.RequestURI, "?")
	s.r.RequestURI = path + "?" + raw
}

// The requests the scenarios start from.

func iamSigned(t testing.TB, k key) signed {
	return signHeader(t, formPost(t, "iam.amazonaws.com", iamBody), k, "iam", "us-east-1", signTime)
}

func stsSigned(t testing.TB, k key) signed {
	return signHeader(t, formPost(t, "sts.us-west-2.amazonaws.com", stsBody), k, "sts", "us-west-2", signTime)
}

func stsGet(t testing.TB) *http.Request {
	r, err := http.NewRequest(http.MethodGet, "https://sts.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15", nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func stsPresigned(expires time.Duration) func(testing.TB, key) signed {
	return func(t testing.TB, k key) signed {
		return presign(t, stsGet(t), k, "sts", "us-east-1", signTime, expires)
	}
}

func wantSigned(service, region string, presigned bool) func(testing.TB, key, *Signed) {
	return func(t testing.TB, k key, s *Signed) {
		t.Helper()
		if s.AccessKeyID != k.id || s.Region != region || s.Service != service || !s.Time.Equal(signTime) ||
			s.SessionToken != k.secret.SessionToken || s.Presigned != presigned {
			t.Errorf("Verify proved %v (session token right: %v); want %s in %s/%s at %s, presigned %v",
				s, s.SessionToken == k.secret.SessionToken, k.id, region, service, signTime, presigned)
		}
	}
}
