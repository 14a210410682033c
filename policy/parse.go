package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ParseError is an invalid document: where the offending element is and what
// is wrong with it.
type ParseError struct {
	// Path is the JSON path of the offending element, such as
	// Statement[2].Action[0]; empty when the error is about the whole text.
	Path string
	// Statement is the index of the statement the error is in (0 when
	// Statement is a single object), or -1 when it is not inside one.
	Statement int
	// Field is the element the error is in: a statement's (Effect, Action,
	// Condition...) when Statement is not -1, else the document's (Version,
	// Id, Statement). It is empty when the error is about a whole statement
	// or the whole document.
	Field string
	Msg   string
}

func (e *ParseError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// errAt makes an error outside any statement; inStatement and inField
// place it.
func errAt(path, format string, args ...any) *ParseError {
	return &ParseError{Path: path, Statement: -1, Msg: fmt.Sprintf(format, args...)}
}

// inStatement records that err, a *ParseError, is in statement i.
func inStatement(err error, i int) error {
	if pe, ok := err.(*ParseError); ok {
		pe.Statement = i
	}
	return err
}

// inField records that err, a *ParseError, is in the element field.
func inField(err error, field string) error {
	if pe, ok := err.(*ParseError); ok {
		pe.Field = field
	}
	return err
}

// Parse reads a policy document of the given kind, accepting every form AWS
// accepts (Statement as an object or an array, single values or arrays, numbers
// and booleans in conditions) and rejecting what AWS rejects, with the JSON
// path of the first problem.
func Parse(data []byte, kind Kind) (*Document, error) {
	return ParseString(string(data), kind)
}

// ParseString is Parse of a document held as a string: the Document's
// strings are slices of text rather than copies.
func ParseString(text string, kind Kind) (*Document, error) {
	if doc, ok := parseDirect(text, kind); ok {
		return doc, nil
	}
	return parseGeneral([]byte(text), kind)
}

// ParseFor is ParseString for a document that is only ever compiled by
// CompileOneFor for action, such as one that a single request of a batch
// carries. A statement that does not cover action keeps its Sid and Effect
// alone: CompileOneFor compiles nothing else of it, and reading no more of
// it spares most of a large document's copies. Every check ParseString
// makes is made, and the errors are its errors. Compiled for another
// action, or read for anything else, the Document is wrong.
func ParseFor(text string, kind Kind, action string) (*Document, error) {
	if doc, ok := parseDirectFor(text, kind, action); ok {
		return doc, nil
	}
	return parseGeneral([]byte(text), kind)
}

// parseGeneral is Parse for every input: encoding/json decodes, FromJSON
// checks and words the errors.
func parseGeneral(data []byte, kind Kind) (*Document, error) {
	raw, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	doc, err := FromJSON(raw, kind)
	if err != nil {
		return nil, err
	}
	doc.Size = nonSpaceLen(data)
	return doc, nil
}

// decodeJSON decodes a document with encoding/json, for what parseDirect
// does not take: it decides what is valid and words the errors.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, &ParseError{Statement: -1, Msg: "not valid JSON: " + jsonErrorText(data, err)}
	}
	if dec.More() {
		return nil, &ParseError{Statement: -1, Msg: "not valid JSON: unexpected data after the document"}
	}
	return raw, nil
}

// FromJSON builds a document of the given kind from a decoded JSON value (as
// produced by encoding/json, with or without UseNumber). It lets documents
// embedded in larger JSON files be read without re-encoding them.
func FromJSON(raw any, kind Kind) (*Document, error) {
	top, ok := raw.(map[string]any)
	if !ok {
		return nil, &ParseError{Statement: -1, Msg: "a policy document must be a JSON object, got " + jsonType(raw)}
	}
	doc := &Document{}
	for _, k := range sortedKeys(top) {
		v := top[k]
		switch k {
		case "Version":
			s, ok := v.(string)
			if !ok || (s != Version2012 && s != Version2008) {
				return nil, inField(errAt("Version", `must be "2012-10-17" or "2008-10-17", got %s`, quote(v)), "Version")
			}
			doc.Version = s
		case "Id":
			s, ok := v.(string)
			if !ok {
				return nil, inField(errAt("Id", "must be a string, got %s", jsonType(v)), "Id")
			}
			doc.ID = s
		case "Statement":
		default:
			return nil, inField(errAt(k, "unknown element; a document has Version, Id and Statement"), k)
		}
	}
	st, ok := top["Statement"]
	if !ok {
		return nil, inField(errAt("Statement", "missing; a document needs at least one statement"), "Statement")
	}
	switch s := st.(type) {
	case map[string]any:
		stmt, err := parseStatement(s, "Statement", kind, doc.Version == Version2012)
		if err != nil {
			return nil, inStatement(err, 0)
		}
		doc.Statements = []Statement{stmt}
		doc.SingleStatement = true
	case []any:
		doc.Statements = make([]Statement, 0, len(s))
		for i, e := range s {
			path := fmt.Sprintf("Statement[%d]", i)
			m, ok := e.(map[string]any)
			if !ok {
				return nil, inStatement(errAt(path, "must be an object, got %s", jsonType(e)), i)
			}
			stmt, err := parseStatement(m, path, kind, doc.Version == Version2012)
			if err != nil {
				return nil, inStatement(err, i)
			}
			doc.Statements = append(doc.Statements, stmt)
		}
	default:
		return nil, inField(errAt("Statement", "must be an object or an array of objects, got %s", jsonType(st)), "Statement")
	}
	return doc, nil
}

func parseStatement(m map[string]any, path string, kind Kind, vars bool) (Statement, error) {
	var s Statement
	for _, k := range sortedKeys(m) {
		if err := parseElement(&s, k, m[k], path+"."+k, vars); err != nil {
			return s, inField(err, k)
		}
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	return s, checkStatementShape(&s, has, path, kind)
}

// parseElement sets the element k of a statement from its JSON value v.
func parseElement(s *Statement, k string, v any, p string, vars bool) error {
	var err error
	switch k {
	case "Sid":
		sid, ok := v.(string)
		if !ok {
			return errAt(p, "must be a string, got %s", jsonType(v))
		}
		s.Sid = sid
	case "Effect":
		e, _ := v.(string)
		if e != string(Allow) && e != string(Deny) {
			return errAt(p, `must be "Allow" or "Deny", got %s`, quote(v))
		}
		s.Effect = Effect(e)
	case "Action", "NotAction":
		var list []string
		if list, err = stringList(v, p); err != nil {
			return err
		}
		for i, a := range list {
			if err := checkAction(a); err != nil {
				return errAt(elemPath(p, v, i), "%s", err)
			}
		}
		if k == "Action" {
			s.Action = list
			s.Singles |= singleIf(v, SingleAction)
		} else {
			s.NotAction = list
			s.Singles |= singleIf(v, SingleNotAction)
		}
	case "Resource", "NotResource":
		var list []string
		if list, err = stringList(v, p); err != nil {
			return err
		}
		for i, r := range list {
			if err := checkResource(r); err != nil {
				return errAt(elemPath(p, v, i), "%s", err)
			}
			if err := checkResourceVars(r, vars); err != nil {
				return errAt(elemPath(p, v, i), "%s", err)
			}
		}
		if k == "Resource" {
			s.Resource = list
			s.Singles |= singleIf(v, SingleResource)
		} else {
			s.NotResource = list
			s.Singles |= singleIf(v, SingleNotResource)
		}
	case "Principal", "NotPrincipal":
		pr, err := parsePrincipal(v, p)
		if err != nil {
			return err
		}
		if k == "Principal" {
			s.Principal = pr
		} else {
			s.NotPrincipal = pr
		}
	case "Condition":
		if s.Conditions, err = parseConditions(v, p, vars); err != nil {
			return err
		}
	default:
		return errAt(p, "unknown element; a statement has Sid, Effect, Principal, NotPrincipal, Action, NotAction, Resource, NotResource and Condition")
	}
	return nil
}

// checkStatementShape enforces which elements a statement of this kind must
// and must not have.
// has tells whether the statement has an element.
func checkStatementShape(s *Statement, has func(string) bool, path string, kind Kind) error {
	if !has("Effect") {
		return errAt(path, `missing Effect; add "Effect": "Allow" or "Effect": "Deny"`)
	}
	switch {
	case has("Action") && has("NotAction"):
		return errAt(path, "has both Action and NotAction; keep one")
	case !has("Action") && !has("NotAction"):
		return errAt(path, "missing Action; add Action or NotAction")
	case has("Resource") && has("NotResource"):
		return errAt(path, "has both Resource and NotResource; keep one")
	case has("Principal") && has("NotPrincipal"):
		return errAt(path, "has both Principal and NotPrincipal; keep one")
	}
	if kind.namesPrincipals() {
		if !has("Principal") && !has("NotPrincipal") {
			return errAt(path, "missing Principal; a %s policy must name who it applies to", kind)
		}
		if has("NotPrincipal") && s.Effect == Allow {
			return inField(errAt(path+".NotPrincipal", `can only be used with "Effect": "Deny"; name principals with Principal instead`), "NotPrincipal")
		}
	} else {
		for _, k := range []string{"Principal", "NotPrincipal"} {
			if has(k) {
				return inField(errAt(path+"."+k, "not allowed in a %s policy, which applies to the principal it is attached to; remove it", kind), k)
			}
		}
	}
	needsResource := kind != Trust
	if needsResource && !has("Resource") && !has("NotResource") {
		return errAt(path, `missing Resource; add "Resource": "*" or the ARNs this statement covers`)
	}
	return nil
}

func parsePrincipal(v any, path string) (*Principal, error) {
	if s, ok := v.(string); ok {
		if s != "*" {
			return nil, errAt(path, `must be "*" or an object such as {"AWS": "arn:aws:iam::111122223333:root"}, got %q`, s)
		}
		return &Principal{Wildcard: true}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errAt(path, `must be "*" or an object with AWS, Service, Federated or CanonicalUser, got %s`, jsonType(v))
	}
	if len(m) == 0 {
		return nil, errAt(path, "is empty; name at least one principal")
	}
	p := &Principal{}
	for _, k := range sortedKeys(m) {
		list, err := stringList(m[k], path+"."+k)
		if err != nil {
			return nil, err
		}
		for i, e := range list {
			if e == "" {
				return nil, errAt(elemPath(path+"."+k, m[k], i), "is empty")
			}
		}
		switch k {
		case "AWS":
			p.AWS = list
			p.Singles |= singleIf(m[k], SingleAWS)
		case "Service":
			p.Service = list
			p.Singles |= singleIf(m[k], SingleService)
		case "Federated":
			p.Federated = list
			p.Singles |= singleIf(m[k], SingleFederated)
		case "CanonicalUser":
			p.CanonicalUser = list
			p.Singles |= singleIf(m[k], SingleCanonicalUser)
		default:
			return nil, errAt(path+"."+k, "unknown principal type; use AWS, Service, Federated or CanonicalUser")
		}
	}
	return p, nil
}

func parseConditions(v any, path string, vars bool) ([]Condition, error) {
	ops, ok := v.(map[string]any)
	if !ok {
		return nil, errAt(path, `must be an object such as {"StringEquals": {"aws:username": "alice"}}, got %s`, jsonType(v))
	}
	var out []Condition
	for _, op := range sortedKeys(ops) {
		p := path + "." + op
		if _, err := parseOperator(op); err != nil {
			return nil, errAt(p, "%s", err)
		}
		keys, ok := ops[op].(map[string]any)
		if !ok {
			return nil, errAt(p, `must be an object of condition keys to values, such as {"aws:username": "alice"}, got %s`, jsonType(ops[op]))
		}
		if len(keys) == 0 {
			return nil, errAt(p, "has no condition keys; add one or remove the operator")
		}
		for _, key := range sortedKeys(keys) {
			kp := p + "." + key
			if key == "" {
				return nil, errAt(kp, "condition key name is empty")
			}
			c, err := conditionValues(keys[key], kp)
			if err != nil {
				return nil, err
			}
			c.Operator, c.Key = op, key
			// Compile once here so that bad values are reported with their path.
			if _, err := compileCondition(c, vars); err != nil {
				return nil, errAt(kp, "%s", err)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// conditionValues accepts a string, number or boolean, or an array of them,
// and returns them as a Condition's Values with how they were written.
func conditionValues(v any, path string) (Condition, error) {
	var c Condition
	add := func(e any, p string) error {
		s, unquoted := "", true
		switch x := e.(type) {
		case string:
			s, unquoted = x, false
		case json.Number:
			s = x.String()
		case float64:
			s = fmt.Sprint(x)
		case bool:
			s = "false"
			if x {
				s = "true"
			}
		default:
			return errAt(p, "must be a string, number or boolean, got %s", jsonType(e))
		}
		c.Values = append(c.Values, s)
		if unquoted && c.Unquoted == nil {
			c.Unquoted = make([]bool, len(c.Values)-1, cap(c.Values))
		}
		if c.Unquoted != nil {
			c.Unquoted = append(c.Unquoted, unquoted)
		}
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		c.Single = true
		return c, add(v, path)
	}
	if len(arr) == 0 {
		return c, errAt(path, "has no values; give at least one")
	}
	c.Values = make([]string, 0, len(arr))
	for i, e := range arr {
		if err := add(e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return c, err
		}
	}
	return c, nil
}

// singleIf is single when v, a decoded JSON value, is a string rather than an
// array.
func singleIf(v any, single Singles) Singles {
	if _, ok := v.(string); ok {
		return single
	}
	return 0
}

// stringList accepts a string or a non-empty array of strings.
func stringList(v any, path string) ([]string, error) {
	switch x := v.(type) {
	case string:
		return []string{x}, nil
	case []any:
		if len(x) == 0 {
			return nil, errAt(path, "is an empty array; give at least one value")
		}
		out := make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, errAt(fmt.Sprintf("%s[%d]", path, i), "must be a string, got %s", jsonType(e))
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, errAt(path, "must be a string or an array of strings, got %s", jsonType(v))
}

// checkAction accepts "*" or "service:action" where the action may hold * and ?.
func checkAction(a string) error {
	if a == "*" {
		return nil
	}
	svc, name, ok := strings.Cut(a, ":")
	if !ok || svc == "" || name == "" {
		return fmt.Errorf(`must be "*" or "service:action" such as "s3:GetObject", got %q`, a)
	}
	for _, r := range svc {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '*' || r == '?') {
			return fmt.Errorf("service prefix %q has %q; use letters, digits and -", svc, r)
		}
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '*' || r == '?' || r == '.') {
			return fmt.Errorf("action name %q has %q; use letters, digits, * and ?", name, r)
		}
	}
	return nil
}

// checkResourceVars checks the policy variables of a resource ARN by
// compiling it, so that a bad one is reported with its path; only a
// variable can make compiling fail.
func checkResourceVars(r string, vars bool) error {
	if !vars || !strings.Contains(r, "${") {
		return nil
	}
	_, err := compileARNPattern(r, vars)
	return err
}

// checkResource accepts "*" or an ARN with its six colon-separated parts.
func checkResource(r string) error {
	if r == "*" {
		return nil
	}
	if !strings.HasPrefix(r, "arn:") {
		return fmt.Errorf(`must be "*" or an ARN starting with "arn:", got %q`, r)
	}
	if strings.Count(r, ":") < 5 {
		return fmt.Errorf("ARN %q has fewer than six parts; write arn:partition:service:region:account:resource", r)
	}
	return nil
}

// elemPath is path[i] when v was an array and path when it was a single value.
func elemPath(path string, v any, i int) string {
	if _, ok := v.([]any); ok {
		return fmt.Sprintf("%s[%d]", path, i)
	}
	return path
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return jsonType(v)
}

func nonSpaceLen(data []byte) int {
	n := 0
	for _, r := range string(data) {
		switch r {
		case ' ', '\t', '\n', '\r':
		default:
			n++
		}
	}
	return n
}

// jsonErrorText adds a line and column to encoding/json's syntax errors.
func jsonErrorText(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 {
		return err.Error()
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("%s (line %d, column %d)", err, line, col)
}
