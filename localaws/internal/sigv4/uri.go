package sigv4

import (
	"net/http"
	"strings"
)

// wirePath returns the request's path as the client sent it. A server
// request keeps it in RequestURI, untouched by routers such as
// http.StripPrefix that rewrite r.URL; a request built in process has only
// r.URL, whose escaped path is what would be sent.
func wirePath(r *http.Request) string {
	if uri := r.RequestURI; strings.HasPrefix(uri, "/") {
		if i := strings.IndexByte(uri, '?'); i >= 0 {
			uri = uri[:i]
		}
		return uri
	}
	if p := r.URL.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

// canonicalPaths returns the paths whose encoding may be the canonical URI:
// the path with dot segments and repeated slashes removed, as AWS documents
// and as botocore, the JavaScript and the Java SDKs sign it, and, when that
// differs, the path as sent, as the Go SDK signs it. Each is URI-encoded
// once more when appended (appendEncoded), so that "%" in the path as sent
// becomes "%25": for every service but S3, AWS encodes the path twice.
func canonicalPaths(wire string) (normalized, asSent string) {
	normalized = normalizePath(wire)
	if normalized == wire {
		return normalized, ""
	}
	return normalized, wire
}

// normalizePath removes "." and ".." segments and empty segments from p,
// keeping a leading "/" and, when anything is left, a trailing one, as
// botocore's remove_dot_segments does. A path that is already normal is
// returned as it is, without allocating.
func normalizePath(p string) string {
	if !needsNormalizing(p) {
		return p
	}
	var segments []string
	for _, s := range strings.Split(p, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segments) > 0 {
				segments = segments[:len(segments)-1]
			}
		default:
			segments = append(segments, s)
		}
	}
	var b strings.Builder
	if strings.HasPrefix(p, "/") {
		b.WriteByte('/')
	}
	b.WriteString(strings.Join(segments, "/"))
	if strings.HasSuffix(p, "/") && len(segments) > 0 {
		b.WriteByte('/')
	}
	if b.Len() == 0 {
		return "/" // an empty path is canonically "/"
	}
	return b.String()
}

// needsNormalizing reports whether p has a repeated slash or a "." or ".."
// segment.
func needsNormalizing(p string) bool {
	if strings.Contains(p, "//") {
		return true
	}
	for rest := p; rest != ""; {
		var segment string
		segment, rest, _ = strings.Cut(rest, "/")
		if segment == "." || segment == ".." {
			return true
		}
	}
	return false
}
