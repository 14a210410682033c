package simulate

import (
	"strconv"
	"unicode/utf8"

	"leash.dev/leash/policy"
)

// appendOutcome appends o as an element of WriteJSON's array: the bytes
// encoding/json (without HTML escapes) and json.Indent (prefix and indent
// two spaces) make of it, written directly, since reflection and the
// indenting pass took a tenth of a batch's time.
// TestAppendOutcomeAgreesWithEncodingJSON pins the two together.
func appendOutcome(b []byte, o *Outcome) []byte {
	w := jsonOut{b: b}
	w.open('{')
	if o.Principal != "" {
		w.key(1, "principal")
		w.str(o.Principal)
	}
	w.key(1, "action")
	w.str(o.Action)
	if o.Resource != "" {
		w.key(1, "resource")
		w.str(o.Resource)
	}
	w.key(1, "decision")
	w.str(o.Decision)
	w.key(1, "statements")
	w.open('[')
	for i := range o.Statements {
		w.elem(2)
		w.statement(2, &o.Statements[i])
	}
	w.close(1, ']')
	w.key(1, "reasons")
	w.open('[')
	for i := range o.Reasons {
		w.elem(2)
		w.reason(2, &o.Reasons[i])
	}
	w.close(1, ']')
	if o.Error != "" {
		w.key(1, "error")
		w.str(o.Error)
	}
	w.close(0, '}')
	return w.b
}

// jsonOut writes indented JSON. Each open object or array counts its
// members, to place commas and to write an empty one as {} or [].
type jsonOut struct {
	b []byte
	n []int // members written, per open object or array
}

func (w *jsonOut) open(c byte) {
	w.b = append(w.b, c)
	w.n = append(w.n, 0)
}

// elem starts a member at depth: a comma after the one before, then a new
// line.
func (w *jsonOut) elem(depth int) {
	if w.n[len(w.n)-1] > 0 {
		w.b = append(w.b, ',')
	}
	w.n[len(w.n)-1]++
	w.line(depth)
}

func (w *jsonOut) key(depth int, k string) {
	w.elem(depth)
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':', ' ')
}

// close ends the innermost object or array, whose members were at
// depth+1.
func (w *jsonOut) close(depth int, c byte) {
	if w.n[len(w.n)-1] > 0 {
		w.line(depth)
	}
	w.n = w.n[:len(w.n)-1]
	w.b = append(w.b, c)
}

// line starts a line at depth, after the array's own indent.
func (w *jsonOut) line(depth int) {
	w.b = append(w.b, '\n', ' ', ' ')
	for range depth {
		w.b = append(w.b, ' ', ' ')
	}
}

func (w *jsonOut) str(s string) { w.b = appendJSONString(w.b, s) }

func (w *jsonOut) int(n int) { w.b = strconv.AppendInt(w.b, int64(n), 10) }

func (w *jsonOut) bool(v bool) { w.b = strconv.AppendBool(w.b, v) }

func (w *jsonOut) strs(depth int, list []string) {
	if list == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.open('[')
	for _, s := range list {
		w.elem(depth + 1)
		w.str(s)
	}
	w.close(depth, ']')
}

func (w *jsonOut) statement(depth int, s *policy.StatementRef) {
	w.open('{')
	w.key(depth+1, "policyType")
	w.str(s.PolicyType)
	w.key(depth+1, "policy")
	w.str(s.Policy)
	w.key(depth+1, "statementIndex")
	w.int(s.Index)
	if s.Sid != "" {
		w.key(depth+1, "sid")
		w.str(s.Sid)
	}
	w.key(depth+1, "effect")
	w.str(string(s.Effect))
	if s.Level != nil {
		w.key(depth+1, "level")
		w.int(*s.Level)
	}
	w.close(depth, '}')
}

func (w *jsonOut) reason(depth int, r *policy.Reason) {
	w.open('{')
	w.key(depth+1, "code")
	w.str(r.Code)
	w.key(depth+1, "message")
	w.str(r.Message)
	if r.Statement != nil {
		w.key(depth+1, "statement")
		w.statement(depth+1, r.Statement)
	}
	if c := r.Condition; c != nil {
		w.key(depth+1, "condition")
		w.open('{')
		w.key(depth+2, "operator")
		w.str(c.Operator)
		w.key(depth+2, "key")
		w.str(c.Key)
		w.key(depth+2, "policyValues")
		w.strs(depth+2, c.PolicyValues)
		w.key(depth+2, "contextValues")
		w.strs(depth+2, c.ContextValues)
		if c.KeyMissing {
			w.key(depth+2, "keyMissing")
			w.bool(true)
		}
		if c.Multivalued {
			w.key(depth+2, "multivalued")
			w.bool(true)
		}
		w.close(depth+1, '}')
	}
	if r.Page != "" {
		w.key(depth+1, "page")
		w.str(r.Page)
	}
	w.close(depth, '}')
}

// appendJSONString appends s quoted as encoding/json quotes it without
// HTML escapes: \" \\ and the short escapes of control characters,
// \u00XX for the others, invalid UTF-8 as \ufffd, and U+2028 and U+2029
// escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
