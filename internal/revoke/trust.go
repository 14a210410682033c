package revoke

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"leash.dev/leash/internal/inputerr"
)

// TrustTag is the tag leash revoke puts on a role before it removes value
// from the role's trust policy: the record of intent that lets a second
// run of the same command tell a value it already removed (done) from one
// the policy never held (a mistake, refused). Tag values may not hold the
// "*" of a StringLike sub, so the key carries a hash of the value.
func TrustTag(value string) string {
	sum := sha256.Sum256([]byte(value))
	return "leash.dev/revoked-trust-" + hex.EncodeToString(sum[:8])
}

// subConditions are the operators whose *:sub values --trust removes: the
// ones a web-identity trust (GitHub's OIDC, for one) pins its subject with.
var subConditions = []string{"StringEquals", "StringLike"}

// TrustValues lists what --trust can remove from a trust policy: every AWS
// principal ARN and every OIDC sub value of its Allow statements, sorted,
// each once, but those a Deny statement RemoveTrust added refuses already.
func TrustValues(trust string) ([]string, error) {
	doc, err := parseTrust(trust)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var denySids []string
	for _, st := range doc.statements {
		if st["Effect"] != "Allow" {
			if sid, ok := st["Sid"].(string); ok {
				denySids = append(denySids, sid)
			}
			continue
		}
		for _, v := range stringsOf(principalAWS(st)) {
			seen[v] = true
		}
		for _, vals := range subValues(st) {
			for _, v := range vals {
				seen[v] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		if !slices.ContainsFunc(denySids, func(sid string) bool { return strings.HasPrefix(sid, denySid(v)) }) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}

// RemoveTrust returns the trust policy without the given AWS principal ARNs
// and OIDC sub values in its Allow statements. A statement left with
// nothing to match (no principal, or a sub condition with no value) is
// removed, since dropping only the emptied element would widen it. A value
// the policy does not hold is bad input: the error lists what it holds.
//
// IAM refuses a trust policy without a statement, and one without an
// Allow could be taken for a role nobody meant to close. When no Allow
// statement would be left, the statements stay as they are and a Deny
// statement per value is added instead (denied is true): an explicit deny
// in a trust policy refuses the session whatever allows it.
func RemoveTrust(trust string, values []string) (out string, denied bool, err error) {
	have, err := TrustValues(trust)
	if err != nil {
		return "", false, err
	}
	for _, v := range values {
		if !slices.Contains(have, v) {
			return "", false, &inputerr.Error{Source: "--trust", Msg: fmt.Sprintf("%q is not in the role's trust policy; it names %s", v, listOrNone(have))}
		}
	}
	doc, err := parseTrust(trust)
	if err != nil {
		return "", false, err
	}
	var kept []any
	allows := 0
	for _, st := range doc.statements {
		if st["Effect"] != "Allow" {
			kept = append(kept, st)
			continue
		}
		if removeFromStatement(st, values) {
			kept = append(kept, st)
			allows++
		}
	}
	if allows == 0 {
		if doc, err = parseTrust(trust); err != nil {
			return "", false, err
		}
		kept = nil
		for _, st := range doc.statements {
			kept = append(kept, st)
		}
		for _, v := range values {
			kept = append(kept, denyStatements(doc, v)...)
		}
		denied = true
	}
	doc.raw["Statement"] = kept
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "&", "<" and ">" readable in ARNs and subs
	if err := enc.Encode(doc.raw); err != nil {
		return "", false, err
	}
	return strings.TrimSpace(b.String()), denied, nil
}

// denySid is the start of the Sid of the Deny statements RemoveTrust adds
// for value.
func denySid(value string) string {
	return "LeashRevokedTrust" + strings.TrimPrefix(TrustTag(value), "leash.dev/revoked-trust-")
}

// denyStatements are the Deny statements that refuse value a session: for
// an AWS principal, sts:AssumeRole by it; for a sub value, every provider
// and operator an Allow statement admitted it with. The Sid carries the
// value's hash, as TrustTag's key does.
func denyStatements(doc trustDoc, value string) []any {
	sid := denySid(value)
	var out []any
	seen := map[string]bool{}
	add := func(st map[string]any) {
		b, _ := json.Marshal(st) // maps of strings cannot fail to encode
		if !seen[string(b)] {
			seen[string(b)] = true
			st["Sid"] = fmt.Sprintf("%s%d", sid, len(out))
			out = append(out, st)
		}
	}
	for _, st := range doc.statements {
		if st["Effect"] != "Allow" {
			continue
		}
		if slices.Contains(stringsOf(principalAWS(st)), value) {
			add(map[string]any{"Effect": "Deny", "Principal": map[string]any{"AWS": value}, "Action": "sts:AssumeRole"})
		}
		p, _ := st["Principal"].(map[string]any)
		for opKey, vals := range subValues(st) {
			if !slices.Contains(vals, value) {
				continue
			}
			op, key, _ := strings.Cut(opKey, " ")
			add(map[string]any{"Effect": "Deny", "Principal": map[string]any{"Federated": p["Federated"]},
				"Action": "sts:AssumeRoleWithWebIdentity", "Condition": map[string]any{op: map[string]any{key: value}}})
		}
	}
	return out
}

// removeFromStatement removes values from one statement in place and says
// whether the statement still matches anyone.
func removeFromStatement(st map[string]any, values []string) bool {
	if p, ok := st["Principal"].(map[string]any); ok {
		if aws, ok := p["AWS"]; ok {
			left := without(stringsOf(aws), values)
			if len(left) == len(stringsOf(aws)) {
				// untouched
			} else if len(left) == 0 {
				delete(p, "AWS")
				if len(p) == 0 {
					return false
				}
			} else {
				p["AWS"] = asJSONList(left)
			}
		}
	}
	cond, _ := st["Condition"].(map[string]any)
	for _, op := range subConditions {
		keys, _ := cond[op].(map[string]any)
		for k, v := range keys {
			if !isSubKey(k) {
				continue
			}
			left := without(stringsOf(v), values)
			if len(left) == 0 {
				return false
			}
			if len(left) != len(stringsOf(v)) {
				keys[k] = asJSONList(left)
			}
		}
	}
	return true
}

type trustDoc struct {
	raw        map[string]any
	statements []map[string]any
}

func parseTrust(trust string) (trustDoc, error) {
	dec := json.NewDecoder(strings.NewReader(trust))
	dec.UseNumber()
	var doc trustDoc
	if err := dec.Decode(&doc.raw); err != nil {
		return doc, fmt.Errorf("the role's trust policy is not JSON: %v", err)
	}
	switch s := doc.raw["Statement"].(type) {
	case map[string]any:
		doc.statements = []map[string]any{s}
	case []any:
		for i, e := range s {
			m, ok := e.(map[string]any)
			if !ok {
				return doc, fmt.Errorf("the role's trust policy: Statement[%d] is not an object", i)
			}
			doc.statements = append(doc.statements, m)
		}
	default:
		return doc, fmt.Errorf("the role's trust policy has no Statement")
	}
	return doc, nil
}

func principalAWS(st map[string]any) any {
	if p, ok := st["Principal"].(map[string]any); ok {
		return p["AWS"]
	}
	return nil
}

// subValues are a statement's *:sub condition values, by operator and key.
func subValues(st map[string]any) map[string][]string {
	out := map[string][]string{}
	cond, _ := st["Condition"].(map[string]any)
	for _, op := range subConditions {
		keys, _ := cond[op].(map[string]any)
		for k, v := range keys {
			if isSubKey(k) {
				out[op+" "+k] = stringsOf(v)
			}
		}
	}
	return out
}

// isSubKey is an OIDC provider's subject key, such as
// token.actions.githubusercontent.com:sub.
func isSubKey(k string) bool { return strings.HasSuffix(strings.ToLower(k), ":sub") }

// stringsOf reads an IAM value that is a string or a list of strings.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func without(have, drop []string) []string {
	var out []string
	for _, h := range have {
		if !slices.Contains(drop, h) {
			out = append(out, h)
		}
	}
	return out
}

// asJSONList writes one value as a string, as IAM shows it, and more as a
// list.
func asJSONList(vs []string) any {
	if len(vs) == 1 {
		return vs[0]
	}
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func listOrNone(vs []string) string {
	if len(vs) == 0 {
		return "no AWS principal ARN and no OIDC sub value"
	}
	return strings.Join(vs, ", ")
}
