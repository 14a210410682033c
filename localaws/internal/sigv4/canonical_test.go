package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
)

func pathScenarios() []scenario {
	sdkSignedPath := func(path string) func(testing.TB, key) signed {
		return func(t testing.TB, k key) signed {
			r := formPost(t, "iam.amazonaws.com", iamBody)
			r.URL.Path = path
			return signHeader(t, r, k, "iam", "us-east-1", signTime)
		}
	}
	return []scenario{
		{name: "the Go SDK's signature over a path it did not normalize is accepted",
			build: sdkSignedPath("/a//b/../c/"), want: wantSigned("iam", "us-east-1", false)},
		{name: "a path with an escaped space signed by the Go SDK is accepted",
			build: sdkSignedPath("/a b/"), want: wantSigned("iam", "us-east-1", false)},
		{name: "a router that strips a path prefix does not break the signature",
			build: spoil(sdkSignedPath("/local/iam/"), func(s *signed) {
				http.StripPrefix("/local", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { s.r = r })).
					ServeHTTP(nil, s.r)
			})},
		{name: "a path that differs only after normalization is still a different request", code: CodeSignatureDoesNotMatch,
			build: spoil(sdkSignedPath("/a//b/"), func(s *signed) { s.r.RequestURI, s.r.URL.Path = "/a//c/", "/a//c/" })},
	}
}

func TestVerifyCanonicalPaths(t *testing.T) {
	for _, sc := range pathScenarios() {
		t.Run(sc.name, func(t *testing.T) { _, _ = check(t, sc) }) // check asserts
	}
}

func TestNormalizePath(t *testing.T) {
	for _, tc := range []struct{ name, path, want string }{
		{"the root stays", "/", "/"},
		{"a normal path stays", "/a/b/", "/a/b/"},
		{"a path without a trailing slash stays", "/a/b", "/a/b"},
		{"an escaped slash is part of its segment", "/a%2F../b", "/a%2F../b"},
		{"a double slash is the root", "//", "/"},
		{"repeated slashes collapse", "//a///b//", "/a/b/"},
		{"a dot segment goes", "/./a", "/a"},
		{"a dot-dot segment takes the one before", "/a/b/../c", "/a/c"},
		{"dot-dot at the root stays at the root", "/../..", "/"},
		{"a trailing dot leaves no trailing slash, as botocore does", "/a/.", "/a"},
		{"three dots are a name", "/.../a", "/.../a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := normalizePath(tc.path); got != tc.want {
				t.Errorf("normalizePath(%q) = %q; want %q", tc.path, got, tc.want)
			}
		})
	}
}

func TestCanonicalQuery(t *testing.T) {
	for _, tc := range []struct{ name, raw, want string }{
		{"no query is empty", "", ""},
		{"parameters sort by name", "b=2&a=1", "a=1&b=2"},
		{"upper case sorts before lower case", "a=1&B=2", "B=2&a=1"},
		{"values of one name sort after encoding", "k=a-b&k=a%2Fb", "k=a%2Fb&k=a-b"},
		{"a name without a value gets =", "flag&a=1", "a=1&flag="},
		{"an empty value keeps its =", "a=", "a="},
		{"empty pairs are skipped", "&&a=1&", "a=1"},
		{"plus is a space", "a=x+y", "a=x%20y"},
		{"an escaped plus stays a plus", "a=x%2By", "a=x%2By"},
		{"an escaped unreserved character is decoded", "a=%7E%41", "a=~A"},
		{"lower-case hex is upper-cased", "a=%2f", "a=%2F"},
		{"reserved characters are encoded", "a=b:c/d?e", "a=b%3Ac%2Fd%3Fe"},
		{"a semicolon is data, not a separator", "a=1;b=2", "a=1%3Bb%3D2"},
		{"raw UTF-8 is encoded", "\u00e9=\u00e9", "%C3%A9=%C3%A9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params, err := parseQuery(tc.raw, nil)
			wantCode(t, err, "")
			if got := string(appendCanonicalQuery(nil, params, false)); got != tc.want {
				t.Errorf("canonical query of %q = %q; want %q", tc.raw, got, tc.want)
			}
		})
	}
	for _, raw := range []string{"a=%", "a=%4", "a=%zz", "%g0=1"} {
		t.Run("malformed escape "+raw+" is refused", func(t *testing.T) {
			_, err := parseQuery(raw, nil)
			wantCode(t, err, CodeIncompleteSignature)
		})
	}
}

func TestHMACMatchesCryptoHMAC(t *testing.T) {
	for _, keyLen := range []int{0, 1, 32, 44, 63, 64, 65, 200} {
		for _, msgLen := range []int{0, 1, 12, 191, 192, 193, 1000} {
			key := []byte(strings.Repeat("k", keyLen))
			msg := []byte(strings.Repeat("m", msgLen))
			for i := range key {
				key[i] += byte(i)
			}
			want := hmac.New(sha256.New, key)
			want.Write(msg)
			got := hmacSHA256(key, msg)
			if !hmac.Equal(got[:], want.Sum(nil)) {
				t.Errorf("key of %d bytes, message of %d: hmacSHA256 differs from crypto/hmac", keyLen, msgLen)
			}
			if gotString := hmacSHA256(key, string(msg)); gotString != got {
				t.Errorf("key of %d bytes, message of %d: string and []byte messages differ", keyLen, msgLen)
			}
		}
	}
}

// TestSigningKeyDocumentedExample derives the signing key of the example in
// AWS's General Reference ("Examples of how to derive a signing key for
// Signature Version 4").
func TestSigningKeyDocumentedExample(t *testing.T) {
	got := signingKey("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "20120215", "us-east-1", "iam")
	const want = "f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d"
	if hex.EncodeToString(got[:]) != want {
		t.Errorf("signing key = %x; want %s", got, want)
	}
}

func TestEqualConstantTime(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"", "", true}, {"abc", "abc", true}, {"abc", "abd", false}, {"abc", "ab", false}, {"xbc", "abc", false},
	} {
		if got := equalConstantTime(tc.a, tc.b); got != tc.want {
			t.Errorf("equalConstantTime(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestHeaderValuesFindsEverySpelling(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header http.Header
		lookup string
		want   string
		code   string
	}{
		{name: "a canonical key is found", header: http.Header{"X-Amz-Date": {"1"}}, lookup: "x-amz-date", want: "1"},
		{name: "an underscore does not start a word", header: http.Header{"X_amz_date": {"1"}}, lookup: "x_amz_date", want: "1"},
		{name: "a lower-case key set in process is found", header: http.Header{"x-amz-date": {"1"}}, lookup: "x-amz-date", want: "1"},
		{name: "two spellings set in process are refused", header: http.Header{"x-amz-date": {"1"}, "X-AMZ-DATE": {"2"}},
			lookup: "x-amz-date", code: CodeIncompleteSignature},
		{name: "a missing header has no values", header: http.Header{"X-Other": {"1"}}, lookup: "x-amz-date"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values, err := headerValues(&http.Request{Header: tc.header}, tc.lookup)
			wantCode(t, err, tc.code)
			if got := strings.Join(values, ","); got != tc.want {
				t.Errorf("headerValues(%q) = %q; want %q", tc.lookup, got, tc.want)
			}
		})
	}
}
