package sigv4

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func acceptScenarios() []scenario {
	example := key{id: exampleKeyID, secret: Secret{SecretAccessKey: exampleSecret}}
	return []scenario{
		{name: "IAM POST signed by the SDK is accepted as iam in us-east-1",
			build: iamSigned, want: wantSigned("iam", "us-east-1", false)},
		{name: "STS POST signed by the SDK is accepted as sts in its scope's Region",
			build: stsSigned, want: wantSigned("sts", "us-west-2", false)},
		{name: "AWS's documented example key signs like any other",
			key: example, build: iamSigned, want: wantSigned("iam", "us-east-1", false)},
		{name: "temporary credentials with their session token are accepted and the token returned",
			key: newTemporaryKey(), build: stsSigned, want: wantSigned("sts", "us-west-2", false)},
		{name: "presigned STS URL is accepted as presigned",
			build: stsPresigned(15 * time.Minute), want: wantSigned("sts", "us-east-1", true)},
		{name: "presigned URL with temporary credentials carries the token in the signed query",
			key: newTemporaryKey(), build: stsPresigned(time.Hour), want: wantSigned("sts", "us-east-1", true)},
		{name: "presigned URL without X-Amz-Expires is accepted within 15 minutes",
			build: stsPresigned(0), now: signTime.Add(14 * time.Minute), want: wantSigned("sts", "us-east-1", true)},
		{name: "an unsigned header may change: User-Agent is not signed",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("User-Agent", "something else") })},
		{name: "runs of spaces in a signed header collapse to one",
			build: spoil(iamSigned, func(s *signed) {
				s.r.Header.Set("Content-Type", "  application/x-www-form-urlencoded;     charset=utf-8 ")
			})},
		{name: "empty pairs in the query string are not parameters",
			build: spoil(stsPresigned(time.Hour), func(s *signed) { setQuery(s, "&"+s.r.URL.RawQuery+"&&") })},
		{name: "X-Amz-Content-Sha256 equal to the body's hash is accepted",
			build: func(t testing.TB, k key) signed {
				r := formPost(t, "iam.amazonaws.com", iamBody)
				r.Header.Set("X-Amz-Content-Sha256", hashHex([]byte(iamBody)))
				return signHeader(t, r, k, "iam", "us-east-1", signTime)
			}},
	}
}

func TestVerifyAcceptsSignedRequests(t *testing.T) {
	for _, sc := range acceptScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func tamperScenarios() []scenario {
	return []scenario{
		{name: "changed body is refused", code: CodeSignatureDoesNotMatch, message: "does not match",
			build: spoil(iamSigned, func(s *signed) { s.body = []byte("Action=DeleteUser&UserName=alice&Version=2010-05-08") })},
		{name: "one byte more of body is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.body = append(s.body, '&') })},
		{name: "changed signed header is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("Content-Type", "text/plain") })},
		{name: "signed header sent twice is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Add("Content-Type", "text/plain") })},
		{name: "signed header left out is refused, naming it", code: CodeSignatureDoesNotMatch, message: "'content-type'",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Del("Content-Type") })},
		{name: "changed path is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.r.RequestURI, s.r.URL.Path = "/admin", "/admin" })},
		{name: "added query parameter is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { setQuery(s, "Action=DeleteUser") })},
		{name: "changed method is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.r.Method = http.MethodPut })},
		{name: "changed host is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.r.Host = "iam.example.com" })},
		{name: "changed X-Amz-Date is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("X-Amz-Date", "20260101T120001Z") })},
		{name: "changed signature is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, func(s *signed) {
				auth := s.r.Header.Get("Authorization")
				last := auth[len(auth)-1]
				swap := map[bool]byte{true: '1', false: '0'}[last == '0']
				s.r.Header.Set("Authorization", auth[:len(auth)-1]+string(swap))
			})},
		{name: "signature from another secret is refused", code: CodeSignatureDoesNotMatch,
			lookup: func(k key) Lookup {
				return func(string) (Secret, *Error) { return Secret{SecretAccessKey: exampleSecret}, nil }
			}, build: iamSigned},
		{name: "X-Amz-Content-Sha256 that is not the body's hash is refused", code: CodeSignatureDoesNotMatch, message: "X-Amz-Content-Sha256",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("X-Amz-Content-Sha256", hashHex([]byte("other"))) })},
		{name: "UNSIGNED-PAYLOAD is refused: IAM and STS sign the body", code: CodeSignatureDoesNotMatch, message: "UNSIGNED-PAYLOAD",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD") })},
		{name: "presigned URL with a changed parameter is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(stsPresigned(time.Hour), func(s *signed) {
				setQuery(s, strings.Replace(s.r.URL.RawQuery, "GetCallerIdentity", "GetSessionToken", 1))
			})},
		{name: "presigned URL with an added parameter is refused", code: CodeSignatureDoesNotMatch,
			build: spoil(stsPresigned(time.Hour), func(s *signed) { setQuery(s, s.r.URL.RawQuery+"&DurationSeconds=129600") })},
	}
}

func TestVerifyRefusesChangedRequests(t *testing.T) {
	for _, sc := range tamperScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func keyScenarios() []scenario {
	return []scenario{
		{name: "unknown access key is refused as InvalidClientTokenId", code: CodeInvalidClientTokenID, build: iamSigned,
			lookup: func(key) Lookup { return lookupOf(newKey()) }},
		{name: "expired temporary credentials are refused as ExpiredToken", code: CodeExpiredToken,
			key: newTemporaryKey(), build: stsSigned,
			lookup: func(key) Lookup { return func(string) (Secret, *Error) { return Secret{}, ExpiredCredentials() } }},
		{name: "a key store error is returned as it is", code: "InternalFailure", build: iamSigned,
			lookup: func(key) Lookup {
				return func(string) (Secret, *Error) {
					return Secret{}, &Error{Status: http.StatusInternalServerError, Code: "InternalFailure", Message: "store down"}
				}
			}},
		{name: "a key with no secret is refused as unknown", code: CodeInvalidClientTokenID, build: iamSigned,
			lookup: func(key) Lookup { return func(string) (Secret, *Error) { return Secret{}, nil } }},
	}
}

func TestVerifyLooksUpTheKey(t *testing.T) {
	for _, sc := range keyScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func clockScenarios() []scenario {
	return []scenario{
		{name: "a request 14 minutes old is accepted", build: iamSigned, now: signTime.Add(14 * time.Minute)},
		{name: "a request 14 minutes ahead is accepted", build: iamSigned, now: signTime.Add(-14 * time.Minute)},
		{name: "a request exactly 15 minutes old is accepted", build: iamSigned, now: signTime.Add(15 * time.Minute)},
		{name: "a request exactly 15 minutes ahead is accepted", build: iamSigned, now: signTime.Add(-15 * time.Minute)},
		{name: "a request 16 minutes old is refused as AWS words it", build: iamSigned, now: signTime.Add(16 * time.Minute),
			code:    CodeSignatureDoesNotMatch,
			message: "Signature expired: 20260101T120000Z is now earlier than 20260101T120100Z (20260101T121600Z - 15 min.)"},
		{name: "a request 16 minutes ahead is refused as AWS words it", build: iamSigned, now: signTime.Add(-16 * time.Minute),
			code:    CodeSignatureDoesNotMatch,
			message: "Signature not yet current: 20260101T120000Z is still later than 20260101T115900Z (20260101T114400Z + 15 min.)"},
		{name: "a request signed with a Date header is held to the same clock", now: signTime.Add(16 * time.Minute),
			code: CodeSignatureDoesNotMatch, message: "Signature expired", build: dateHeaderSigned,
			key: key{id: vectorKeyID, secret: Secret{SecretAccessKey: vectorSecret}}},
	}
}

func TestVerifyHoldsRequestsToTheClock(t *testing.T) {
	for _, sc := range clockScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func scopeScenarios() []scenario {
	return []scenario{
		{name: "a credential scope dated another day than X-Amz-Date is refused", code: CodeSignatureDoesNotMatch,
			message: "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '20251231' != '20260101'",
			build:   spoil(iamSigned, setAuthorization("/20260101/", "/20251231/"))},
		{name: "a credential scope not ending in aws4_request is refused", code: CodeSignatureDoesNotMatch, message: "aws4_request",
			build: spoil(iamSigned, setAuthorization("/aws4_request", "/aws5_request"))},
		{name: "a credential of four elements is refused", code: CodeIncompleteSignature, message: "exactly 5 slash-delimited elements",
			build: spoil(iamSigned, setAuthorization("/us-east-1/iam/", "/us-east-1/"))},
		{name: "a credential with an empty Region is refused", code: CodeIncompleteSignature, message: "empty element",
			build: spoil(iamSigned, setAuthorization("/us-east-1/", "//"))},
		{name: "a credential dated in another form than YYYYMMDD is refused", code: CodeIncompleteSignature, message: "YYYYMMDD",
			build: spoil(iamSigned, setAuthorization("/20260101/", "/2026-01-01/"))},
		{name: "a scope for another Region is a signature for another request", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, setAuthorization("/us-east-1/", "/eu-west-1/"))},
		{name: "a scope for another service is a signature for another request", code: CodeSignatureDoesNotMatch,
			build: spoil(iamSigned, setAuthorization("/iam/", "/sts/"))},
	}
}

func TestVerifyChecksTheCredentialScope(t *testing.T) {
	for _, sc := range scopeScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func presignScenarios() []scenario {
	return []scenario{
		{name: "a presigned URL in its last second is accepted", build: stsPresigned(15 * time.Minute), now: signTime.Add(15 * time.Minute)},
		{name: "a presigned URL past X-Amz-Expires is refused as RequestExpired", code: CodeRequestExpired,
			message: "Request has expired", build: stsPresigned(15 * time.Minute), now: signTime.Add(15*time.Minute + time.Second)},
		{name: "a presigned URL may live seven days", build: stsPresigned(7 * 24 * time.Hour), now: signTime.Add(7 * 24 * time.Hour)},
		{name: "X-Amz-Expires over seven days is refused", code: CodeIncompleteSignature, message: "604800",
			build: stsPresigned(7*24*time.Hour + time.Second)},
		{name: "X-Amz-Expires that is not a number is refused", code: CodeIncompleteSignature, message: "X-Amz-Expires",
			build: spoil(stsPresigned(time.Hour), func(s *signed) {
				setQuery(s, strings.Replace(s.r.URL.RawQuery, "X-Amz-Expires=3600", "X-Amz-Expires=%2B3600", 1))
			})},
		{name: "a presigned URL without X-Amz-Expires is refused after 15 minutes", code: CodeSignatureDoesNotMatch,
			message: "Signature expired", build: stsPresigned(0), now: signTime.Add(16 * time.Minute)},
		{name: "a presigned URL dated 16 minutes ahead is refused", code: CodeSignatureDoesNotMatch,
			message: "Signature not yet current", build: stsPresigned(time.Hour), now: signTime.Add(-16 * time.Minute)},
		{name: "a presigned URL without X-Amz-Signature is refused, naming it", code: CodeIncompleteSignature,
			message: "'X-Amz-Signature'", build: spoil(stsPresigned(time.Hour), dropQuery("X-Amz-Signature"))},
		{name: "a presigned URL without X-Amz-Date is refused, naming it", code: CodeIncompleteSignature,
			message: "'X-Amz-Date'", build: spoil(stsPresigned(time.Hour), dropQuery("X-Amz-Date"))},
		{name: "a presigned URL giving X-Amz-Signature twice is refused", code: CodeIncompleteSignature, message: "more than once",
			build: spoil(stsPresigned(time.Hour), func(s *signed) {
				setQuery(s, s.r.URL.RawQuery+"&X-Amz-Signature="+strings.Repeat("0", 64))
			})},
		{name: "a presigned URL with another algorithm is refused", code: CodeIncompleteSignature, message: "Unsupported AWS 'algorithm'",
			build: spoil(stsPresigned(time.Hour), func(s *signed) {
				setQuery(s, strings.Replace(s.r.URL.RawQuery, "AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256", 1))
			})},
		{name: "a presigned URL that also has an Authorization header is refused", code: CodeIncompleteSignature, message: "both",
			build: func(t testing.TB, k key) signed {
				s := stsPresigned(time.Hour)(t, k)
				other := iamSigned(t, k)
				s.r.Header.Set("Authorization", other.r.Header.Get("Authorization"))
				return s
			}},
		{name: "a presigned URL whose session token was removed is refused", code: CodeInvalidClientTokenID,
			message: "carries no session token", key: newTemporaryKey(),
			build: spoil(stsPresigned(time.Hour), dropQuery("X-Amz-Security-Token"))},
	}
}

func TestVerifyPresignedURLs(t *testing.T) {
	for _, sc := range presignScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

// dropQuery removes a parameter from the raw query, leaving the rest as sent.
func dropQuery(name string) func(s *signed) {
	return func(s *signed) {
		var kept []string
		for _, pair := range strings.Split(s.r.URL.RawQuery, "&") {
			if !strings.HasPrefix(pair, name+"=") {
				kept = append(kept, pair)
			}
		}
		setQuery(s, strings.Join(kept, "&"))
	}
}

func tokenScenarios() []scenario {
	temporary := newTemporaryKey()
	otherToken := func(k key) Lookup {
		return lookupOf(key{id: k.id, secret: Secret{SecretAccessKey: k.secret.SecretAccessKey, SessionToken: k.secret.SessionToken + "x"}})
	}
	longTerm := func(k key) Lookup {
		return lookupOf(key{id: k.id, secret: Secret{SecretAccessKey: k.secret.SecretAccessKey}})
	}
	return []scenario{
		{name: "temporary credentials without their session token are refused", code: CodeInvalidClientTokenID,
			message: "carries no session token", key: temporary,
			build: spoil(stsSigned, func(s *signed) { s.r.Header.Del("X-Amz-Security-Token") })},
		{name: "temporary credentials with another session's token are refused", code: CodeInvalidClientTokenID,
			message: "not the one issued", key: temporary, build: stsSigned, lookup: otherToken},
		{name: "a long-term key with a session token is refused", code: CodeInvalidClientTokenID,
			message: "long-term key", key: temporary, build: stsSigned, lookup: longTerm},
		{name: "a presigned URL with another session's token is refused", code: CodeInvalidClientTokenID,
			key: temporary, build: stsPresigned(time.Hour), lookup: otherToken},
		{name: "a session token in the header and another in the query are refused", code: CodeIncompleteSignature,
			message: "one session token", key: temporary,
			build: spoil(stsSigned, func(s *signed) { setQuery(s, "X-Amz-Security-Token=other") })},
		{name: "two X-Amz-Security-Token headers are refused", code: CodeIncompleteSignature, key: temporary,
			build: spoil(stsSigned, func(s *signed) { s.r.Header.Add("X-Amz-Security-Token", "other") })},
	}
}

func TestVerifyMatchesSessionTokens(t *testing.T) {
	for _, sc := range tokenScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func malformedScenarios() []scenario {
	unsigned := func(t testing.TB, k key) signed {
		return overTheWire(t, formPost(t, "iam.amazonaws.com", iamBody), []byte(iamBody))
	}
	return []scenario{
		{name: "a request without a signature is refused as MissingAuthenticationToken",
			code: CodeMissingAuthenticationToken, build: unsigned},
		{name: "a Signature Version 2 Authorization header is refused", code: CodeIncompleteSignature, message: "'AWS'",
			build: spoil(unsigned, func(s *signed) {
				s.r.Header.Set("Authorization", "AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=")
			})},
		{name: "an unsupported algorithm is refused, naming it", code: CodeIncompleteSignature, message: "'AWS4-HMAC-SHA1'",
			build: spoil(iamSigned, setAuthorization("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1"))},
		{name: "an Authorization header without Signature names the missing part", code: CodeIncompleteSignature,
			message: "requires 'Signature' parameter", build: spoil(iamSigned, func(s *signed) {
				auth, _, _ := strings.Cut(s.r.Header.Get("Authorization"), ", Signature=")
				s.r.Header.Set("Authorization", auth)
			})},
		{name: "an Authorization header without Credential names the missing part", code: CodeIncompleteSignature,
			message: "requires 'Credential' parameter", build: spoil(iamSigned, func(s *signed) {
				auth := s.r.Header.Get("Authorization")
				start := strings.Index(auth, "Credential=")
				end := strings.Index(auth, "SignedHeaders=")
				s.r.Header.Set("Authorization", auth[:start]+auth[end:])
			})},
		{name: "an Authorization header without SignedHeaders names the missing part", code: CodeIncompleteSignature,
			message: "requires 'SignedHeaders' parameter", build: spoil(iamSigned, func(s *signed) {
				auth := s.r.Header.Get("Authorization")
				start := strings.Index(auth, ", SignedHeaders=")
				end := strings.Index(auth, ", Signature=")
				s.r.Header.Set("Authorization", auth[:start]+auth[end:])
			})},
		{name: "a request without X-Amz-Date or Date names the missing date", code: CodeIncompleteSignature,
			message: "'X-Amz-Date' or a 'Date' header", build: spoil(iamSigned, func(s *signed) { s.r.Header.Del("X-Amz-Date") })},
		{name: "X-Amz-Date in extended ISO 8601 is refused", code: CodeIncompleteSignature, message: "YYYYMMDD'T'HHMMSS'Z'",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("X-Amz-Date", "2026-01-01T12:00:00Z") })},
		{name: "X-Amz-Date on February 30th is refused", code: CodeIncompleteSignature, message: "YYYYMMDD'T'HHMMSS'Z'",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("X-Amz-Date", "20260230T120000Z") })},
		{name: "a Date header that is not an HTTP date is refused", code: CodeIncompleteSignature, message: "Date header",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Del("X-Amz-Date"); s.r.Header.Set("Date", "yesterday") })},
		{name: "SignedHeaders without host is refused", code: CodeIncompleteSignature, message: "must include 'host'",
			build: spoil(iamSigned, setAuthorization(";host;", ";"))},
		{name: "SignedHeaders in upper case is refused", code: CodeIncompleteSignature, message: "lower case",
			build: spoil(iamSigned, setAuthorization(";host;", ";Host;"))},
		{name: "SignedHeaders out of order is refused", code: CodeIncompleteSignature, message: "not sorted",
			build: spoil(iamSigned, setAuthorization(";host;x-amz-date", ";x-amz-date;host"))},
		{name: "SignedHeaders naming a header twice is refused", code: CodeIncompleteSignature, message: "twice",
			build: spoil(iamSigned, setAuthorization(";host;", ";host;host;"))},
		{name: "a signature that is not 64 lower-case hex digits is refused", code: CodeIncompleteSignature, message: "64 lower-case",
			build: spoil(iamSigned, func(s *signed) {
				auth, sig, _ := strings.Cut(s.r.Header.Get("Authorization"), "Signature=")
				s.r.Header.Set("Authorization", auth+"Signature="+strings.ToUpper(sig))
			})},
		{name: "two Authorization headers are refused", code: CodeIncompleteSignature, message: "more than one Authorization",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Add("Authorization", s.r.Header.Get("Authorization")) })},
		{name: "an unknown part of the Authorization header is refused", code: CodeIncompleteSignature, message: "'Expires'",
			build: spoil(iamSigned, func(s *signed) { s.r.Header.Set("Authorization", s.r.Header.Get("Authorization")+", Expires=60") })},
		{name: "a part given twice is refused", code: CodeIncompleteSignature, message: "twice",
			build: spoil(iamSigned, func(s *signed) {
				auth := s.r.Header.Get("Authorization")
				_, sig, _ := strings.Cut(auth, ", Signature=")
				s.r.Header.Set("Authorization", auth+", Signature="+sig)
			})},
		{name: "a malformed percent-encoding in the query is refused", code: CodeIncompleteSignature, message: "percent-encoding",
			build: spoil(iamSigned, func(s *signed) { setQuery(s, "a=%zz") })},
	}
}

func TestVerifyRefusesMalformedSignatures(t *testing.T) {
	for _, sc := range malformedScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func allScenarios() [][]scenario {
	return [][]scenario{acceptScenarios(), tamperScenarios(), keyScenarios(), clockScenarios(),
		scopeScenarios(), presignScenarios(), tokenScenarios(), malformedScenarios(), pathScenarios()}
}

// TestErrorsNeverRevealSecrets runs every scenario with temporary
// credentials, so that a token is there to leak, and checks every refusal.
// check already does the same for each scenario's own key.
func TestErrorsNeverRevealSecrets(t *testing.T) {
	refusals := 0
	for _, table := range allScenarios() {
		for _, sc := range table {
			if sc.key.id == "" {
				sc.key = newTemporaryKey()
			}
			if sc.code == "" {
				continue // a success has no message to leak through
			}
			t.Run(sc.name, func(t *testing.T) {
				s := sc.build(t, sc.key)
				lookup := lookupOf(sc.key)
				if sc.lookup != nil {
					lookup = sc.lookup(sc.key)
				}
				now := sc.now
				if now.IsZero() {
					now = signTime
				}
				if _, err := Verify(s.r, s.body, now, lookup); err != nil {
					refusals++
					wantNoSecrets(t, err, sc.key, s)
				}
			})
		}
	}
	if refusals < 40 {
		t.Errorf("only %d refusals were checked; the scenario tables lost cases", refusals)
	}
}

func TestSecretsDoNotPrint(t *testing.T) {
	k := newTemporaryKey()
	s := stsSigned(t, k)
	got, err := Verify(s.r, s.body, signTime, lookupOf(k))
	wantCode(t, err, "")
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		for _, value := range []any{k.secret, *got, got} {
			printed := fmt.Sprintf(format, value)
			if strings.Contains(printed, k.secret.SecretAccessKey) || strings.Contains(printed, k.secret.SessionToken) {
				t.Errorf("fmt %s of a %T prints a secret: %s", format, value, printed)
			}
		}
	}
}

func TestVerifyDoesNotChangeTheRequest(t *testing.T) {
	k := newTemporaryKey()
	s := stsPresigned(time.Hour)(t, k)
	before := fmt.Sprint(s.r.Method, s.r.URL.String(), s.r.RequestURI, s.r.Header, s.r.Host)
	_, err := Verify(s.r, s.body, signTime, lookupOf(k))
	wantCode(t, err, "")
	if after := fmt.Sprint(s.r.Method, s.r.URL.String(), s.r.RequestURI, s.r.Header, s.r.Host); after != before {
		t.Errorf("Verify changed the request:\nbefore %s\nafter  %s", before, after)
	}
}
