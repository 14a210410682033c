package audit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// Bounds on what one request can write to the log. A request's values
// (its action, user agent, an error message that echoes its input) come
// from whoever sends it, so without them one unauthenticated request could
// write a line of any size.
const (
	// MaxValue bounds each string value of an event, in bytes as written
	// (JSON-escaped). A longer value is cut at a character boundary and
	// marked with a suffix such as "…[truncated 1048576 bytes]", naming
	// the bytes of the value dropped.
	MaxValue = 16 << 10
	// MaxResources bounds the entries of Event.Resources kept.
	MaxResources = 8
	// MaxLine bounds one line of the log: every string field of an event
	// (29, and 3 for each of MaxResources resources, and the request
	// parameters and response elements: 55) at MaxValue with its mark and
	// quotes, and the field names, times and punctuation, with room to
	// spare.
	MaxLine = 1 << 20
)

// truncatedMark is the suffix of a value cut to MaxValue; its own length
// stays under 40 bytes.
func truncatedMark(dropped int) string { return fmt.Sprintf("…[truncated %d bytes]", dropped) }

// limit caps every string value of e in place (and the request parameters,
// response elements and resources), so that e's line stays within MaxLine.
// It walks the struct, so that a field added later is capped too.
func limit(e *Event) {
	capStrings(reflect.ValueOf(e).Elem())
	if len(e.Resources) > MaxResources {
		e.Resources = e.Resources[:MaxResources]
	}
	e.RequestParameters = capJSON(e.RequestParameters)
	e.ResponseElements = capJSON(e.ResponseElements)
}

// capJSON bounds a JSON document to MaxValue bytes. A longer one keeps its
// shape, with its string values cut to share MaxValue between them, so
// that a long policy document does not hide the names beside it; a
// document still too long (a list of thousands of items) becomes a JSON
// string saying how many bytes were dropped.
func capJSON(raw json.RawMessage) json.RawMessage {
	n := len(raw)
	if n <= MaxValue {
		return raw
	}
	var doc any
	if json.Unmarshal(raw, &doc) == nil {
		strs := countStrings(doc)
		budget := max(MaxValue/max(strs, 1)-len(truncatedMark(n))-8, 64)
		if out, err := json.Marshal(shorten(doc, budget)); err == nil && len(out) <= MaxValue {
			return out
		}
	}
	mark, _ := json.Marshal(truncatedMark(n))
	return mark
}

// countStrings is how many strings (values and keys) doc holds.
func countStrings(doc any) int {
	switch v := doc.(type) {
	case string:
		return 1
	case map[string]any:
		n := 0
		for _, x := range v {
			n += 1 + countStrings(x)
		}
		return n
	case []any:
		n := 0
		for _, x := range v {
			n += countStrings(x)
		}
		return n
	}
	return 0
}

// shorten cuts every string value of doc to budget bytes as written, with
// the mark of what went.
func shorten(doc any, budget int) any {
	switch v := doc.(type) {
	case string:
		if cut := fitting(v, budget); cut < len(v) {
			return v[:cut] + truncatedMark(len(v)-cut)
		}
	case map[string]any:
		for k, x := range v {
			v[k] = shorten(x, budget)
		}
	case []any:
		for i, x := range v {
			v[i] = shorten(x, budget)
		}
	}
	return doc
}

func capStrings(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); len(s) > MaxValue/6 {
			v.SetString(capValue(s))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				capStrings(f)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			capStrings(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // raw JSON, capped by limit
		}
		for i := range min(v.Len(), MaxResources) {
			capStrings(v.Index(i))
		}
	}
}

// capValue is s cut so that it takes at most MaxValue bytes once
// JSON-escaped, with the mark of what was dropped.
func capValue(s string) string {
	cut := fitting(s, MaxValue)
	if cut == len(s) {
		return s
	}
	// The mark names at most len(s) bytes, so budgeting for that one is
	// enough for the one written.
	cut = fitting(s, MaxValue-len(truncatedMark(len(s))))
	return s[:cut] + truncatedMark(len(s)-cut)
}

// fitting is the length of the longest prefix of s, ending on a character
// boundary, that takes at most budget bytes once JSON-escaped.
func fitting(s string, budget int) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if n += escapedLen(r, size); n > budget {
			return i
		}
		i += size
	}
	return len(s)
}

// escapedLen is how many bytes encoding/json writes for the rune r that
// took size bytes of the input: at most 6 (\uXXXX).
func escapedLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6 // an invalid byte becomes \ufffd
	case r == '"' || r == '\\':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	}
	return size
}
