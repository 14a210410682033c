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

// Tags are in the order they were first added. Keys are unique; whether
// two keys that differ only in case are the same key depends on the kind
// of entity (Tagged.foldsKeys).
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

// Tagged is a kind of entity that Tag and Untag change. Sessions carry
// tags too, but set once when they are created.
type Tagged int

const (
	TaggedUser            Tagged = iota + 1 // named by its user name
	TaggedRole                              // named by its role name
	TaggedPolicy                            // a customer managed policy, named by its ARN
	TaggedOIDCProvider                      // named by its ARN
	TaggedInstanceProfile                   // named by its instance profile name
)

// foldsKeys reports whether the kind's tag keys compare without case. The
// IAM User Guide ("Tagging IAM resources", Case sensitivity) has tag keys
// not case sensitive for IAM users and roles (tagging Department=finance
// and then department=hr leaves one tag), and case sensitive for every
// other kind: a customer managed policy keeps both Costcenter and
// costcenter. Sessions take their role's or user's rule.
func (k Tagged) foldsKeys() bool { return k == TaggedUser || k == TaggedRole }

// sameKey compares two tag keys as a kind that does, or does not, fold
// case compares them.
func sameKey(a, b string, fold bool) bool {
	if fold {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Tag adds tags to the entity of kind k named by id, replacing the values
// of keys it has (compared as the kind compares keys, k.foldsKeys), and
// returns its tags. The request and the result must keep IAM's rules
// (Tags.check): a key twice in one request is refused rather than merged,
// and the entity keeps 50 tags at most.
func (tx *Tx) Tag(k Tagged, id string, tags Tags) (Tags, error) {
	fold := k.foldsKeys()
	return tx.retag(k, id, func(ts Tags) (Tags, error) {
		if err := tags.check(fold); err != nil {
			return nil, err
		}
		merged := ts.merged(tags, fold)
		return merged, merged.check(fold)
	})
}

// Untag removes tags from the entity of kind k named by id, by key compared
// as the kind compares keys, and returns its tags. Keys it does not have
// are ignored, as IAM does.
func (tx *Tx) Untag(k Tagged, id string, keys []string) (Tags, error) {
	fold := k.foldsKeys()
	return tx.retag(k, id, func(ts Tags) (Tags, error) { return ts.without(keys, fold), nil })
}

// retag replaces an entity's tags with what change makes of them, in the
// entity's own update so that a missing entity is its kind's NoSuchEntity.
func (tx *Tx) retag(k Tagged, id string, change func(Tags) (Tags, error)) (Tags, error) {
	var out Tags
	set := func(ts *Tags) error {
		next, err := change(*ts)
		if err != nil {
			return err
		}
		*ts, out = next, next
		return nil
	}
	var err error
	switch k {
	case TaggedUser:
		_, err = tx.updateUser(id, func(u *User) error { return set(&u.Tags) })
	case TaggedRole:
		_, err = tx.updateRole(id, func(r *Role) error { return set(&r.Tags) })
	case TaggedPolicy:
		_, err = tx.updatePolicy(id, func(p *ManagedPolicy) error { return set(&p.Tags) })
	case TaggedOIDCProvider:
		_, err = tx.updateOIDCProvider(id, func(p *OIDCProvider) error { return set(&p.Tags) })
	case TaggedInstanceProfile:
		_, err = tx.updateInstanceProfile(id, func(p *InstanceProfile) error { return set(&p.Tags) })
	default:
		return nil, fmt.Errorf("store: tags of unknown kind %d", k)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// merged is ts with add applied in order, as Tag does: a key the entity
// has (fold: in any case) takes the new value and spelling.
func (ts Tags) merged(add Tags, fold bool) Tags {
	out := append(Tags(nil), ts...)
next:
	for _, a := range add {
		for i := range out {
			if sameKey(out[i].Key, a.Key, fold) {
				out[i] = a
				continue next
			}
		}
		out = append(out, a)
	}
	return out
}

// without is ts less the given keys (fold: in any case), as Untag does.
// Keys that are not there are ignored, as IAM does.
func (ts Tags) without(keys []string, fold bool) Tags {
	out := Tags{}
	for _, t := range ts {
		drop := false
		for _, k := range keys {
			if sameKey(t.Key, k, fold) {
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

// check enforces IAM's tag rules: at most 50, keys unique (fold: regardless
// of case), keys and values not under the reserved aws: prefix, and the
// character sets.
func (ts Tags) check(fold bool) error {
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
		if hasReservedPrefix(t.Key) {
			return refuse(InvalidInput, "Tag keys cannot start with the reserved prefix aws: (%s).", t.Key)
		}
		field = fmt.Sprintf("tags.%d.member.value", i+1)
		if err := checkLength(field, t.Value, 0, maxTagValueLen); err != nil {
			return err
		}
		if err := checkPattern(field, t.Value, tagValuePattern); err != nil {
			return err
		}
		// The IAM User Guide reserves aws: for values too ("You cannot
		// create a tag key or value that begins with the text aws:"),
		// though the API reference's value pattern allows it; leash local
		// follows the guide, as it does for keys.
		if hasReservedPrefix(t.Value) {
			return refuse(InvalidInput, "Tag values cannot start with the reserved prefix aws: (%s=%s).", t.Key, t.Value)
		}
		for _, earlier := range ts[:i] {
			if sameKey(earlier.Key, t.Key, fold) {
				return refuse(InvalidInput, "Duplicate tag keys found. Please note that Tag keys are case insensitive.")
			}
		}
	}
	return nil
}

// hasReservedPrefix reports whether a tag key or value begins with aws:, in
// any case, which IAM keeps for AWS's own use.
func hasReservedPrefix(s string) bool {
	return len(s) >= 4 && strings.EqualFold(s[:4], "aws:")
}
