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

// ErrLastTrustStatement refuses to empty a trust policy. IAM rejects a
// policy with no statements as MalformedPolicyDocument, and a role nobody
// may assume is better deleted, or left to the session deny, than kept
// with an unusable trust.
var ErrLastTrustStatement = fmt.Errorf("removing these --trust values leaves the trust policy with no statement, which IAM refuses (MalformedPolicyDocument); delete the role (aws iam delete-role) or keep its trust and rely on the session deny")

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
// principal ARN and every OIDC sub value, sorted, each once.
func TrustValues(trust string) ([]string, error) {
	doc, err := parseTrust(trust)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, st := range doc.statements {
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
		out = append(out, v)
	}
	sort.Strings(out)
	return out, nil
}

// RemoveTrust returns the trust policy without the given AWS principal ARNs
// and OIDC sub values. A statement left with nothing to match (no
// principal, or a sub condition with no value) is removed, since dropping
// only the emptied element would widen it. A value the policy does not
// hold is bad input: the error lists what it holds. A result with no
// statement is ErrLastTrustStatement.
func RemoveTrust(trust string, values []string) (string, error) {
	have, err := TrustValues(trust)
	if err != nil {
		return "", err
	}
	for _, v := range values {
		if !slices.Contains(have, v) {
			return "", &inputerr.Error{Source: "--trust", Msg: fmt.Sprintf("%q is not in the role's trust policy; it names %s", v, listOrNone(have))}
		}
	}
	doc, err := parseTrust(trust)
	if err != nil {
		return "", err
	}
	var kept []any
	for _, st := range doc.statements {
		if removeFromStatement(st, values) {
			kept = append(kept, st)
		}
	}
	if len(kept) == 0 {
		return "", ErrLastTrustStatement
	}
	doc.raw["Statement"] = kept
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "&", "<" and ">" readable in ARNs and subs
	if err := enc.Encode(doc.raw); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
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
