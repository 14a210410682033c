package policy

import (
	"net/netip"
	"strconv"
	"strings"
	"time"
)

// The readers in this file parse context values on the decision path. The
// standard library's parsers allocate an error value for every malformed
// input, and request contexts come from outside, so these check the shape
// first and never allocate.

// readNumber reads a decimal number: an optional sign, digits with an
// optional fraction, and an optional exponent.
func readNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && isDigit(s[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && isDigit(s[i]); i++ {
			exp++
		}
		if exp == 0 || exp > 4 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digits reads s[a:b] as a decimal number of exactly b-a digits.
func digits(s string, a, b int) (int, bool) {
	if b > len(s) {
		return 0, false
	}
	n := 0
	for i := a; i < b; i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// readDate reads epoch seconds or an ISO 8601 date: YYYY-MM-DD, optionally
// followed by Thh:mm, :ss, a fraction, and Z or an offset ±hh:mm or ±hhmm.
// A time without an offset is UTC.
func readDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if n, ok := digits(s, 0, len(s)); ok && len(s) > 0 && len(s) <= 12 {
		return time.Unix(int64(n), 0).UTC(), true
	}
	y, ok1 := digits(s, 0, 4)
	mo, ok2 := digits(s, 5, 7)
	d, ok3 := digits(s, 8, 10)
	if !(ok1 && ok2 && ok3) || s[4] != '-' || s[7] != '-' {
		return time.Time{}, false
	}
	var h, mi, sec, nanos int
	offset := 0
	rest := s[10:]
	if rest != "" {
		if rest[0] != 'T' {
			return time.Time{}, false
		}
		var ok4, ok5 bool
		h, ok4 = digits(rest, 1, 3)
		mi, ok5 = digits(rest, 4, 6)
		if !ok4 || !ok5 || rest[3] != ':' {
			return time.Time{}, false
		}
		rest = rest[6:]
		if len(rest) > 0 && rest[0] == ':' {
			var ok bool
			if sec, ok = digits(rest, 1, 3); !ok {
				return time.Time{}, false
			}
			rest = rest[3:]
			if len(rest) > 0 && rest[0] == '.' {
				n := 1
				for n < len(rest) && isDigit(rest[n]) {
					n++
				}
				if n == 1 || n > 10 {
					return time.Time{}, false
				}
				f, _ := digits(rest, 1, n)
				for i := n - 1; i < 9; i++ {
					f *= 10
				}
				nanos = f
				rest = rest[n:]
			}
		}
		switch {
		case rest == "" || rest == "Z":
		case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':',
			len(rest) == 5 && (rest[0] == '+' || rest[0] == '-'):
			oh, okh := digits(rest, 1, 3)
			mStart := 3
			if len(rest) == 6 {
				mStart = 4
			}
			om, okm := digits(rest, mStart, mStart+2)
			if !okh || !okm || oh > 23 || om > 59 {
				return time.Time{}, false
			}
			offset = oh*3600 + om*60
			if rest[0] == '-' {
				offset = -offset
			}
		default:
			return time.Time{}, false
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nanos, time.UTC)
	if t.Day() != d {
		return time.Time{}, false // such as February 30
	}
	return t.Add(-time.Duration(offset) * time.Second), true
}

// readAddr reads an IPv4 or IPv6 address; an IPv4-mapped IPv6 address is
// read as IPv4.
func readAddr(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if strings.IndexByte(s, ':') < 0 {
		a, ok := readIPv4(s)
		if !ok {
			return netip.Addr{}, false
		}
		return netip.AddrFrom4(a), true
	}
	a, ok := readIPv6(s)
	if !ok {
		return netip.Addr{}, false
	}
	return netip.AddrFrom16(a).Unmap(), true
}

func readIPv4(s string) ([4]byte, bool) {
	var out [4]byte
	for i := 0; i < 4; i++ {
		if i > 0 {
			if len(s) == 0 || s[0] != '.' {
				return out, false
			}
			s = s[1:]
		}
		n, v := 0, 0
		for n < len(s) && n < 4 && isDigit(s[n]) {
			v = v*10 + int(s[n]-'0')
			n++
		}
		if n == 0 || n > 3 || v > 255 || (n > 1 && s[0] == '0') {
			return out, false
		}
		out[i] = byte(v)
		s = s[n:]
	}
	return out, s == ""
}

func readIPv6(s string) ([16]byte, bool) {
	var out [16]byte
	ellipsis := -1 // byte index where "::" expands
	i := 0
	if strings.HasPrefix(s, "::") {
		ellipsis = 0
		s = s[2:]
		if s == "" {
			return out, true
		}
	}
	for i < 16 {
		// An embedded IPv4 address ends the address.
		if strings.IndexByte(s, ':') < 0 && strings.IndexByte(s, '.') >= 0 {
			if i > 12 {
				return out, false
			}
			v4, ok := readIPv4(s)
			if !ok {
				return out, false
			}
			copy(out[i:], v4[:])
			i += 4
			s = ""
			break
		}
		v, n := 0, 0
		for n < len(s) && n < 5 {
			c := s[n]
			var d int
			switch {
			case c >= '0' && c <= '9':
				d = int(c - '0')
			case c >= 'a' && c <= 'f':
				d = int(c-'a') + 10
			case c >= 'A' && c <= 'F':
				d = int(c-'A') + 10
			default:
				goto done
			}
			v = v<<4 | d
			n++
		}
	done:
		if n == 0 || n > 4 {
			return out, false
		}
		out[i], out[i+1] = byte(v>>8), byte(v)
		i += 2
		s = s[n:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return out, false
		}
		if s[1] == ':' {
			if ellipsis >= 0 {
				return out, false
			}
			ellipsis = i
			s = s[2:]
			if s == "" {
				break
			}
			continue
		}
		s = s[1:]
	}
	if s != "" {
		return out, false
	}
	if i < 16 {
		if ellipsis < 0 {
			return out, false
		}
		n := 16 - i
		copy(out[ellipsis+n:], out[ellipsis:i])
		for j := ellipsis; j < ellipsis+n; j++ {
			out[j] = 0
		}
	} else if ellipsis >= 0 {
		// "::" must stand for at least one group.
		return out, false
	}
	return out, true
}
