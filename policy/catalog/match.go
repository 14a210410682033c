package catalog

import (
	"strings"

	"leash.dev/leash/policy"
)

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// compareFold compares ASCII strings as if lower-cased: the order of the
// catalog's actions and resource types.
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if ca, cb := lower(a[i]), lower(b[i]); ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// globFold reports whether s matches the pattern, ignoring ASCII case: *
// matches any run of bytes, ? any one byte.
func globFold[S ~string | ~[]byte](pattern string, s S) bool {
	px, sx := 0, 0
	// Where to resume after a mismatch: the pattern just past the last *,
	// and the subject one byte further than that * had taken.
	starPx, starSx := -1, 0
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				starPx, starSx = px+1, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			default:
				if sx < len(s) && lower(s[sx]) == lower(c) {
					px++
					sx++
					continue
				}
			}
		}
		if starPx >= 0 && starSx <= len(s) {
			px, sx = starPx, starSx
			starSx++
			continue
		}
		return false
	}
	return true
}

// A token of an ARN part.
type token struct {
	kind byte // 'c' a literal byte, '?' any byte, '*' any run
	c    byte // the lower-cased literal
}

// tokens reads a part of an ARN format or, when policy is true, of an ARN
// from a policy. In a format a placeholder ${...} is any run. In a policy, *
// and a policy variable ${...} are any run and ? any byte, while ${*}, ${?}
// and ${$} are those characters.
func tokens(s string, policy bool) []token {
	out := make([]token, 0, len(s))
	run := func() {
		if len(out) == 0 || out[len(out)-1].kind != '*' {
			out = append(out, token{kind: '*'})
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '$' && i+1 < len(s) && s[i+1] == '{' {
			if end := strings.IndexByte(s[i:], '}'); end > 0 {
				if v := s[i+2 : i+end]; policy && (v == "*" || v == "?" || v == "$") {
					out = append(out, token{'c', v[0]})
				} else {
					run()
				}
				i += end
				continue
			}
		}
		switch {
		case policy && c == '*':
			run()
		case policy && c == '?':
			out = append(out, token{kind: '?'})
		default:
			out = append(out, token{'c', lower(c)})
		}
	}
	return out
}

// intersect reports whether some string matches both token patterns.
func intersect(a, b []token) bool {
	// ok[i*(m+1)+j]: some string matches both a[i:] and b[j:]; filled from
	// the ends backwards.
	n, m := len(a), len(b)
	ok := make([]bool, (n+1)*(m+1))
	at := func(i, j int) bool { return ok[i*(m+1)+j] }
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			var v bool
			switch {
			case i == n && j == m:
				v = true
			case i < n && a[i].kind == '*' && at(i+1, j):
				v = true // a's run ends
			case j < m && b[j].kind == '*' && at(i, j+1):
				v = true // b's run ends
			case i == n || j == m:
				v = false
			case a[i].kind == '*':
				v = at(i, j+1) // a's run takes b's byte (or b's run ends, above)
			case b[j].kind == '*':
				v = at(i+1, j) // b's run takes a's byte
			default:
				v = (a[i].kind == '?' || b[j].kind == '?' || a[i].c == b[j].c) && at(i+1, j+1)
			}
			ok[i*(m+1)+j] = v
		}
	}
	return ok[0]
}

// distance is the optimal string alignment distance between a and b ignoring
// ASCII case: insertions, deletions, substitutions and swaps of adjacent
// bytes each count one. Past limit it stops and returns limit+1. rows is
// scratch space reused across calls.
func distance(a, b string, limit int, rows *[3][]int) int {
	for i := range rows {
		if cap(rows[i]) < len(b)+1 {
			rows[i] = make([]int, len(b)+1)
		}
		rows[i] = rows[i][:len(b)+1]
	}
	prev2, prev, cur := rows[0], rows[1], rows[2]
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if lower(a[i-1]) == lower(b[j-1]) {
				cost = 0
			}
			d := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && lower(a[i-1]) == lower(b[j-2]) && lower(a[i-2]) == lower(b[j-1]) {
				d = min(d, prev2[j-2]+1)
			}
			cur[j] = d
			rowMin = min(rowMin, d)
		}
		// Every later cell builds on this row or the one before it.
		if rowMin > limit && prevMin > limit {
			return limit + 1
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(b)], limit+1)
}

// splitARN splits an ARN, ARN format or pattern as the engine does; ok is
// false for anything not shaped like an ARN.
func splitARN(s string) (parts [6]string, ok bool) {
	parts, n := policy.SplitARN(s)
	return parts, n == 6 && strings.EqualFold(parts[0], "arn")
}
