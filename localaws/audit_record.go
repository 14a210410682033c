package localaws

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"leash.dev/leash/localaws/internal/query"
)

// A record's requestParameters and responseElements are the request's
// parameters and the operation's result as CloudTrail writes them for IAM
// and STS: each API name with a lower-case first letter (UserName becomes
// userName), lists as JSON arrays, numbers and booleans as JSON numbers and
// booleans, times as CloudTrail's "Mar 24, 2023, 9:22:50 PM". Both are
// derived from the wire: the Query parameters and the XML-tagged result
// struct that query.WriteResult writes, so that a new operation is
// recorded without code of its own. Secrets never are (secretNames).

// secretNames are the parameters and result fields a record never holds,
// whatever the operation: a password, the web identity token and SAML
// assertion a federated caller presents, an MFA code, and the secret half
// of a key or session. CloudTrail leaves the token and the assertion out of
// its records too (IAM User Guide, "Logging IAM and AWS STS API calls with
// AWS CloudTrail": the AssumeRoleWithWebIdentity and AssumeRoleWithSAML
// examples); its records do carry a session token, which leash local's do
// not, so that the log file holds nothing a caller could sign with.
var secretNames = map[string]bool{
	"Password":         true,
	"NewPassword":      true,
	"OldPassword":      true,
	"WebIdentityToken": true,
	"SAMLAssertion":    true,
	"TokenCode":        true,
	"SecretAccessKey":  true,
	"SessionToken":     true,
}

// typedParams are the parameters of the operations leash local serves whose
// API type is a number or a boolean; every other parameter is a string.
var typedParams = map[string]func(string) (any, bool){
	"DurationSeconds":       number,
	"MaxItems":              number,
	"MaxSessionDuration":    number,
	"AllUsers":              boolean,
	"OnlyAttached":          boolean,
	"PasswordResetRequired": boolean,
	"SetAsDefault":          boolean,
}

func number(v string) (any, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

func boolean(v string) (any, bool) {
	b, err := strconv.ParseBool(v)
	return b, err == nil
}

// cloudTrailTimeLayout is how CloudTrail writes a time inside
// responseElements, such as a user's createDate or a session's expiration.
const cloudTrailTimeLayout = "Jan 2, 2006, 3:04:05 PM"

// requestParameters is a Query request's parameters as CloudTrail records
// them, nil when it has none but Action and Version. A list parameter
// (Name.member.N, Name.member.N.Field) becomes an array of values or of
// objects.
func requestParameters(q *query.Request) json.RawMessage {
	if q == nil {
		return nil
	}
	root := map[string]any{}
	for name, value := range q.All() {
		if name == "Action" || name == "Version" || strings.HasPrefix(name, "X-Amz-") {
			continue
		}
		put(root, strings.Split(name, "."), value)
	}
	if len(root) == 0 {
		return nil
	}
	b, err := json.Marshal(arrays(root))
	if err != nil {
		return nil
	}
	return b
}

// put stores value at the wire path in tree. Lists are held as maps from
// index to element until arrays turns them into arrays. A path that
// contradicts an earlier one (a value and a list of the same name) keeps
// the first.
func put(tree map[string]any, path []string, value string) {
	name := path[0]
	if secretNames[name] {
		return
	}
	key := lowerFirst(name)
	rest := path[1:]
	if len(rest) >= 2 && rest[0] == "member" {
		index, err := strconv.Atoi(rest[1])
		if err != nil {
			return
		}
		list, ok := tree[key].(map[int]any)
		if !ok {
			if _, taken := tree[key]; taken {
				return
			}
			list = map[int]any{}
			tree[key] = list
		}
		if len(rest) == 2 {
			list[index] = value
			return
		}
		elem, ok := list[index].(map[string]any)
		if !ok {
			if _, taken := list[index]; taken {
				return
			}
			elem = map[string]any{}
			list[index] = elem
		}
		put(elem, rest[2:], value)
		return
	}
	if len(rest) > 0 {
		sub, ok := tree[key].(map[string]any)
		if !ok {
			if _, taken := tree[key]; taken {
				return
			}
			sub = map[string]any{}
			tree[key] = sub
		}
		put(sub, rest, value)
		return
	}
	if _, taken := tree[key]; taken {
		return
	}
	if typed, ok := typedParams[name]; ok {
		if v, ok := typed(value); ok {
			tree[key] = v
			return
		}
	}
	tree[key] = value
}

// arrays turns the index maps of put into arrays in index order.
func arrays(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = arrays(x)
		}
		return t
	case map[int]any:
		indexes := make([]int, 0, len(t))
		for i := range t {
			indexes = append(indexes, i)
		}
		slices.Sort(indexes)
		out := make([]any, len(indexes))
		for j, i := range indexes {
			out[j] = arrays(t[i])
		}
		return out
	}
	return v
}

// responseElements is an operation's result as CloudTrail records it: the
// result struct's elements under their XML names with a lower-case first
// letter. Nil for a result of nothing.
func responseElements(result any) json.RawMessage {
	if result == nil {
		return nil
	}
	v := resultJSON(reflect.ValueOf(result))
	if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
		return nil // a result with no elements, as UpdateRole's
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

var timestampType = reflect.TypeFor[query.Timestamp]()

// resultJSON is one value of a result, nil for what the XML would not
// write (a nil pointer, the zero time, an empty optional element).
func resultJSON(v reflect.Value) any {
	if v.Type() == timestampType {
		t := time.Time(v.Interface().(query.Timestamp))
		if t.IsZero() {
			return nil
		}
		return t.UTC().Format(cloudTrailTimeLayout)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return resultJSON(v.Elem())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint()
	case reflect.Slice, reflect.Array:
		out := make([]any, 0, v.Len())
		for i := range v.Len() {
			out = append(out, resultJSON(v.Index(i)))
		}
		return out
	case reflect.Struct:
		return structJSON(v)
	}
	return nil
}

// structJSON is a result struct as an object: each field under its XML
// path (a>b>member is b's list inside a), secrets left out.
func structJSON(v reflect.Value) map[string]any {
	out := map[string]any{}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("xml")
		if tag == "-" || strings.Contains(tag, ",attr") || strings.Contains(tag, ",chardata") {
			continue
		}
		path, opts, _ := strings.Cut(tag, ",")
		if path == "" {
			path = f.Name
		}
		parts := strings.Split(path, ">")
		if parts[len(parts)-1] == "member" {
			parts = parts[:len(parts)-1]
		}
		if slicesHasSecret(parts) {
			continue
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		val := resultJSON(fv)
		if val == nil {
			continue
		}
		node := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := node[lowerFirst(p)].(map[string]any)
			if !ok {
				sub = map[string]any{}
				node[lowerFirst(p)] = sub
			}
			node = sub
		}
		node[lowerFirst(parts[len(parts)-1])] = val
	}
	return out
}

func slicesHasSecret(parts []string) bool {
	for _, p := range parts {
		if secretNames[p] {
			return true
		}
	}
	return false
}

// lowerFirst spells an API name as CloudTrail's records do: UserName
// becomes userName, SAMLAssertionID sAMLAssertionID.
func lowerFirst(name string) string {
	if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return name
	}
	return string(name[0]+'a'-'A') + name[1:]
}

// jsonParameters are a JSON protocol request's parameters as CloudTrail
// records them: the body's members with a lower-case first letter; nil for
// an empty body.
func jsonParameters(body []byte) json.RawMessage {
	var doc map[string]any
	if json.Unmarshal(body, &doc) != nil || len(doc) == 0 {
		return nil
	}
	b, err := json.Marshal(lowerKeys(doc))
	if err != nil {
		return nil
	}
	return b
}

func lowerKeys(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if !secretNames[k] {
				out[lowerFirst(k)] = lowerKeys(x)
			}
		}
		return out
	case []any:
		for i, x := range t {
			t[i] = lowerKeys(x)
		}
	}
	return v
}
