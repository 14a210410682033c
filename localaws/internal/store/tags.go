package store

import (
	"fmt"
	"strings"
)

// Tag is a key and value on a user, role, policy, OIDC provider or session.
type Tag struct {
	Key   string
	Value string
}

// Tags are in the order they were first added. Keys are unique regardless of
// case: tagging an existing key again replaces its value and spelling.
type Tags []Tag

// Get returns the value of key, compared without case.
func (ts Tags) Get(key string) (string, bool) {
	for _, t := range ts {
		if strings.EqualFold(t.Key, key) {
			return t.Value, true
		}
	}
	return "", false
}

// merged is ts with add applied in order, as TagUser and the like do.
func (ts Tags) merged(add Tags) Tags {
	out := append(Tags(nil), ts...)
next:
	for _, a := range add {
		for i := range out {
			if strings.EqualFold(out[i].Key, a.Key) {
				out[i] = a
				continue next
			}
		}
		out = append(out, a)
	}
	return out
}

// without is ts less the given keys, compared without case, as UntagUser and
// the like do. Keys that are not there are ignored, as IAM does.
func (ts Tags) without(keys []string) Tags {
	out := Tags{}
	for _, t := range ts {
		drop := false
		for _, k := range keys {
			if strings.EqualFold(t.Key, k) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, t)
		}
	}
	return out
}

// check enforces IAM's tag rules: at most 50, keys unique regardless of
// case and not under the reserved aws: prefix, and the character sets.
func (ts Tags) check() error {
	if len(ts) > maxTags {
		return refuse(LimitExceeded, "The number of tags has reached the maximum limit of %d.", maxTags)
	}
	for i, t := range ts {
		field := fmt.Sprintf("tags.%d.member.key", i+1)
		if err := checkLength(field, t.Key, 1, maxTagKeyLen); err != nil {
			return err
		}
		if err := checkPattern(field, t.Key, tagKeyPattern); err != nil {
			return err
		}
		if strings.HasPrefix(strings.ToLower(t.Key), "aws:") {
			return refuse(InvalidInput, "Tag keys cannot start with the reserved prefix aws: (%s).", t.Key)
		}
		field = fmt.Sprintf("tags.%d.member.value", i+1)
		if err := checkLength(field, t.Value, 0, maxTagValueLen); err != nil {
			return err
		}
		if err := checkPattern(field, t.Value, tagValuePattern); err != nil {
			return err
		}
		for _, earlier := range ts[:i] {
			if strings.EqualFold(earlier.Key, t.Key) {
				return refuse(InvalidInput, "Duplicate tag keys found. Please note that Tag keys are case insensitive.")
			}
		}
	}
	return nil
}
