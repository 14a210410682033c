package localaws

import (
	"slices"

	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// userIdentitySet adds to set every policy that decides what a user may do:
// the user's own inline and attached policies and boundary, then the inline
// and attached policies of each group the user is in, as AWS evaluates a
// user. It is the one place leash local gathers a user's policies: the
// authorizer and SimulatePrincipalPolicy both call it. A managed policy
// attached to the user and to a group, or to two groups, is added once.
func userIdentitySet(tx *store.Tx, u store.User, set *policy.Set) error {
	if err := identitySet(tx, u.Permissions, set); err != nil {
		return err
	}
	groups, err := tx.UserGroups(u.Name)
	if err != nil {
		return err
	}
	seen := slices.Clone(u.AttachedPolicies)
	for _, g := range groups {
		perms := groupPermissions(g, seen)
		seen = append(seen, perms.AttachedPolicies...)
		if err := identitySet(tx, perms, set); err != nil {
			return err
		}
	}
	return nil
}

// groupPermissions are a group's policies as identitySet takes them: each
// inline policy named GROUP/POLICY (IAM names cannot hold a slash, so the
// name is told apart from a user's or role's own inline policy and from a
// managed policy's ARN; groupInlineName splits it), and the attached
// policies that are not in skip.
func groupPermissions(g store.Group, skip []string) store.Permissions {
	var p store.Permissions
	for _, ip := range g.InlinePolicies {
		p.InlinePolicies = append(p.InlinePolicies, store.InlinePolicy{Name: g.Name + "/" + ip.Name, Document: ip.Document})
	}
	for _, arn := range g.AttachedPolicies {
		if !slices.Contains(skip, arn) {
			p.AttachedPolicies = append(p.AttachedPolicies, arn)
		}
	}
	return p
}
