package localaws

import (
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// principalKind is what users, roles and groups have in common: inline
// and attached managed policies, under action names that differ only in the
// noun. Their tags are taggedKinds, with managed policies' and OIDC
// providers'.
type principalKind struct {
	noun      string // "User", "Role" or "Group", as in PutUserPolicy and PutRolePolicy
	nameParam string // "UserName", "RoleName" or "GroupName"
	on        func(extra ...keysFunc) func(*call) (target, error)
	get       func(tx *store.Tx, name string) (store.Tags, store.Permissions, error)
	put       func(tx *store.Tx, name, policyName, document string) error
	delete    func(tx *store.Tx, name, policyName string) error
	// attach and detach change the managed policies attached.
	attach, detach func(tx *store.Tx, name, policyARN string) error
}

var userKind = principalKind{
	noun: "User", nameParam: "UserName", on: onUser,
	get: func(tx *store.Tx, name string) (store.Tags, store.Permissions, error) {
		u, err := tx.GetUser(name)
		return u.Tags, u.Permissions, err
	},
	put: func(tx *store.Tx, name, policyName, doc string) error {
		_, err := tx.PutUserPolicy(name, policyName, doc)
		return err
	},
	delete: func(tx *store.Tx, name, policyName string) error {
		_, err := tx.DeleteUserPolicy(name, policyName)
		return err
	},
	attach: func(tx *store.Tx, name, arn string) error {
		_, err := tx.AttachUserPolicy(name, arn)
		return err
	},
	detach: func(tx *store.Tx, name, arn string) error {
		_, err := tx.DetachUserPolicy(name, arn)
		return err
	},
}

var roleKind = principalKind{
	noun: "Role", nameParam: "RoleName", on: onRole,
	get: func(tx *store.Tx, name string) (store.Tags, store.Permissions, error) {
		r, err := tx.GetRole(name)
		return r.Tags, r.Permissions, err
	},
	put: func(tx *store.Tx, name, policyName, doc string) error {
		_, err := tx.PutRolePolicy(name, policyName, doc)
		return err
	},
	delete: func(tx *store.Tx, name, policyName string) error {
		_, err := tx.DeleteRolePolicy(name, policyName)
		return err
	},
	attach: func(tx *store.Tx, name, arn string) error {
		_, err := tx.AttachRolePolicy(name, arn)
		return err
	},
	detach: func(tx *store.Tx, name, arn string) error {
		_, err := tx.DetachRolePolicy(name, arn)
		return err
	},
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
			perms, err := k.permissions(c)
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

// permissions are the policies of the principal the request names.
func (k principalKind) permissions(c *call) (store.Permissions, error) {
	name, err := c.required(k.nameParam)
	if err != nil {
		return store.Permissions{}, err
	}
	_, perms, err := k.get(c.tx, name)
	return perms, err
}
