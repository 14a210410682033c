package simulate

// appendIndented appends compact, a JSON value as encoding/json writes it
// (no whitespace outside strings), to dst indented as json.Indent does
// with the given prefix and indent. json.Indent runs its full validating
// scanner over every byte, a tenth of a batch's time; the encoder's output
// needs only its strings skipped and its nesting followed.
func appendIndented(dst, compact []byte, prefix, indent string) []byte {
	depth := 0
	open := false // just after '{' or '[': the next byte decides the newline
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if open {
			open = false
			if c != '}' && c != ']' {
				depth++
				dst = appendLine(dst, prefix, indent, depth)
			}
		}
		switch c {
		case '"':
			j := i + 1
			for ; j < len(compact); j++ {
				if compact[j] == '\\' {
					j++
					continue
				}
				if compact[j] == '"' {
					break
				}
			}
			end := min(j+1, len(compact))
			dst = append(dst, compact[i:end]...)
			i = end - 1
		case '{', '[':
			dst = append(dst, c)
			open = true
		case ',':
			dst = append(dst, c)
			dst = appendLine(dst, prefix, indent, depth)
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if compact[i-1] != '{' && compact[i-1] != '[' {
				depth--
				dst = appendLine(dst, prefix, indent, depth)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendLine starts a new line at depth.
func appendLine(dst []byte, prefix, indent string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range depth {
		dst = append(dst, indent...)
	}
	return dst
}
