package simulate

import (
	"encoding/json"

	"leash.dev/leash/policy"
)

// ReadPolicy reads one policy file given to flag, checked as each of kinds,
// with its errors naming the file and JSON path: the reader behind
// --resource-policy and the other single-file flags, for commands that take
// the same flags (leash who-can).
func ReadPolicy(flag, file string, kinds ...policy.Kind) (*policy.Named, error) {
	raw, err := readPolicyFile(flag, file, kinds...)
	if err != nil {
		return nil, err
	}
	doc, err := policy.Parse(raw, kinds[0])
	if err != nil {
		return nil, err // checked by readPolicyFile; not reached
	}
	return &policy.Named{Name: policyName(file), Document: doc}, nil
}

// ReadLevels reads --scp or --rcp as `leash simulate` takes them: each
// occurrence one organization level, root first, its files separated by
// commas.
func ReadLevels(flag string, occurrences []string, kind policy.Kind) ([][]policy.Named, error) {
	levels, err := readLevels(flag, occurrences, kind)
	if err != nil {
		return nil, err
	}
	out := make([][]policy.Named, len(levels))
	for i, level := range levels {
		for _, nd := range level {
			doc, err := policy.Parse(nd.Document, kind)
			if err != nil {
				return nil, err // checked by readLevels; not reached
			}
			out[i] = append(out[i], policy.Named{Name: nd.Name, Document: doc})
		}
	}
	return out, nil
}

// ContextValues reads repeated --context key=value flags as `leash
// simulate` does: a key given once has one value, a key given several times
// is multivalued.
func ContextValues(pairs []string) (map[string][]string, error) {
	raw, err := contextFromFlags(pairs)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(raw))
	for k, v := range raw {
		var one string
		if json.Unmarshal(v, &one) == nil {
			out[k] = []string{one}
			continue
		}
		var many []string
		if err := json.Unmarshal(v, &many); err != nil {
			return nil, err
		}
		out[k] = many
	}
	return out, nil
}
