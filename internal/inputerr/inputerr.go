// Package inputerr is the error for input a person must fix: a file, a flag
// or a request field that cannot be used as written. leash's commands exit
// 2 on it and print it without pointing at --help, since its message names
// the fix; the operator reports it on the request and does not retry.
package inputerr

import "strings"

// Error is input that cannot be used as written.
type Error struct {
	// Source is the file or flag holding the input, such as "policy.json"
	// or "--context"; empty when Field alone says where.
	Source string
	// Field is where within Source: a JSON path (Statement[0].Action), a
	// request field (spec.secretRef), a context key; empty for the whole.
	Field string
	// Msg is what is wrong and how to fix it.
	Msg string
}

// Error is Source, Field and Msg, the empty ones left out, joined by ": ".
func (e *Error) Error() string {
	var b strings.Builder
	for _, part := range []string{e.Source, e.Field} {
		if part != "" {
			b.WriteString(part)
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Msg)
	return b.String()
}
