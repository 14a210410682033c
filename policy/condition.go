package policy

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// family is the type of comparison an operator makes.
type family uint8

const (
	famString family = iota
	famNumeric
	famDate
	famBool
	famBinary
	famIP
	famARN
	famNull
)

// cmp is the comparison within a family.
type cmp uint8

const (
	cmpEquals cmp = iota
	cmpEqualsIgnoreCase
	cmpLike
	cmpLess
	cmpLessEquals
	cmpGreater
	cmpGreaterEquals
)

// baseOp is an operator without its set prefix or IfExists suffix.
type baseOp struct {
	fam     family
	cmp     cmp
	negated bool
}

var baseOps = map[string]baseOp{
	"stringequals":              {famString, cmpEquals, false},
	"stringnotequals":           {famString, cmpEquals, true},
	"stringequalsignorecase":    {famString, cmpEqualsIgnoreCase, false},
	"stringnotequalsignorecase": {famString, cmpEqualsIgnoreCase, true},
	"stringlike":                {famString, cmpLike, false},
	"stringnotlike":             {famString, cmpLike, true},
	"numericequals":             {famNumeric, cmpEquals, false},
	"numericnotequals":          {famNumeric, cmpEquals, true},
	"numericlessthan":           {famNumeric, cmpLess, false},
	"numericlessthanequals":     {famNumeric, cmpLessEquals, false},
	"numericgreaterthan":        {famNumeric, cmpGreater, false},
	"numericgreaterthanequals":  {famNumeric, cmpGreaterEquals, false},
	"dateequals":                {famDate, cmpEquals, false},
	"datenotequals":             {famDate, cmpEquals, true},
	"datelessthan":              {famDate, cmpLess, false},
	"datelessthanequals":        {famDate, cmpLessEquals, false},
	"dategreaterthan":           {famDate, cmpGreater, false},
	"dategreaterthanequals":     {famDate, cmpGreaterEquals, false},
	"bool":                      {famBool, cmpEquals, false},
	"binaryequals":              {famBinary, cmpEquals, false},
	"ipaddress":                 {famIP, cmpEquals, false},
	"notipaddress":              {famIP, cmpEquals, true},
	"arnequals":                 {famARN, cmpEquals, false},
	"arnlike":                   {famARN, cmpLike, false},
	"arnnotequals":              {famARN, cmpEquals, true},
	"arnnotlike":                {famARN, cmpLike, true},
	"null":                      {famNull, cmpEquals, false},
}

type setMode uint8

const (
	setNone setMode = iota
	setForAll
	setForAny
)

// operator is a full condition operator such as ForAnyValue:StringLikeIfExists.
type operator struct {
	baseOp
	set      setMode
	ifExists bool
}

// parseOperator reads an operator name. Names are case-insensitive, as AWS
// accepts them.
func parseOperator(name string) (operator, error) {
	var op operator
	// Lower-case into a buffer: an operator is parsed for every condition
	// compiled, and the name is never kept.
	var buf [64]byte
	var base []byte
	if len(name) <= len(buf) && isASCII(name) {
		base = buf[:len(name)]
		for i := range len(name) {
			base[i] = lower(name[i])
		}
	} else {
		base = []byte(strings.ToLower(name))
	}
	switch {
	case bytes.HasPrefix(base, []byte("forallvalues:")):
		op.set, base = setForAll, base[len("forallvalues:"):]
	case bytes.HasPrefix(base, []byte("foranyvalue:")):
		op.set, base = setForAny, base[len("foranyvalue:"):]
	}
	if bytes.HasSuffix(base, []byte("ifexists")) {
		op.ifExists = true
		base = base[:len(base)-len("ifexists")]
	}
	b, ok := baseOps[string(base)]
	if !ok {
		return op, fmt.Errorf("unknown condition operator %q; use one of the String, Numeric, Date, Bool, BinaryEquals, IpAddress, Arn or Null operators", name)
	}
	if b.fam == famNull && (op.ifExists || op.set != setNone) {
		return op, fmt.Errorf("operator %q: Null takes no IfExists suffix and no set prefix", name)
	}
	op.baseOp = b
	return op, nil
}

// condValue is one policy value, parsed for its operator's family.
type condValue struct {
	raw  string
	pat  pattern    // string family
	arn  arnPattern // ARN family
	num  float64
	date time.Time
	ip   netip.Prefix
	b    bool
}

// compiledCond is one key under one operator.
type compiledCond struct {
	op     operator
	opName string
	key    string // lower-cased
	keyRaw string
	values []condValue
}

func compileCondition(c Condition, vars bool) (compiledCond, error) {
	op, err := parseOperator(c.Operator)
	if err != nil {
		return compiledCond{}, err
	}
	cc := compiledCond{op: op, opName: c.Operator, key: strings.ToLower(c.Key), keyRaw: c.Key}
	for _, raw := range c.Values {
		v := condValue{raw: raw}
		switch op.fam {
		case famString:
			text := raw
			if op.cmp == cmpEqualsIgnoreCase {
				// Fold-compared patterns are kept lower-case (see equalText).
				text = strings.ToLower(raw)
			}
			v.pat, err = compilePattern(text, op.cmp == cmpLike, vars)
		case famARN:
			v.arn, err = compileARNPattern(raw, vars)
		case famNumeric:
			v.num, err = parseNumber(raw)
		case famDate:
			v.date, err = parseDate(raw)
		case famBool, famNull:
			switch strings.ToLower(raw) {
			case "true":
				v.b = true
			case "false":
			default:
				err = fmt.Errorf(`must be "true" or "false", got %q`, raw)
			}
		case famBinary:
			// Values compare as base64 text, as AWS compares them.
			if _, err = base64.StdEncoding.DecodeString(raw); err != nil {
				err = fmt.Errorf("must be base64, got %q", raw)
			}
		case famIP:
			v.ip, err = parseCIDR(raw)
		}
		if err != nil {
			return cc, err
		}
		cc.values = append(cc.values, v)
	}
	return cc, nil
}

func parseNumber(s string) (float64, error) {
	f, ok := readNumber(s)
	if !ok {
		return 0, fmt.Errorf("must be a number, got %q", s)
	}
	return f, nil
}

func parseDate(s string) (time.Time, error) {
	t, ok := readDate(s)
	if !ok {
		return t, fmt.Errorf("must be an ISO 8601 date such as 2026-01-31T12:00:00Z or epoch seconds, got %q", s)
	}
	return t, nil
}

// parseCIDR reads a CIDR block or a single address (a /32 or /128).
func parseCIDR(s string) (netip.Prefix, error) {
	bad := func() error {
		return fmt.Errorf("must be an IPv4 or IPv6 address or CIDR such as 203.0.113.0/24 or 2001:db8::/32, got %q", s)
	}
	addr, bits, hasBits := strings.Cut(strings.TrimSpace(s), "/")
	a, ok := readAddr(addr)
	if !ok {
		return netip.Prefix{}, bad()
	}
	n := a.BitLen()
	if hasBits {
		var ok bool
		if n, ok = digits(bits, 0, len(bits)); !ok || bits == "" || n > a.BitLen() {
			return netip.Prefix{}, bad()
		}
	}
	return netip.PrefixFrom(a, n).Masked(), nil
}

// condFailure says why a condition did not match, for explanations.
type condFailure uint8

const (
	condMatched condFailure = iota
	condMissingKey
	condMultivaluedKey
	condValueMismatch
)

// eval reports whether the condition holds for ctx. It does not allocate.
func (c *compiledCond) eval(ctx *Context) (bool, condFailure) {
	cv, present := ctx.lookup(c.key)
	if c.op.fam == famNull {
		// Null: true asks for the key to be absent, false for it to be present.
		for i := range c.values {
			if c.values[i].b != present {
				return true, condMatched
			}
		}
		if present {
			return false, condValueMismatch
		}
		return false, condMissingKey
	}
	switch c.op.set {
	case setForAll:
		// Every value of the key must satisfy the operator; a missing or empty
		// key satisfies it vacuously.
		for _, v := range cv.values {
			if !c.valueMatches(v, ctx) {
				return false, condValueMismatch
			}
		}
		return true, condMatched
	case setForAny:
		for _, v := range cv.values {
			if c.valueMatches(v, ctx) {
				return true, condMatched
			}
		}
		if !present {
			return false, condMissingKey
		}
		return false, condValueMismatch
	}
	if !present {
		// IfExists and negated operators hold when the key is absent.
		if c.op.ifExists || c.op.negated {
			return true, condMatched
		}
		return false, condMissingKey
	}
	if cv.multi {
		// A multivalued key needs a set operator; without one nothing matches.
		return false, condMultivaluedKey
	}
	if len(cv.values) == 1 && c.valueMatches(cv.values[0], ctx) {
		return true, condMatched
	}
	return false, condValueMismatch
}

// valueMatches applies the operator to one context value: a positive operator
// holds when some policy value matches; a negated one when none does.
func (c *compiledCond) valueMatches(s string, ctx *Context) bool {
	any := false
	switch c.op.fam {
	case famString:
		for i := range c.values {
			v := &c.values[i]
			var ok bool
			switch c.op.cmp {
			case cmpEqualsIgnoreCase:
				ok = v.pat.match(s, ctx, true)
			default:
				ok = v.pat.match(s, ctx, false)
			}
			if ok {
				any = true
				break
			}
		}
	case famARN:
		for i := range c.values {
			if c.values[i].arn.match(s, ctx) {
				any = true
				break
			}
		}
	case famNumeric:
		n, ok := readNumber(s)
		if !ok {
			return false
		}
		for i := range c.values {
			if compareOrdered(c.op.cmp, cmpFloat(n, c.values[i].num)) {
				any = true
				break
			}
		}
	case famDate:
		t, ok := readDate(s)
		if !ok {
			return false
		}
		for i := range c.values {
			if compareOrdered(c.op.cmp, t.Compare(c.values[i].date)) {
				any = true
				break
			}
		}
	case famBool:
		b := strings.EqualFold(s, "true")
		if !b && !strings.EqualFold(s, "false") {
			return false
		}
		for i := range c.values {
			if c.values[i].b == b {
				any = true
				break
			}
		}
	case famBinary:
		for i := range c.values {
			if s == c.values[i].raw {
				any = true
				break
			}
		}
	case famIP:
		a, ok := readAddr(s)
		if !ok {
			return false
		}
		for i := range c.values {
			if c.values[i].ip.Contains(a) {
				any = true
				break
			}
		}
	}
	return any != c.op.negated
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareOrdered(c cmp, r int) bool {
	switch c {
	case cmpLess:
		return r < 0
	case cmpLessEquals:
		return r <= 0
	case cmpGreater:
		return r > 0
	case cmpGreaterEquals:
		return r >= 0
	}
	return r == 0
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
