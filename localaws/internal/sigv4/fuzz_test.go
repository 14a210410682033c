package sigv4

import (
	"bytes"
	"net/url"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fuzzWires are the valid signed requests FuzzVerify spoils, as wire text, so
// that each run parses a fresh copy: an IAM POST signed in the header by a
// long-term key, the same by temporary credentials, and a presigned STS URL.
func fuzzWires(t testing.TB) ([]string, []key) {
	long := key{id: exampleKeyID, secret: Secret{SecretAccessKey: exampleSecret}}
	temporary := key{id: "ASIAIOSFODNN7EXAMPLE", secret: Secret{SecretAccessKey: exampleSecret, SessionToken: vectorToken}}
	wires := []string{
		iamSigned(t, long).wire,
		iamSigned(t, temporary).wire,
		presign(t, stsGet(t), long, "sts", "us-east-1", signTime, time.Hour).wire,
	}
	return wires, []key{long, temporary, long}
}

// FuzzVerify spoils a valid request (its body, a header, the query string,
// the Host or the path) and checks that Verify never panics and never
// accepts a request whose body, signed headers, query or path mean anything
// other than what was signed.
func FuzzVerify(f *testing.F) {
	wires, keys := fuzzWires(f)
	f.Add(uint8(0), "", "", []byte(iamBody))                                           // the valid request
	f.Add(uint8(3), "", "", []byte("Action=DeleteUser&Version=2010-05-08"))            // another body
	f.Add(uint8(1), "Content-Type", "text/plain", []byte(nil))                         // a signed header
	f.Add(uint8(4), "Content-Type", " application/x-www-form-urlencoded", []byte(nil)) // a second value
	f.Add(uint8(1), "User-Agent", "fuzz", []byte(nil))                                 // an unsigned header
	f.Add(uint8(7), "", "Action=GetCallerIdentity&Version=2011-06-15", []byte(nil))
	f.Add(uint8(10), "", "iam.example.com", []byte(nil))
	f.Add(uint8(13), "", "//./a/..", []byte(nil))
	f.Add(uint8(1), "X-Amz-Security-Token", vectorToken, []byte(nil))
	f.Add(uint8(1), "Authorization", "AWS4-HMAC-SHA256 Credential=a/b/c/d/aws4_request, SignedHeaders=host, Signature=00", []byte(nil))

	f.Fuzz(func(t *testing.T, op uint8, name, value string, body []byte) {
		which := int(op) % len(wires)
		s := readWire(t, wires[which])
		original := readWire(t, wires[which])
		signedNames := signedHeaderNames(original)

		switch (op / 3) % 6 {
		case 0, 1:
			s.body = body
		case 2:
			s.r.Header.Set(name, value)
		case 3:
			s.r.Header.Add(name, value)
		case 4:
			if (op/18)%2 == 0 {
				setQuery(&s, value)
			} else {
				s.r.Host = value
			}
		case 5:
			if strings.HasPrefix(value, "/") {
				s.r.RequestURI = value + "?" + s.r.URL.RawQuery
			}
		}

		got, err := Verify(s.r, s.body, signTime, lookupOf(keys[which]))
		if err != nil {
			if err.Code == "" || err.Status == 0 || err.Message == "" {
				t.Fatalf("an incomplete error: %#v", err)
			}
			wantNoSecrets(t, err, keys[which], s)
			return
		}
		if got == nil {
			t.Fatal("Verify returned neither a result nor an error")
		}
		if !bytes.Equal(s.body, original.body) {
			t.Fatalf("Verify accepted a changed body %q", s.body)
		}
		for _, n := range signedNames {
			if before, after := headerMeaning(original, n), headerMeaning(s, n); before != after {
				t.Fatalf("Verify accepted a changed signed header %s: %q, signed as %q", n, after, before)
			}
		}
		if before, after := queryMeaning(t, original), queryMeaning(t, s); !reflect.DeepEqual(before, after) {
			t.Fatalf("Verify accepted a changed query %v, signed as %v", after, before)
		}
		if p, _, _ := strings.Cut(s.r.RequestURI, "?"); path.Clean(p) != "/" {
			t.Fatalf("Verify accepted the path %q for a request signed for /", p)
		}
	})
}

// signedHeaderNames lists the headers the request signs, from whichever
// place it carries its signature.
func signedHeaderNames(s signed) []string {
	list := s.r.URL.Query().Get("X-Amz-SignedHeaders")
	if list == "" {
		_, rest, _ := strings.Cut(s.r.Header.Get("Authorization"), "SignedHeaders=")
		list, _, _ = strings.Cut(rest, ",")
	}
	return strings.Split(list, ";")
}

// headerMeaning is a header's value as AWS's rules read it, written apart
// from the package: values trimmed, runs of spaces collapsed, joined by ",".
func headerMeaning(s signed, name string) string {
	if name == "host" {
		return collapseSpaces(s.r.Host)
	}
	var values []string
	for key, vs := range s.r.Header {
		if strings.EqualFold(key, name) {
			for _, v := range vs {
				values = append(values, collapseSpaces(v))
			}
		}
	}
	return strings.Join(values, ",")
}

func collapseSpaces(v string) string {
	fields := strings.FieldsFunc(strings.Trim(v, " \t"), func(r rune) bool { return r == ' ' })
	return strings.Join(fields, " ")
}

// queryMeaning is the query string as a server reads it.
func queryMeaning(t *testing.T, s signed) url.Values {
	values, err := url.ParseQuery(s.r.URL.RawQuery)
	if err != nil {
		t.Fatalf("Verify accepted a query string a server cannot parse: %q: %v", s.r.URL.RawQuery, err)
	}
	return values
}

// FuzzCanonicalComponent checks the query decoder against net/url: a
// component fails to parse exactly when url.QueryUnescape fails, decodes to
// what it decodes to, and its canonical form is canonical and stable.
func FuzzCanonicalComponent(f *testing.F) {
	for _, seed := range []string{"", "a", "a+b", "%7E", "%7e", "%2F", "%zz", "%", "\u1234", "-._~", "a%20b%2Bc"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := canonicalComponent(raw)
		want, err := url.QueryUnescape(raw)
		if ok != (err == nil) {
			t.Fatalf("canonicalComponent(%q) ok = %v; url.QueryUnescape says %v", raw, ok, err)
		}
		if !ok {
			return
		}
		if !isCanonical(got) {
			t.Fatalf("canonicalComponent(%q) = %q, which is not canonical", raw, got)
		}
		if decoded := decodeCanonical(got); decoded != want {
			t.Fatalf("canonicalComponent(%q) = %q decodes to %q; url.QueryUnescape gives %q", raw, got, decoded, want)
		}
		if again, _ := canonicalComponent(got); again != got {
			t.Fatalf("canonical form %q is not stable: %q", got, again)
		}
	})
}
