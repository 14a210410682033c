package query

import (
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// Request is a parsed Query protocol request: the operation and the API
// version it was written against, with its parameters. It does not change
// after Parse and is safe for concurrent reads.
type Request struct {
	// Action is the operation's name, such as CreateUser.
	Action string
	// Version is the API version, such as 2010-05-08 for IAM or 2011-06-15
	// for STS; the caller picks the service from it.
	Version string
	Params
}

// Parse reads the parameters of r's URL query and of body, the request's
// body, which the caller has already read (SigV4 needs its bytes too) and
// bounded in size. A body must be application/x-www-form-urlencoded, as
// the SDKs and the CLI send it; a GET, such as a presigned
// GetCallerIdentity, has its parameters in the URL alone.
//
// A parameter may appear once, in the URL or in the body: a second value
// would let two readers of one request see different values.
func Parse(r *http.Request, body []byte) (*Request, *Error) {
	values := map[string]string{}
	if err := addForm(values, r.URL.RawQuery, "query string"); err != nil {
		return nil, err
	}
	if len(body) > 0 {
		if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
			return nil, err
		}
		if err := addForm(values, string(body), "body"); err != nil {
			return nil, err
		}
	}
	action, ok := values["Action"]
	if !ok || action == "" {
		return nil, MissingAction()
	}
	version, ok := values["Version"]
	if !ok || version == "" {
		return nil, MissingParameter("Version")
	}
	if !isOperationName(action) {
		return nil, InvalidAction(action, version)
	}
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	return &Request{Action: action, Version: version, Params: Params{values: values, names: names}}, nil
}

// addForm adds the parameters of one form-encoded string, refusing a
// parameter seen before.
func addForm(values map[string]string, form, where string) *Error {
	if form == "" {
		return nil
	}
	parsed, err := url.ParseQuery(form)
	if err != nil {
		return MalformedQueryString("the " + where + " is not valid form encoding (" + err.Error() +
			"): send name=value pairs joined by & with names and values percent-encoded")
	}
	names := make([]string, 0, len(parsed))
	for name := range parsed {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		vs := parsed[name]
		_, seen := values[name]
		if len(vs) > 1 || seen {
			return MalformedInput("parameter " + quote(name) + " is given more than once: send it once")
		}
		if !utf8.ValidString(name) || !utf8.ValidString(vs[0]) {
			return MalformedQueryString("parameter " + quote(name) + " is not UTF-8 once percent-decoded: encode text as UTF-8")
		}
		values[name] = vs[0]
	}
	return nil
}

// checkContentType accepts a form-encoded body, or one with no declared
// type (curl -d and old clients send form encoding without saying so).
func checkContentType(contentType string) *Error {
	if contentType == "" {
		return nil
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err == nil && mediaType == "application/x-www-form-urlencoded" {
		return nil
	}
	return MalformedQueryString("a body of Content-Type " + quote(contentType) +
		" cannot be read: send the parameters as application/x-www-form-urlencoded")
}

// isOperationName reports whether s can be an operation's name: a letter
// and then letters and digits, as every IAM and STS operation is named. The
// name becomes an XML element name in the response, which may not start
// with a digit.
func isOperationName(s string) bool {
	for i, c := range []byte(s) {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// quote returns s in quotes for a message, with control characters and
// invalid UTF-8 made visible.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r < 0x20 || r == 0x7f {
			b.WriteString("\\x")
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('\'')
	return b.String()
}
