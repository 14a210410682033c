package simulate

import (
	"encoding/json"
	"fmt"
	"strings"

	"leash.dev/leash/internal/inputerr"
)

// contextFromFlags turns repeated --context key=value flags into a Case's
// context. A key given once is a single value (a JSON string); a key given
// several times is multivalued (a JSON array), the only way to give
// ForAnyValue:/ForAllValues: more than one value from the command line. Key
// names are case-insensitive in IAM, so "aws:TagKeys" and "aws:tagkeys" are
// one key, spelled as first given.
func contextFromFlags(pairs []string) (map[string]json.RawMessage, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	var order []string              // keys as first spelled, in flag order
	spelling := map[string]string{} // lower-cased key -> first spelling
	values := map[string][]string{} // first spelling -> values in flag order
	for _, p := range pairs {
		key, value, ok := strings.Cut(p, "=")
		if !ok {
			return nil, &inputerr.Error{Source: "--context", Msg: fmt.Sprintf(
				"%q has no \"=\"; write key=value, such as --context aws:SourceIp=203.0.113.7 (key= gives an empty value)", p)}
		}
		if strings.TrimSpace(key) == "" {
			return nil, &inputerr.Error{Source: "--context", Msg: fmt.Sprintf(
				"%q has no key name before \"=\"; write key=value, such as --context aws:RequestedRegion=eu-north-1", p)}
		}
		lower := strings.ToLower(key)
		first, seen := spelling[lower]
		if !seen {
			first = key
			spelling[lower] = key
			order = append(order, key)
		}
		values[first] = append(values[first], value)
	}
	ctx := make(map[string]json.RawMessage, len(order))
	for _, key := range order {
		var v any = values[key]
		if len(values[key]) == 1 {
			v = values[key][0]
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, &inputerr.Error{Source: "--context", Field: key, Msg: err.Error()}
		}
		ctx[key] = raw
	}
	return ctx, nil
}
