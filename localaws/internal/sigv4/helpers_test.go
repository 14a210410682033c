package sigv4

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// AWS's documented example key pair. Tests that need keys nobody has seen
// before generate them with newKey.
const (
	exampleKeyID  = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// signTime is when the tests' requests are signed, unless a test says
// otherwise.
var signTime = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// key is an access key as a test holds it: its ID and what the store knows.
type key struct {
	id     string
	secret Secret
}

func (k key) credentials() aws.Credentials {
	return aws.Credentials{AccessKeyID: k.id, SecretAccessKey: k.secret.SecretAccessKey, SessionToken: k.secret.SessionToken}
}

// newKey returns a long-term key made up at run time.
func newKey() key {
	return key{id: "AKIA" + randomText(16), secret: Secret{SecretAccessKey: randomText(40)}}
}

// newTemporaryKey returns temporary credentials made up at run time.
func newTemporaryKey() key {
	return key{id: "ASIA" + randomText(16), secret: Secret{
		SecretAccessKey: randomText(40),
		SessionToken:    "IQoJb3JpZ2luX2Vj" + randomText(300),
	}}
}

// randomText returns n random characters of base32.
func randomText(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(rand.Text())
	}
	return b.String()[:n]
}

// lookupOf is a key store holding the given keys.
func lookupOf(keys ...key) Lookup {
	return func(id string) (Secret, *Error) {
		for _, k := range keys {
			if k.id == id {
				return k.secret, nil
			}
		}
		return Secret{}, UnknownAccessKey()
	}
}

const (
	iamBody = "Action=ListUsers&Version=2010-05-08"
	stsBody = "Action=GetCallerIdentity&Version=2011-06-15"
)

// formPost is a Query-protocol POST as the SDKs send it to IAM or STS.
func formPost(t testing.TB, host, body string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(http.MethodPost, "https://"+host+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	return r
}

// signed is a request as the server receives it, with its body read.
type signed struct {
	r    *http.Request
	body []byte
	// wire is the request as it was sent, before any test spoiled it.
	wire string
}

// signHeader signs r with the SDK's signer, as the SDK signs an API call,
// and returns it as a server reads it off the wire.
func signHeader(t testing.TB, r *http.Request, k key, service, region string, at time.Time) signed {
	t.Helper()
	body := readBody(t, r)
	// A new Signer each time: the SDK's signer caches derived keys by
	// access key ID, and tests reuse IDs with other secrets.
	err := v4.NewSigner().SignHTTP(context.Background(), k.credentials(), r, hashHex(body), service, region, at)
	if err != nil {
		t.Fatal(err)
	}
	return overTheWire(t, r, body)
}

// presign presigns r with the SDK's signer, with X-Amz-Expires when expires
// is not zero, and returns the request a client makes from the URL.
func presign(t testing.TB, r *http.Request, k key, service, region string, at time.Time, expires time.Duration) signed {
	t.Helper()
	body := readBody(t, r)
	if expires != 0 {
		q := r.URL.Query()
		q.Set("X-Amz-Expires", formatSeconds(expires))
		r.URL.RawQuery = q.Encode()
	}
	url, headers, err := v4.NewSigner().PresignHTTP(context.Background(), k.credentials(), r, hashHex(body), service, region, at)
	if err != nil {
		t.Fatal(err)
	}
	p, err := http.NewRequest(r.Method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range headers {
		if name != "Host" {
			p.Header[name] = values
		}
	}
	return overTheWire(t, p, body)
}

func formatSeconds(d time.Duration) string {
	return strconv.Itoa(int(d / time.Second))
}

// overTheWire writes r as a client sends it and reads it back as Go's server
// does, so that Verify sees what it sees in production: Host in r.Host,
// canonical header keys, RequestURI, Content-Length as a header.
func overTheWire(t testing.TB, r *http.Request, body []byte) signed {
	t.Helper()
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	var wire bytes.Buffer
	if err := r.Write(&wire); err != nil {
		t.Fatal(err)
	}
	return readWire(t, wire.String())
}

// readWire parses an HTTP/1.1 request as Go's server does and reads its body.
func readWire(t testing.TB, wire string) signed {
	t.Helper()
	got, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire)))
	if err != nil {
		t.Fatalf("read request: %v\n%s", err, wire)
	}
	return signed{r: got, body: readBody(t, got), wire: wire}
}

func readBody(t testing.TB, r *http.Request) []byte {
	t.Helper()
	if r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

func hashHex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// referenceSignature signs a canonical request the way AWS's "Create a
// signed AWS API request" describes, with crypto/hmac. It shares no code with
// the package, so tests can check the package against it.
func referenceSignature(secret, amzDate, region, service, canonicalRequest string) string {
	mac := func(key []byte, data string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(data))
		return h.Sum(nil)
	}
	scope := amzDate[:8] + "/" + region + "/" + service + "/aws4_request"
	stringToSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hashHex([]byte(canonicalRequest))
	k := mac([]byte("AWS4"+secret), amzDate[:8])
	k = mac(k, region)
	k = mac(k, service)
	k = mac(k, "aws4_request")
	return hex.EncodeToString(mac(k, stringToSign))
}

// wantCode fails the test unless err has the code ("" means no error).
func wantCode(t testing.TB, err *Error, code string) {
	t.Helper()
	switch {
	case code == "" && err != nil:
		t.Fatalf("Verify refused a valid request: %v", err)
	case code != "" && err == nil:
		t.Fatalf("Verify accepted the request; want %s", code)
	case code != "" && err.Code != code:
		t.Fatalf("Verify: got %v; want code %s", err, code)
	}
}
