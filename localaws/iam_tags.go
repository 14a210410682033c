package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// taggedKind is an entity IAM tags with Tag{Noun}, Untag{Noun} and
// List{Noun}Tags: the three actions differ between kinds only in the noun,
// the parameter naming the entity and how it is found.
type taggedKind struct {
	noun  string // as in TagUser, TagRole, TagPolicy, TagOpenIDConnectProvider
	param string // the parameter naming the entity: a name or an ARN
	on    func(extra ...keysFunc) func(*call) (target, error)
	store store.Tagged
	// tags reads the entity's tags for List{Noun}Tags.
	tags func(tx *store.Tx, id string) (store.Tags, error)
}

var (
	userTags = taggedKind{noun: "User", param: "UserName", on: onUser, store: store.TaggedUser,
		tags: func(tx *store.Tx, name string) (store.Tags, error) {
			u, err := tx.GetUser(name)
			return u.Tags, err
		}}
	roleTags = taggedKind{noun: "Role", param: "RoleName", on: onRole, store: store.TaggedRole,
		tags: func(tx *store.Tx, name string) (store.Tags, error) {
			r, err := tx.GetRole(name)
			return r.Tags, err
		}}
	// policyTags reads through getPolicy, so ListPolicyTags answers for an
	// AWS managed policy (with no tags), which TagPolicy cannot change.
	policyTags = taggedKind{noun: "Policy", param: "PolicyArn", store: store.TaggedPolicy,
		on: func(extra ...keysFunc) func(*call) (target, error) { return onARN("PolicyArn", extra...) },
		tags: func(tx *store.Tx, arn string) (store.Tags, error) {
			p, err := getPolicy(tx, arn)
			return p.Tags, err
		}}
	oidcProviderTags = taggedKind{noun: "OpenIDConnectProvider", param: providerARNParam, store: store.TaggedOIDCProvider,
		on: func(extra ...keysFunc) func(*call) (target, error) { return onARN(providerARNParam, extra...) },
		tags: func(tx *store.Tx, arn string) (store.Tags, error) {
			p, err := tx.GetOIDCProvider(arn)
			return p.Tags, err
		}}
)

// tagOperations adds Tag{Noun}, Untag{Noun} and List{Noun}Tags for k.
func tagOperations(ops map[string]operation, k taggedKind) {
	ops["Tag"+k.noun] = operation{
		target: k.on(requestTags),
		run: func(c *call) (any, error) {
			id, err := c.required(k.param)
			if err != nil {
				return nil, err
			}
			tags, err := c.tags("Tags")
			if err != nil {
				return nil, err
			}
			if tags == nil {
				return nil, c.q.Invalid("Tags", "Member must not be null")
			}
			_, err = c.tx.Tag(k.store, id, storeTags(tags))
			return nil, err
		},
	}
	ops["Untag"+k.noun] = operation{
		target: k.on(removedTagKeys),
		run: func(c *call) (any, error) {
			id, err := c.required(k.param)
			if err != nil {
				return nil, err
			}
			keys, err := c.requiredList("TagKeys")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.Untag(k.store, id, keys)
			return nil, err
		},
	}
	ops["List"+k.noun+"Tags"] = operation{
		readOnly: true,
		target:   k.on(),
		run: func(c *call) (any, error) {
			id, err := c.required(k.param)
			if err != nil {
				return nil, err
			}
			tags, err := k.tags(c.tx, id)
			if err != nil {
				return nil, err
			}
			return listTags(c, tags)
		},
	}
}

// listTagsResult is the result of List{Noun}Tags.
type listTagsResult struct {
	Tags        []query.Tag `xml:"Tags>member"`
	IsTruncated bool        `xml:"IsTruncated"`
	Marker      string      `xml:"Marker,omitempty"`
}

// listTags pages an entity's tags.
func listTags(c *call, ts store.Tags) (any, error) {
	page, marker, err := paged(c, []query.Tag(tagsOf(ts)))
	if err != nil {
		return nil, err
	}
	return listTagsResult{Tags: append([]query.Tag{}, page...), IsTruncated: marker != "", Marker: marker}, nil
}
