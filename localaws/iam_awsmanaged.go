package localaws

import (
	"leash.dev/leash/localaws/internal/awsmanaged"
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// awsManagedPolicy is the one place leash local looks an AWS managed policy
// up (arn:aws:iam::aws:policy/…): AWS's published set, the same for every
// account. One that is not in the set is IAM's NoSuchEntity, in IAM's words.
func awsManagedPolicy(arn string) (awsmanaged.Policy, error) {
	p, ok := awsmanaged.Lookup(arn)
	if !ok {
		return awsmanaged.Policy{}, query.NoSuchEntity("Policy " + arn + " does not exist or is not attachable.")
	}
	return p, nil
}

// awsManagedOf is an AWS managed policy as IAM shows it to an account, with
// that account's use of it. AWS publishes no descriptions in the data set
// leash local carries, so Description is empty.
func awsManagedOf(p awsmanaged.Policy, use policyUse) store.ManagedPolicy {
	return store.ManagedPolicy{
		Name: p.Name, Path: p.Path, ARN: p.ARN(), PolicyID: p.PolicyID(), DefaultVersionID: p.DefaultVersionID(),
		AttachmentCount: use.attached, PermissionsBoundaryUsageCount: use.bounds,
		CreateDate: p.Created, UpdateDate: p.Updated,
	}
}

// awsManagedVersions is an AWS managed policy's versions as leash local
// knows them: the default one only. AWS keeps up to five; the older ones
// are not in the data set, so ListPolicyVersions lists one and
// GetPolicyVersion of another ID is NoSuchEntity.
func awsManagedVersions(arn string) ([]store.PolicyVersion, error) {
	p, err := awsManagedPolicy(arn)
	if err != nil {
		return nil, err
	}
	return []store.PolicyVersion{{
		VersionID: p.DefaultVersionID(), Document: p.Document(), IsDefaultVersion: true, CreateDate: p.VersionCreated,
	}}, nil
}

// policyUse counts the principals a managed policy is attached to and
// bounds.
type policyUse struct{ attached, bounds int }

// awsManagedUse counts, in one pass over the account's principals, how
// each AWS managed policy is used: the store counts only the account's own
// policies. It reads every user, group and role: fine for a local endpoint's few,
// and done once per request, not once per policy.
func awsManagedUse(tx *store.Tx) (map[string]policyUse, error) {
	use := map[string]policyUse{}
	count := func(p store.Permissions) {
		for _, arn := range p.AttachedPolicies {
			if store.IsAWSManagedPolicy(arn) {
				u := use[arn]
				u.attached++
				use[arn] = u
			}
		}
		if b := p.PermissionsBoundary; store.IsAWSManagedPolicy(b) {
			u := use[b]
			u.bounds++
			use[b] = u
		}
	}
	users, err := allPages(func(p store.Page) (store.Listing[store.User], error) { return tx.ListUsers("", p) })
	if err != nil {
		return nil, err
	}
	for _, u := range users {
		count(u.Permissions)
	}
	groups, err := allPages(func(p store.Page) (store.Listing[store.Group], error) { return tx.ListGroups("", p) })
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		count(g.Permissions)
	}
	roles, err := allPages(func(p store.Page) (store.Listing[store.Role], error) { return tx.ListRoles("", p) })
	if err != nil {
		return nil, err
	}
	for _, r := range roles {
		count(r.Permissions)
	}
	return use, nil
}
