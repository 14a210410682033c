package whocan

import (
	"bytes"
	"errors"
)

// A snapshot of a large account is tens of megabytes of one JSON object.
// Decoding it with one json.Unmarshal runs on one core and scans the input
// twice (a validity pass, then the decode). decodeSplit instead finds the
// four lists and their elements with a byte scanner and decodes the
// elements on every core, field by field (directdecode.go); the managed
// policies, most of a snapshot, are read only as far as they are used
// (parsePolicies). It reports ok=false for anything but a single
// well-formed page object, and the caller decodes that the slow way, whose
// errors say what is wrong and where.

// decodeSplit decodes one page object, its list elements in parallel.
func decodeSplit(data []byte) (page, bool) {
	var p page
	// One pass over the page finds the four lists' elements (the last list
	// when a key repeats, as encoding/json keeps); other keys are skipped,
	// as encoding/json ignores unknown keys.
	lists := map[string][][]byte{}
	ok := scanFields(data, func(key string, start int) (int, bool) {
		switch key {
		case "UserDetailList", "GroupDetailList", "RoleDetailList", "Policies":
			elems, end, ok := arrayElementsAt(data, start)
			lists[key] = elems
			return end, ok
		}
		return skipValue(data, start)
	})
	if !ok {
		return p, false
	}
	var jobs []func(i int) error
	var counts []int
	for key, elems := range lists {
		var job func(i int) error
		switch key {
		case "UserDetailList":
			p.UserDetailList, job = decodeList(elems, decodeUser)
		case "GroupDetailList":
			p.GroupDetailList, job = decodeList(elems, decodeGroup)
		case "RoleDetailList":
			p.RoleDetailList, job = decodeList(elems, decodeRole)
		case "Policies":
			// Kept raw: parsePolicies reads the ones in use.
			list := make([]policyDetail, len(elems))
			for i, e := range elems {
				list[i].raw = e
			}
			p.Policies = &list
			continue
		}
		jobs, counts = append(jobs, job), append(counts, len(elems))
	}
	// One job list over every element of every list, so that both cores
	// stay busy whatever the lists' sizes.
	total := 0
	for _, n := range counts {
		total += n
	}
	err := parallel(total, func(i int) error {
		for j, n := range counts {
			if i < n {
				return jobs[j](i)
			}
			i -= n
		}
		return nil
	})
	return p, err == nil
}

// errShape is a list element that is not of the API's shape.
var errShape = errors.New("not the API's shape")

// decodeList returns a list for the elements and the job that decodes
// element i into it.
func decodeList[T any](elems [][]byte, decode func([]byte) (T, bool)) (*[]T, func(i int) error) {
	list := make([]T, len(elems))
	return &list, func(i int) error {
		var ok bool
		if list[i], ok = decode(elems[i]); !ok {
			return errShape
		}
		return nil
	}
}

// eachField calls fn with each key of a JSON object and its raw value, in
// order, without a map; ok is false unless data is exactly one object.
func eachField(data []byte, fn func(key string, raw []byte)) bool {
	return scanFields(data, func(key string, start int) (int, bool) {
		end, ok := skipValue(data, start)
		if ok {
			fn(key, data[start:end])
		}
		return end, ok
	})
}

// scanFields walks a JSON object, calling value with each key and the
// index of its value, which value reads and returns the end of; ok is
// false unless data is exactly one object.
func scanFields(data []byte, value func(key string, start int) (end int, ok bool)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		end, ok := skipString(data, i)
		if !ok {
			return false
		}
		key, ok := jsonString(data[i:end])
		if !ok {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return false
		}
		end, ok = value(key, skipSpace(data, i+1))
		if !ok {
			return false
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return skipSpace(data, i+1) == len(data)
		default:
			return false
		}
	}
}

// arrayElements returns the raw elements of a JSON array; ok is false for
// anything else (null included: the slow path says what it is).
func arrayElements(data []byte) ([][]byte, bool) {
	elems, end, ok := arrayElementsAt(data, 0)
	return elems, ok && end == len(data)
}

// arrayElementsAt reads the array starting at data[i]: its elements and
// the index just past it.
func arrayElementsAt(data []byte, i int) ([][]byte, int, bool) {
	if i >= len(data) || data[i] != '[' {
		return nil, 0, false
	}
	var elems [][]byte
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return elems, i + 1, true
	}
	for {
		end, ok := skipValue(data, i)
		if !ok {
			return nil, 0, false
		}
		elems = append(elems, data[i:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			return nil, 0, false
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return elems, i + 1, true
		default:
			return nil, 0, false
		}
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at data[i].
// It jumps from quote to quote with bytes.IndexByte (most of a snapshot is
// the text of strings); a quote after an odd run of backslashes is escaped.
func skipString(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		// Most strings are short: look at a few bytes before paying for
		// IndexByte's call.
		k := -1
		for m := j; m < len(data) && m < j+24; m++ {
			if data[m] == '"' {
				k = m - j
				break
			}
		}
		if k < 0 && j+24 < len(data) {
			if k = bytes.IndexByte(data[j+24:], '"'); k >= 0 {
				k += 24
			}
		}
		if k < 0 {
			return 0, false
		}
		j += k
		n := 0
		for b := j - 1; b > i && data[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
}

// skipValue returns the index just past the value starting at data[i]. It
// finds the value's end only; the element's own decode checks the rest.
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			for j < len(data) && !structural[data[j]] {
				j++ // text between tokens: spaces, numbers, literals, commas
			}
			if j == len(data) {
				break
			}
			switch data[j] {
			case '"':
				end, ok := skipString(data, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\n', '\t', '\r':
			return j, j > i
		}
		j++
	}
	return j, j > i
}

// structural marks the bytes a container's end is found by.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}
