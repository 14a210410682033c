// Package inputerr is the error for input a person must fix: a file, a flag
// or a request field that cannot be used as written. leash's commands exit
// 2 on it and print it without pointing at --help, since its message names
// the fix; the operator reports it on the request and does not retry.
package inputerr

import (
	"strings"

	"leash.dev/leash/internal/termsafe"
)

// Error is input that cannot be used as written.
type Error struct {
	// Source is the file or flag holding the input, such as "policy.json"
	// or "--context"; empty when Field alone says where.
	Source string
	// Field is where within Source: a JSON path (Statement[0].Action), a
	// request field (spec.secretRef), a context key; empty for the whole.
	Field string
	// Msg is what is wrong and how to fix it. Values quoted in it are
	// quoted with %q, which escapes what termsafe escapes.
	Msg string
}

// Error is Source, Field and Msg, the empty ones left out, joined by ": ".
// Source and Field are escaped (termsafe.Escape): they are a file's name
// and a path of the keys written in it, which the input's author chose and
// which must not end the line or hide its rest.
func (e *Error) Error() string {
	var b strings.Builder
	for _, part := range []string{e.Source, e.Field} {
		if part != "" {
			b.WriteString(termsafe.Escape(part))
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Msg)
	return b.String()
}
