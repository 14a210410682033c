package policy

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"leash.dev/leash/internal/jsonscan"
)

// parseDirect reads the common document straight into a Document, without
// building a generic JSON tree first: one JSON object whose strings are
// valid UTF-8 (escapes decoded as encoding/json decodes them), each element
// written once, and every check passing. For anything else (invalid UTF-8
// or half a surrogate pair, which encoding/json replaces, bad syntax, a
// repeated key, an empty array, an invalid document) it reports false, and Parse takes the general path
// (encoding/json, then FromJSON), which has the final word on what is
// accepted and words the errors. It is a fast path only: for the input it
// takes, the Document is the one the general path makes, which
// TestParseDirectAgreesWithParse and FuzzParseDirect pin.
//
// Every string of the Document without escapes is a slice of text, so that
// a document costs a handful of allocations rather than one a string.
func parseDirect(text string, kind Kind) (*Document, bool) {
	return parseDirectFor(text, kind, "")
}

// parseDirectFor is parseDirect that, when action is not "", leaves out
// what CompileOneFor(…, action) does not compile (see ParseFor).
func parseDirectFor(text string, kind Kind, action string) (*Document, bool) {
	d := parsers.Get().(*directParser)
	defer d.release()
	d.Scanner = &d.sc
	d.sc.Reset(text)
	d.action = action
	doc, ok := d.document(kind)
	if !ok || !d.End() {
		return nil, false
	}
	// Size counts characters, as nonSpaceLen does.
	doc.Size = utf8.RuneCountInString(text) - strings.Count(text, " ") - strings.Count(text, "\n") -
		strings.Count(text, "\t") - strings.Count(text, "\r")
	return doc, true
}

// directParser is parseDirect's state: the scanner, which elements each
// statement has (elem bits), for checkStatementShape, and scratch lists
// that the Document gets copies of, each of its exact length: a parser is
// reused (parsers), so that a list grows in scratch rather than in a new
// array each time it doubles.
type directParser struct {
	*jsonscan.Scanner
	sc     jsonscan.Scanner
	shapes []uint16
	stmts  []Statement
	strs   []string
	vals   []string
	conds  []Condition
	ops    []string
	// action, when not "", is the one action the document is read for
	// (ParseFor).
	action string
}

// parsers are the directParsers not in use.
var parsers = sync.Pool{New: func() any { return new(directParser) }}

// release empties d's scratch, so that it keeps no document alive, and
// puts it back in parsers.
func (d *directParser) release() {
	clear(d.stmts)
	clear(d.strs)
	clear(d.vals)
	clear(d.conds)
	clear(d.ops)
	d.stmts, d.strs, d.vals, d.conds, d.ops, d.shapes = d.stmts[:0], d.strs[:0], d.vals[:0], d.conds[:0], d.ops[:0], d.shapes[:0]
	d.action = ""
	d.sc.Reset("")
	d.Scanner = nil
	parsers.Put(d)
}

// strings reads a string or a non-empty array of strings; single reports
// which. The list is a view of the scratch d.strs, valid until the next
// statement: statement keeps a copy of what it keeps.
func (d *directParser) strings() (list []string, single, ok bool) {
	start := len(d.strs)
	if s, ok := d.Str(); ok {
		d.strs = append(d.strs, s)
		return d.strs[start:len(d.strs):len(d.strs)], true, true
	}
	ok = d.Array(func() bool {
		s, ok := d.Str()
		d.strs = append(d.strs, s)
		return ok
	})
	if !ok || len(d.strs) == start {
		return nil, false, false
	}
	return d.strs[start:len(d.strs):len(d.strs)], false, true
}

func (d *directParser) document(kind Kind) (*Document, bool) {
	doc := &Document{}
	var seenVersion, seenID, seenStatement bool
	d.Space()
	ok := d.Object(func(key string) bool {
		var ok bool
		switch key {
		case "Version":
			if seenVersion {
				return false
			}
			seenVersion = true
			doc.Version, ok = d.Str()
			return ok && (doc.Version == Version2012 || doc.Version == Version2008)
		case "Id":
			if seenID {
				return false
			}
			seenID = true
			doc.ID, ok = d.Str()
			return ok
		case "Statement":
			if seenStatement {
				return false
			}
			seenStatement = true
			if d.Next('{') {
				doc.SingleStatement = true
				return d.statement(doc, kind)
			}
			return d.Array(func() bool { return d.statement(doc, kind) })
		}
		return false
	})
	if !ok || !seenStatement || len(d.stmts) == 0 {
		return nil, false
	}
	doc.Statements = slices.Clone(d.stmts)
	// Checks that depend on Version, which may come after the statements.
	vars := doc.Version == Version2012
	for i := range doc.Statements {
		if d.shapes[i]&elemHollow == 0 && !checkDirect(&doc.Statements[i], vars) {
			return nil, false
		}
	}
	for i := range doc.Statements {
		has := func(k string) bool { return d.shapes[i]&elemBit(k) != 0 }
		if d.shapes[i]&elemHollow == 0 && checkStatementShape(&doc.Statements[i], has, "", kind) != nil {
			return nil, false
		}
	}
	return doc, true
}

// Statement elements as bits, to tell which a statement has.
const (
	elemSid = 1 << iota
	elemEffect
	elemAction
	elemNotAction
	elemResource
	elemNotResource
	elemPrincipal
	elemNotPrincipal
	elemCondition
	// elemHollow marks a statement that keeps only its Sid and Effect
	// (ParseFor), checked as it was read.
	elemHollow
)

// elemBit is the bit of a statement element, 0 for an unknown one.
func elemBit(key string) uint16 {
	switch key {
	case "Sid":
		return elemSid
	case "Effect":
		return elemEffect
	case "Action":
		return elemAction
	case "NotAction":
		return elemNotAction
	case "Resource":
		return elemResource
	case "NotResource":
		return elemNotResource
	case "Principal":
		return elemPrincipal
	case "NotPrincipal":
		return elemNotPrincipal
	case "Condition":
		return elemCondition
	}
	return 0
}

// statement reads one statement and appends it to doc, and the elements it
// has to d.shapes. Its lists are read into scratch, and the statement gets
// copies of them; reading for an action (d.action), a statement that does
// not cover it gets none, once checked as the document's end would check
// it (see hollow).
func (d *directParser) statement(doc *Document, kind Kind) bool {
	var s Statement
	var has uint16
	d.strs, d.vals = d.strs[:0], d.vals[:0]
	ok := d.Object(func(key string) bool {
		bit := elemBit(key)
		if bit == 0 || has&bit != 0 {
			return false
		}
		has |= bit
		var ok, single bool
		switch bit {
		case elemSid:
			s.Sid, ok = d.Str()
		case elemEffect:
			var e string
			e, ok = d.Str()
			s.Effect = Effect(e)
			ok = ok && (s.Effect == Allow || s.Effect == Deny)
		case elemAction, elemNotAction:
			var list []string
			if list, single, ok = d.strings(); !ok {
				return false
			}
			for _, a := range list {
				if checkAction(a) != nil {
					return false
				}
			}
			if bit == elemAction {
				s.Action = list
				s.Singles |= singleWhen(single, SingleAction)
			} else {
				s.NotAction = list
				s.Singles |= singleWhen(single, SingleNotAction)
			}
		case elemResource, elemNotResource:
			var list []string
			if list, single, ok = d.strings(); !ok {
				return false
			}
			for _, r := range list {
				if checkResource(r) != nil {
					return false
				}
			}
			if bit == elemResource {
				s.Resource = list
				s.Singles |= singleWhen(single, SingleResource)
			} else {
				s.NotResource = list
				s.Singles |= singleWhen(single, SingleNotResource)
			}
		case elemPrincipal, elemNotPrincipal:
			var p *Principal
			if p, ok = d.principal(); !ok {
				return false
			}
			if bit == elemPrincipal {
				s.Principal = p
			} else {
				s.NotPrincipal = p
			}
		case elemCondition:
			s.Conditions, ok = d.conditions()
		}
		return ok
	})
	if !ok {
		return false
	}
	if d.action != "" && d.hollow(&s, has, kind) {
		s, has = Statement{Sid: s.Sid, Effect: s.Effect}, has|elemHollow
	} else {
		keepLists(&s)
	}
	d.stmts = append(d.stmts, s)
	d.shapes = append(d.shapes, has)
	return true
}

// hollow reports whether statement s, read for d.action, may keep only
// its Sid and Effect: it does not cover the action, so CompileOneFor
// compiles nothing else of it, and it passes now every check the
// document's end would make. Those that depend on Version (which may come
// later) are made with policy variables, the stricter reading: a statement
// that passes with them passes without; one that fails is kept whole, for
// the end to decide with the document's Version.
func (d *directParser) hollow(s *Statement, has uint16, kind Kind) bool {
	if coversAny(*s, d.action) || !checkDirect(s, true) {
		return false
	}
	return checkStatementShape(s, func(k string) bool { return has&elemBit(k) != 0 }, "", kind) == nil
}

// keepLists gives s its own copies of the lists read into scratch.
func keepLists(s *Statement) {
	for _, l := range []*[]string{&s.Action, &s.NotAction, &s.Resource, &s.NotResource} {
		if *l != nil {
			*l = slices.Clone(*l)
		}
	}
	for _, p := range []*Principal{s.Principal, s.NotPrincipal} {
		if p == nil {
			continue
		}
		for _, l := range []*[]string{&p.AWS, &p.Service, &p.Federated, &p.CanonicalUser} {
			if *l != nil {
				*l = slices.Clone(*l)
			}
		}
	}
	if s.Conditions != nil {
		s.Conditions = slices.Clone(s.Conditions)
		for i := range s.Conditions {
			s.Conditions[i].Values = slices.Clone(s.Conditions[i].Values)
		}
	}
}

func singleWhen(single bool, s Singles) Singles {
	if single {
		return s
	}
	return 0
}

func (d *directParser) principal() (*Principal, bool) {
	if s, ok := d.Str(); ok {
		return &Principal{Wildcard: true}, s == "*"
	}
	p := &Principal{}
	ok := d.Object(func(key string) bool {
		list, single, ok := d.strings()
		if !ok || slices.Contains(list, "") {
			return false
		}
		var to *[]string
		var bit Singles
		switch key {
		case "AWS":
			to, bit = &p.AWS, SingleAWS
		case "Service":
			to, bit = &p.Service, SingleService
		case "Federated":
			to, bit = &p.Federated, SingleFederated
		case "CanonicalUser":
			to, bit = &p.CanonicalUser, SingleCanonicalUser
		default:
			return false
		}
		if *to != nil {
			return false
		}
		*to = list
		p.Singles |= singleWhen(single, bit)
		return true
	})
	return p, ok && (p.AWS != nil || p.Service != nil || p.Federated != nil || p.CanonicalUser != nil)
}

// conditions reads a Condition block, in the order the general path gives:
// by operator, then by key.
func (d *directParser) conditions() ([]Condition, bool) {
	out, ops := d.conds[:0], d.ops[:0]
	ok := d.Object(func(op string) bool {
		if slices.Contains(ops, op) {
			return false
		}
		ops = append(ops, op)
		if _, err := parseOperator(op); err != nil {
			return false
		}
		first := len(out)
		return d.Object(func(key string) bool {
			if key == "" || slices.ContainsFunc(out[first:], func(c Condition) bool { return c.Key == key }) {
				return false
			}
			c := Condition{Operator: op, Key: key}
			start := len(d.vals)
			var ok bool
			if d.Next('[') {
				ok = d.Array(func() bool { return d.conditionValue(&c, start) })
			} else {
				c.Single = true
				ok = d.conditionValue(&c, start)
			}
			c.Values = d.vals[start:len(d.vals):len(d.vals)]
			out = append(out, c)
			return ok && len(c.Values) > 0
		}) && len(out) > first
	})
	d.conds, d.ops = out, ops // their arrays, for the next Condition block
	if !ok || len(out) == 0 {
		return nil, false
	}
	slices.SortFunc(out, func(a, b Condition) int {
		if c := strings.Compare(a.Operator, b.Operator); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out[:len(out):len(out)], true // scratch: see keepLists
}

// conditionValue reads one condition value (a string, number or boolean)
// of c, as conditionValues does: its text onto the scratch d.vals, where
// c's values start at start, and whether it was quoted into c.Unquoted.
func (d *directParser) conditionValue(c *Condition, start int) bool {
	var v string
	unquoted := true
	switch {
	case d.Next('"'):
		var ok bool
		if v, ok = d.Str(); !ok {
			return false
		}
		unquoted = false
	case d.Next('t'):
		if !d.Literal("true") {
			return false
		}
		v = "true"
	case d.Next('f'):
		if !d.Literal("false") {
			return false
		}
		v = "false"
	default:
		var ok bool
		if v, ok = d.Number(); !ok {
			return false
		}
	}
	d.vals = append(d.vals, v)
	if unquoted && c.Unquoted == nil {
		c.Unquoted = make([]bool, len(d.vals)-1-start)
	}
	if c.Unquoted != nil {
		c.Unquoted = append(c.Unquoted, unquoted)
	}
	return true
}

// checkDirect makes the checks of one statement that depend on the
// document's Version: its resources' and conditions' policy variables, and
// its condition values (which the general path checks by compiling too).
func checkDirect(s *Statement, vars bool) bool {
	for _, list := range [][]string{s.Resource, s.NotResource} {
		for _, r := range list {
			if checkResourceVars(r, vars) != nil {
				return false
			}
		}
	}
	for _, c := range s.Conditions {
		if !validCondition(c, vars) {
			return false
		}
	}
	return true
}

// validCondition reports whether compileCondition takes c, without
// compiling what cannot fail: Parse checks every condition, and the
// document is compiled once more when it is used. Text and ARN patterns
// fail only on a policy variable; numbers, dates, booleans and addresses
// are read as compileCondition reads them; anything else is compiled.
func validCondition(c Condition, vars bool) bool {
	op, err := parseOperator(c.Operator)
	if err != nil {
		return false
	}
	for _, raw := range c.Values {
		var ok bool
		switch op.fam {
		case famString, famARN:
			ok = !vars || !strings.Contains(raw, "${")
		case famNumeric:
			_, ok = readNumber(raw)
		case famDate:
			_, ok = readDate(raw)
		case famBool, famNull:
			lower := strings.ToLower(raw)
			ok = lower == "true" || lower == "false"
		case famIP:
			_, err := parseCIDR(raw)
			ok = err == nil
		default:
			ok = false
		}
		if !ok {
			_, err := compileCondition(c, vars)
			return err == nil
		}
	}
	return true
}
