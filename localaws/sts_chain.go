package localaws

import (
	"fmt"
	"net/http"
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// What a role session hands on to the sessions it assumes (role chaining),
// as STS does: its transitive session tags, which stay transitive and
// cannot be passed again with another value (IAM User Guide, "Passing
// session tags in AWS STS", "Chaining roles with session tags"), and its
// source identity, which cannot change (IAM User Guide, "Monitor and
// control actions taken with assumed roles").

// Messages STS answers a chained AssumeRole with, word for word.
const (
	transitiveOverrideMessage = "One of the specified transitive tag keys can't be set because it conflicts with a transitive tag key from the calling session."
	transitiveNotPassed       = "The specified transitive tag key must be included in the requested tags."
	sourceIdentityIsSet       = "The source identity is already set for this assume role session"
)

// invalidParameterValue is STS's InvalidParameterValue (400), its code for
// session tags that contradict each other or the calling session.
func invalidParameterValue(message string) *query.Error {
	return query.NewError(http.StatusBadRequest, "InvalidParameterValue", message)
}

// transitiveTags are the session's tags that pass on to the sessions it
// assumes.
func transitiveTags(s *store.Session) store.Tags {
	var out store.Tags
	for _, k := range s.TransitiveTagKeys {
		if v, ok := s.Tags.Get(k); ok {
			out = append(out, store.Tag{Key: k, Value: v})
		}
	}
	return out
}

// inherit takes into the request what the calling session hands on: its
// transitive tags and its source identity. A tag passed again under an
// inherited key (regardless of case) is refused, as is a source identity
// other than the inherited one; passing the same source identity again is
// allowed. Every transitive key the request names must be one of the tags
// it passes. caller is nil for long-term keys, which hand on nothing.
func (in *sessionRequest) inherit(caller *store.Session) error {
	for _, k := range in.transitiveKeys {
		if !passed(in.tags, k) {
			return invalidParameterValue(transitiveNotPassed)
		}
	}
	if caller == nil {
		return nil
	}
	in.inherited = transitiveTags(caller)
	for _, t := range in.inherited {
		if passed(in.tags, t.Key) {
			return invalidParameterValue(transitiveOverrideMessage)
		}
	}
	if n := len(in.inherited) + len(in.tags); len(in.inherited) > 0 && n > maxSessionTags {
		return query.ValidationError(fmt.Sprintf("The session would carry %d session tags, %d of them transitive tags inherited from the calling session: "+
			"a session carries at most %d. Pass fewer tags.", n, len(in.inherited), maxSessionTags))
	}
	if si := caller.SourceIdentity; si != "" {
		if in.sourceIdentity != "" && in.sourceIdentity != si {
			return query.ValidationError(sourceIdentityIsSet)
		}
		in.sourceIdentity = si
	}
	return nil
}

// passed reports whether the request passes a tag of key, compared without
// case.
func passed(tags []query.Tag, key string) bool {
	for _, t := range tags {
		if strings.EqualFold(t.Key, key) {
			return true
		}
	}
	return false
}

// sessionTags are the tags of the session the request issues, the
// inherited ones first, and the keys of those that are transitive: the
// inherited ones and those the request marks, spelled as the tags are.
func (in *sessionRequest) sessionTags() (store.Tags, []string) {
	tags := append(append(store.Tags(nil), in.inherited...), storeTags(in.tags)...)
	var keys []string
	for _, t := range in.inherited {
		keys = append(keys, t.Key)
	}
	for _, t := range in.tags {
		for _, k := range in.transitiveKeys {
			if strings.EqualFold(t.Key, k) {
				keys = append(keys, t.Key)
				break
			}
		}
	}
	return tags, keys
}
