package localaws

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The JSON of tokens, key sets and discovery documents is read by exact
// member names. Go's encoding/json matches a struct field's name without
// case, so a claim "Exp" would set exp and "Sub" sub; but JWT claim names
// (RFC 7519 §4), JOSE header parameter names (RFC 7515 §4) and JWK
// parameter names (RFC 7517 §4) are case-sensitive. A name given twice is
// refused, as RFC 7515 §4 and RFC 7519 §4 allow: which of the two counts
// would otherwise be the parser's choice, not the issuer's.

// b64url is the base64url STS reads: unpadded, and strict, so that trailing
// bits must be zero.
var b64url = base64.RawURLEncoding.Strict()

// decodeBase64URL decodes s, which must be canonical unpadded base64url:
// the one encoding of its bytes, without padding, line breaks or trailing
// bits, so that one token has one form.
func decodeBase64URL(s string) ([]byte, error) {
	data, err := b64url.DecodeString(s)
	if err != nil || b64url.EncodeToString(data) != s {
		return nil, errors.New("is not canonical unpadded base64url")
	}
	return data, nil
}

// member is one JSON member to read: its exact name and where its value
// goes (a pointer that json.Unmarshal fills).
type member struct {
	name string
	into any
}

// decodeObject reads a JSON object into members by exact name, refusing a
// name given twice and anything after the object; members not listed are
// ignored. Errors say what is wrong without quoting a value.
func decodeObject(data []byte, members ...member) error {
	obj, err := exactObject(data)
	if err != nil {
		return err
	}
	for _, m := range members {
		raw, ok := obj[m.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, m.into); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				return fmt.Errorf("has a %s where %s belongs", typeErr.Value, m.name)
			}
			return errors.New("has a claim of the wrong type: " + err.Error())
		}
	}
	return nil
}

// exactObject splits a JSON object into its members, by name exactly as
// sent (after JSON unescaping), refusing a name given twice.
func exactObject(data []byte) (map[string]json.RawMessage, error) {
	notJSON := errors.New("is not JSON")
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("is a JSON %s, not an object", jsonKind(tok))
	}
	obj := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notJSON
		}
		name, _ := tok.(string) // an object's keys are strings
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, notJSON
		}
		if _, dup := obj[name]; dup {
			return nil, fmt.Errorf("names %q twice", truncate(name, 40))
		}
		obj[name] = value
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, notJSON
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("has data after its JSON object")
	}
	return obj, nil
}

// jsonKind names the JSON type of a first token, for messages.
func jsonKind(tok json.Token) string {
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '[' {
			return "array"
		}
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "value"
}

// truncate cuts s to at most n bytes, for messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
