package query

import (
	"sort"
	"strconv"
	"strings"
)

// maxIndexDigits bounds a member index: no list of IAM or STS comes near a
// billion members, and a bound keeps the index in an int everywhere.
const maxIndexDigits = 9

// List returns a list of strings sent as Name.member.1, Name.member.2...,
// in the order of their indexes (member.10 follows member.9). It is nil
// when the list was not sent and empty when it was sent empty: the SDK
// sends an empty list as a bare "Name=".
//
// The indexes must run from 1 with no gaps and no leading zeros, and each
// member must be a plain value; otherwise the list cannot be read and the
// error is MalformedInput.
func (p Params) List(name string) ([]string, *Error) {
	n, err := p.count(name, false)
	if err != nil || n < 0 {
		return nil, err
	}
	list := make([]string, n)
	for i := range list {
		list[i] = p.values[p.memberPrefix(name, i+1)]
	}
	return list, nil
}

// Members returns a list of structures sent as Name.member.N.Field, one
// Params per member in the order of their indexes, for reading the
// members' fields. The rules of List apply, except that each member must
// have fields.
func (p Params) Members(name string) ([]Params, *Error) {
	n, err := p.count(name, true)
	if err != nil || n < 0 {
		return nil, err
	}
	members := make([]Params, n)
	for i := range members {
		members[i] = Params{
			values: p.values,
			names:  p.names,
			prefix: p.memberPrefix(name, i+1) + ".",
			path:   p.path + lowerFirst(name) + "." + strconv.Itoa(i+1) + ".member.",
		}
	}
	return members, nil
}

func (p Params) memberPrefix(name string, index int) string {
	return p.prefix + name + ".member." + strconv.Itoa(index)
}

// count checks the keys of the list name and returns how many members it
// has, or -1 when it was not sent. Keys are checked in sorted order, so
// the error a request gets does not depend on map order.
func (p Params) count(name string, structs bool) (int, *Error) {
	base := p.prefix + name
	first := sort.SearchStrings(p.names, base+".")
	keys := p.names[first:]
	for i, k := range keys {
		if !strings.HasPrefix(k, base+".") {
			keys = keys[:i]
			break
		}
	}
	if v, ok := p.values[base]; ok && v != "" {
		return 0, MalformedInput(base + " is a list, not a value: send its members as " + base + ".member.1, " + base + ".member.2...")
	}
	seen := map[int]bool{}
	for _, k := range keys {
		rest, ok := strings.CutPrefix(k, base+".member.")
		if !ok {
			return 0, MalformedInput(quote(k) + " is not a member of the list " + base + ": send members as " + base + ".member.N, numbered from 1")
		}
		digits, field, hasField := strings.Cut(rest, ".")
		if !isIndex(digits) {
			return 0, MalformedInput(quote(k) + " has no valid member index: number the members of " + base + " 1, 2, 3... without leading zeros")
		}
		switch {
		case structs && (!hasField || field == ""):
			return 0, MalformedInput(quote(k) + " has no field: members of " + base + " are structures, sent as " + base + ".member.N.Field")
		case !structs && hasField:
			return 0, MalformedInput(quote(k) + " has a field: members of " + base + " are plain values, sent as " + base + ".member.N=value")
		}
		index, _ := strconv.Atoi(digits)
		seen[index] = true
	}
	if len(seen) == 0 {
		if _, ok := p.values[base]; ok {
			return 0, nil
		}
		return -1, nil
	}
	for i := 1; i <= len(seen); i++ {
		if !seen[i] {
			return 0, MalformedInput(p.memberPrefix(name, i) + " is missing: number the members of " + base + " 1, 2, 3... with no gaps")
		}
	}
	return len(seen), nil
}

// isIndex reports whether s is a member index in canonical form: a
// positive decimal without leading zeros, so that each member has one
// spelling.
func isIndex(s string) bool {
	if s == "" || len(s) > maxIndexDigits || s[0] == '0' {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
