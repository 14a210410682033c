package sigv4

// SigV4's URI encoding, shared by the canonical URI and the canonical query
// string: every byte outside the unreserved set A-Z a-z 0-9 - _ . ~ becomes
// %XX with upper-case hex.

const upperHex = "0123456789ABCDEF"

// appendEncoded appends s URI-encoded to buf. With keepSlash, "/" is left as
// it is, as the canonical URI requires.
func appendEncoded(buf []byte, s string, keepSlash bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) || (keepSlash && c == '/') {
			buf = append(buf, c)
			continue
		}
		buf = append(buf, '%', upperHex[c>>4], upperHex[c&0x0f])
	}
	return buf
}

func isUnreserved(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '.' || c == '~'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isUpperHex(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'F'
}

func isLowerHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
}

// unhex returns the value of a hex digit; the caller has checked it is one.
func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
