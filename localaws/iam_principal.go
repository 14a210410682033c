package localaws

import (
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// principalKind is what users and roles have in common: tags and inline
// policies, under action names that differ only in the noun.
type principalKind struct {
	noun      string // "User" or "Role", as in TagUser and TagRole
	nameParam string // "UserName" or "RoleName"
	on        func(extra ...keysFunc) func(*call) (target, error)
	get       func(tx *store.Tx, name string) (store.Tags, store.Permissions, error)
	tag       func(tx *store.Tx, name string, tags store.Tags) error
	untag     func(tx *store.Tx, name string, keys []string) error
	put       func(tx *store.Tx, name, policyName, document string) error
	delete    func(tx *store.Tx, name, policyName string) error
}

var userKind = principalKind{
	noun: "User", nameParam: "UserName", on: onUser,
	get: func(tx *store.Tx, name string) (store.Tags, store.Permissions, error) {
		u, err := tx.GetUser(name)
		return u.Tags, u.Permissions, err
	},
	tag:   func(tx *store.Tx, name string, tags store.Tags) error { _, err := tx.TagUser(name, tags); return err },
	untag: func(tx *store.Tx, name string, keys []string) error { _, err := tx.UntagUser(name, keys); return err },
	put: func(tx *store.Tx, name, policyName, doc string) error {
		_, err := tx.PutUserPolicy(name, policyName, doc)
		return err
	},
	delete: func(tx *store.Tx, name, policyName string) error {
		_, err := tx.DeleteUserPolicy(name, policyName)
		return err
	},
}

var roleKind = principalKind{
	noun: "Role", nameParam: "RoleName", on: onRole,
	get: func(tx *store.Tx, name string) (store.Tags, store.Permissions, error) {
		r, err := tx.GetRole(name)
		return r.Tags, r.Permissions, err
	},
	tag:   func(tx *store.Tx, name string, tags store.Tags) error { _, err := tx.TagRole(name, tags); return err },
	untag: func(tx *store.Tx, name string, keys []string) error { _, err := tx.UntagRole(name, keys); return err },
	put: func(tx *store.Tx, name, policyName, doc string) error {
		_, err := tx.PutRolePolicy(name, policyName, doc)
		return err
	},
	delete: func(tx *store.Tx, name, policyName string) error {
		_, err := tx.DeleteRolePolicy(name, policyName)
		return err
	},
}

// principalTagOperations adds Tag{Noun}, Untag{Noun} and List{Noun}Tags.
func principalTagOperations(ops map[string]operation, k principalKind) {
	ops["Tag"+k.noun] = operation{
		target: k.on(requestTags),
		run: func(c *call) (any, error) {
			name, err := c.required(k.nameParam)
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
			return nil, k.tag(c.tx, name, storeTags(tags))
		},
	}
	ops["Untag"+k.noun] = operation{
		target: k.on(removedTagKeys),
		run: func(c *call) (any, error) {
			name, err := c.required(k.nameParam)
			if err != nil {
				return nil, err
			}
			keys, err := c.requiredList("TagKeys")
			if err != nil {
				return nil, err
			}
			return nil, k.untag(c.tx, name, keys)
		},
	}
	ops["List"+k.noun+"Tags"] = operation{
		readOnly: true,
		target:   k.on(),
		run: func(c *call) (any, error) {
			name, err := c.required(k.nameParam)
			if err != nil {
				return nil, err
			}
			tags, _, err := k.get(c.tx, name)
			if err != nil {
				return nil, err
			}
			return listTags(c, tags)
		},
	}
}

// inlinePolicyOperations adds Put{Noun}Policy, List{Noun}Policies and
// Delete{Noun}Policy; Get{Noun}Policy names its owner in its result and is
// defined with each kind.
func inlinePolicyOperations(ops map[string]operation, k principalKind) {
	ops["Put"+k.noun+"Policy"] = operation{
		target: k.on(currentBoundary),
		run: func(c *call) (any, error) {
			name, policyName, err := c.requiredPair(k.nameParam, "PolicyName")
			if err != nil {
				return nil, err
			}
			doc, err := c.document("PolicyDocument", policy.Identity)
			if err != nil {
				return nil, err
			}
			return nil, k.put(c.tx, name, policyName, doc)
		},
	}
	ops["List"+k.noun+"Policies"] = operation{
		readOnly: true,
		target:   k.on(),
		run: func(c *call) (any, error) {
			name, err := c.required(k.nameParam)
			if err != nil {
				return nil, err
			}
			_, perms, err := k.get(c.tx, name)
			if err != nil {
				return nil, err
			}
			return listInlinePolicies(c, perms)
		},
	}
	ops["Delete"+k.noun+"Policy"] = operation{
		target: k.on(currentBoundary),
		run: func(c *call) (any, error) {
			name, policyName, err := c.requiredPair(k.nameParam, "PolicyName")
			if err != nil {
				return nil, err
			}
			return nil, k.delete(c.tx, name, policyName)
		},
	}
}
