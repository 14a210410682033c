package sigv4

import (
	"net/url"
	"strings"
	"testing"
)

// vector is a request with the canonical request AWS's rules give for it,
// written out by hand. The cases follow the groups of AWS's Signature
// Version 4 test suite (vanilla requests, header ordering and trimming, path
// normalization, query ordering and encoding, form bodies, session tokens),
// but the requests and expectations are this package's own. The signature
// comes from referenceSignature, which shares no code with the package.
type vector struct {
	name string
	// wire is the request as sent, without its signature; "\n" stands
	// for CRLF.
	wire string
	// signedHeaders is the SignedHeaders list; "" for a presigned request,
	// whose X-Amz-SignedHeaders is in wire.
	signedHeaders string
	// canonical is the canonical request AWS's rules give.
	canonical string
	// asSent marks a canonical request over the path as sent, not
	// normalized, as the Go SDK signs it.
	asSent bool
	// token is the session token of the signing key, if any.
	token string
}

const (
	vectorKeyID  = "AKIDEXAMPLE"
	vectorSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	vectorDate   = "20260101T120000Z"
	vectorScope  = "20260101/us-east-1/iam/aws4_request"
	emptyHash    = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	vectorToken  = "IQoJb3JpZ2luX2VjEXAMPLE//////////wEaCXVzLWVhc3QtMSJHMEUCIQ+test/token=="
)

func vectors() []vector {
	return []vector{
		{name: "vanilla GET signs method, path, host and date",
			wire:          "GET / HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a header sent three times joins its values with commas in the order sent",
			wire:          "GET / HTTP/1.1\nHost: example.amazonaws.com\nMy-Header1: value2\nMy-Header1: value2\nMy-Header1: value1\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;my-header1;x-amz-date",
			canonical:     "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value2,value2,value1\nx-amz-date:" + vectorDate + "\n\nhost;my-header1;x-amz-date\n" + emptyHash},
		{name: "header values are trimmed and runs of spaces collapse, even inside quotes",
			wire:          "GET / HTTP/1.1\nHost: example.amazonaws.com\nMy-Header1:    value1\nMy-Header2: \"a   b   c\"\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;my-header1;my-header2;x-amz-date",
			canonical:     "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:" + vectorDate + "\n\nhost;my-header1;my-header2;x-amz-date\n" + emptyHash},
		{name: "a folded header value joins its lines with one space",
			wire:          "GET / HTTP/1.1\nHost: example.amazonaws.com\nMy-Header1: value1\n  value2\n     value3\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;my-header1;x-amz-date",
			canonical:     "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1 value2 value3\nx-amz-date:" + vectorDate + "\n\nhost;my-header1;x-amz-date\n" + emptyHash},
		{name: "header names are lower-cased and values keep their case",
			wire:          "POST / HTTP/1.1\nHost: example.amazonaws.com\nMY-HEADER1: VALUE1\nX-AMZ-DATE: " + vectorDate + "\n",
			signedHeaders: "host;my-header1;x-amz-date",
			canonical:     "POST\n/\n\nhost:example.amazonaws.com\nmy-header1:VALUE1\nx-amz-date:" + vectorDate + "\n\nhost;my-header1;x-amz-date\n" + emptyHash},
		{name: "unreserved characters in the path are not encoded",
			wire:          "GET /-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "UTF-8 sent raw in the path is encoded once",
			wire:          "GET /\u1234 HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a percent-escape in the path is encoded again, as every service but S3 does",
			wire:          "GET /example%20space/ HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/example%2520space/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a dot-dot segment removes the one before it",
			wire:          "GET /example/.. HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "two dot-dot segments remove two",
			wire:          "GET /example1/example2/../.. HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a dot segment is dropped",
			wire:          "GET /./example HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/example\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "repeated slashes collapse and a trailing slash stays",
			wire:          "GET //example// HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/example/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a path signed as sent, not normalized, is accepted too",
			wire:          "GET //example/./a/.. HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date", asSent: true,
			canonical: "GET\n//example/./a/..\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "query parameters sort by name, upper case before lower",
			wire:          "GET /?Param2=value2&Param1=value1&param0=value0 HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\nParam1=value1&Param2=value2&param0=value0\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "query parameters sort after encoding",
			wire:          "GET /?Param-3=Value3&Param=Value2&%E1%88%B4=Value1 HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\n%E1%88%B4=Value1&Param=Value2&Param-3=Value3\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a repeated query parameter sorts by value",
			wire:          "GET /?Param1=value2&Param1=Value1 HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\nParam1=Value1&Param1=value2\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "UTF-8 sent raw in the query is encoded",
			wire:          "GET /?\u1234=bar HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "unreserved characters in the query are not encoded, and %7E is ~",
			wire:          "GET /?-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._%7E09AZaz HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~09AZaz\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a query parameter without = has an empty value",
			wire:          "GET /?Param1 HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\nParam1=\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a plus in the query is a space, encoded %20",
			wire:          "GET /?Param1=a+b%2Bc HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\n",
			signedHeaders: "host;x-amz-date",
			canonical:     "GET\n/\nParam1=a%20b%2Bc\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a form body is hashed into the canonical request",
			wire:          "POST / HTTP/1.1\nHost: example.amazonaws.com\nContent-Type: application/x-www-form-urlencoded\nContent-Length: 13\nX-Amz-Date: " + vectorDate + "\n\nParam1=value1",
			signedHeaders: "content-length;content-type;host;x-amz-date",
			canonical: "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate +
				"\n\ncontent-length;content-type;host;x-amz-date\n" + hashHex([]byte("Param1=value1"))},
		{name: "a session token may be signed as a header",
			wire:          "POST / HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\nX-Amz-Security-Token: " + vectorToken + "\n",
			signedHeaders: "host;x-amz-date;x-amz-security-token", token: vectorToken,
			canonical: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\nx-amz-security-token:" + vectorToken + "\n\nhost;x-amz-date;x-amz-security-token\n" + emptyHash},
		{name: "a session token may be added as a header after signing",
			wire:          "POST / HTTP/1.1\nHost: example.amazonaws.com\nX-Amz-Date: " + vectorDate + "\nX-Amz-Security-Token: " + vectorToken + "\n",
			signedHeaders: "host;x-amz-date", token: vectorToken,
			canonical: "POST\n/\n\nhost:example.amazonaws.com\nx-amz-date:" + vectorDate + "\n\nhost;x-amz-date\n" + emptyHash},
		{name: "a Date header stands in for X-Amz-Date",
			wire:          "GET / HTTP/1.1\nHost: example.amazonaws.com\nDate: Thu, 01 Jan 2026 12:00:00 GMT\n",
			signedHeaders: "date;host",
			canonical:     "GET\n/\n\ndate:Thu, 01 Jan 2026 12:00:00 GMT\nhost:example.amazonaws.com\n\ndate;host\n" + emptyHash},
		{name: "a presigned URL signs its X-Amz parameters but not X-Amz-Signature",
			wire: "GET /?Action=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" +
				url.QueryEscape(vectorKeyID+"/"+vectorScope) + "&X-Amz-Date=" + vectorDate + "&X-Amz-Expires=60&X-Amz-SignedHeaders=host HTTP/1.1\nHost: example.amazonaws.com\n",
			canonical: "GET\n/\nAction=GetCallerIdentity&Version=2011-06-15&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Fus-east-1%2Fiam%2Faws4_request" +
				"&X-Amz-Date=" + vectorDate + "&X-Amz-Expires=60&X-Amz-SignedHeaders=host\nhost:example.amazonaws.com\n\nhost\n" + emptyHash},
		{name: "a presigned URL signs its session token in the query",
			wire: "GET /?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + url.QueryEscape(vectorKeyID+"/"+vectorScope) + "&X-Amz-Date=" + vectorDate +
				"&X-Amz-Security-Token=" + url.QueryEscape(vectorToken) + "&X-Amz-SignedHeaders=host%3Bmy-header1 HTTP/1.1\nHost: example.amazonaws.com\nMy-Header1: value1\n",
			token: vectorToken,
			canonical: "GET\n/\nX-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20260101%2Fus-east-1%2Fiam%2Faws4_request&X-Amz-Date=" + vectorDate +
				"&X-Amz-Security-Token=" + strings.NewReplacer("/", "%2F", "+", "%2B", "=", "%3D").Replace(vectorToken) +
				"&X-Amz-SignedHeaders=host%3Bmy-header1\nhost:example.amazonaws.com\nmy-header1:value1\n\nhost;my-header1\n" + emptyHash},
	}
}

// signVector adds the signature to the vector's request, computed by the
// reference signer over the vector's canonical request.
func signVector(t testing.TB, v vector) signed {
	t.Helper()
	signature := referenceSignature(vectorSecret, vectorDate, "us-east-1", "iam", v.canonical)
	head, body, hasBody := strings.Cut(v.wire, "\n\n")
	if hasBody {
		head += "\n"
	}
	if v.signedHeaders == "" { // presigned: the signature goes at the end of the query
		requestLine, rest, _ := strings.Cut(head, "\n")
		requestLine = strings.Replace(requestLine, " HTTP/1.1", "&X-Amz-Signature="+signature+" HTTP/1.1", 1)
		head = requestLine + "\n" + rest
	} else {
		head += "Authorization: AWS4-HMAC-SHA256 Credential=" + vectorKeyID + "/" + vectorScope +
			", SignedHeaders=" + v.signedHeaders + ", Signature=" + signature + "\n"
	}
	return readWire(t, strings.ReplaceAll(head, "\n", "\r\n")+"\r\n"+body)
}

func TestVerifyAcceptsVectors(t *testing.T) {
	for _, v := range vectors() {
		t.Run(v.name, func(t *testing.T) {
			s := signVector(t, v)
			k := key{id: vectorKeyID, secret: Secret{SecretAccessKey: vectorSecret, SessionToken: v.token}}
			_, err := Verify(s.r, s.body, signTime, lookupOf(k))
			wantCode(t, err, "")
		})
	}
}

// TestCanonicalRequestMatchesVectors pins the canonical request itself, so
// that a failure in TestVerifyAcceptsVectors shows the line that differs.
func TestCanonicalRequestMatchesVectors(t *testing.T) {
	for _, v := range vectors() {
		t.Run(v.name, func(t *testing.T) {
			s := signVector(t, v)
			params, err := parseQuery(s.r.URL.RawQuery, nil)
			wantCode(t, err, "")
			a, err := readAuthorization(s.r, params)
			wantCode(t, err, "")
			payload, err := payloadHash(s.r, s.body)
			wantCode(t, err, "")
			normalized, asSent := canonicalPaths(wirePath(s.r))
			path := normalized
			if v.asSent {
				path = asSent
			}
			got, err := appendCanonicalRequest(nil, s.r, path, params, &a, &payload)
			wantCode(t, err, "")
			if string(got) != v.canonical {
				t.Errorf("canonical request:\n%s\n\nwant:\n%s", got, v.canonical)
			}
		})
	}
}

// dateHeaderSigned is the Date-header vector, for the clock scenarios.
func dateHeaderSigned(t testing.TB, _ key) signed {
	for _, v := range vectors() {
		if strings.HasPrefix(v.name, "a Date header") {
			return signVector(t, v)
		}
	}
	t.Fatal("no Date header vector")
	return signed{}
}
