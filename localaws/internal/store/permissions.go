package store

import (
	"slices"
	"strings"
)

// InlinePolicy is a policy embedded in one user or role.
type InlinePolicy struct {
	Name     string
	Document string
}

// Permissions are the policies of a user or role: with the documents of the
// managed policies they name, everything the authorizer needs about the
// principal.
type Permissions struct {
	// PermissionsBoundary is the ARN of the boundary's managed policy, or "".
	PermissionsBoundary string
	// InlinePolicies are sorted by name without case; names are unique
	// regardless of case.
	InlinePolicies []InlinePolicy
	// AttachedPolicies are managed policy ARNs in the order they were attached.
	AttachedPolicies []string
}

// InlinePolicy returns the inline policy of that name, compared without case.
func (p Permissions) InlinePolicy(name string) (InlinePolicy, bool) {
	i, found := p.inlineIndex(name)
	if !found {
		return InlinePolicy{}, false
	}
	return p.InlinePolicies[i], true
}

func (p Permissions) inlineIndex(name string) (int, bool) {
	return slices.BinarySearchFunc(p.InlinePolicies, key(name), func(ip InlinePolicy, k string) int {
		return strings.Compare(key(ip.Name), k)
	})
}

// putInline adds or replaces an inline policy; maxSize is the quota on the
// size of all of the principal's inline policies together, and owner names
// the principal in IAM's LimitExceeded message ("user alice").
func (p *Permissions) putInline(name, doc string, maxSize int, owner string) error {
	if err := checkName("policyName", name, maxPolicyNameLen); err != nil {
		return err
	}
	if err := checkDocumentChars("policyDocument", doc); err != nil {
		return err
	}
	policies := slices.Clone(p.InlinePolicies)
	i, found := p.inlineIndex(name)
	if found {
		policies[i] = InlinePolicy{name, doc}
	} else {
		policies = slices.Insert(policies, i, InlinePolicy{name, doc})
	}
	total := 0
	for _, ip := range policies {
		total += documentSize(ip.Document)
	}
	if total > maxSize {
		return refuse(LimitExceeded, "Maximum policy size of %d bytes exceeded for %s", maxSize, owner)
	}
	p.InlinePolicies = policies
	return nil
}

// deleteInline removes an inline policy and reports whether there was one.
func (p *Permissions) deleteInline(name string) bool {
	i, found := p.inlineIndex(name)
	if found {
		p.InlinePolicies = slices.Delete(slices.Clone(p.InlinePolicies), i, i+1)
	}
	return found
}

// attach attaches a managed policy, counting the attachment on the policy.
// Attaching one already attached does nothing, as in IAM. quota names the
// IAM quota in the LimitExceeded message.
func (tx *Tx) attach(p *Permissions, arn, quota string) error {
	if err := checkPolicyARN(arn); err != nil {
		return err
	}
	if err := tx.checkAttachable(arn); err != nil {
		return err
	}
	if slices.Contains(p.AttachedPolicies, arn) {
		return nil
	}
	if len(p.AttachedPolicies) >= maxAttachedPolicies {
		return refuse(LimitExceeded, "Cannot exceed quota for %s: %d", quota, maxAttachedPolicies)
	}
	if err := tx.countPolicyUse(arn, +1, 0); err != nil {
		return err
	}
	p.AttachedPolicies = append(slices.Clone(p.AttachedPolicies), arn)
	return nil
}

func (tx *Tx) detach(p *Permissions, arn string) error {
	i := slices.Index(p.AttachedPolicies, arn)
	if i < 0 {
		return refuse(NoSuchEntity, "Policy %s was not found.", arn)
	}
	if err := tx.countPolicyUse(arn, -1, 0); err != nil {
		return err
	}
	p.AttachedPolicies = slices.Delete(slices.Clone(p.AttachedPolicies), i, i+1)
	return nil
}

// setBoundary sets or replaces the permissions boundary, counting its use on
// the policies; "" removes it.
func (tx *Tx) setBoundary(p *Permissions, arn string) error {
	if arn == p.PermissionsBoundary {
		return nil
	}
	if arn != "" {
		if err := checkPolicyARN(arn); err != nil {
			return err
		}
		if err := tx.checkAttachable(arn); err != nil {
			return err
		}
		if err := tx.countPolicyUse(arn, 0, +1); err != nil {
			return err
		}
	}
	if p.PermissionsBoundary != "" {
		if err := tx.countPolicyUse(p.PermissionsBoundary, 0, -1); err != nil {
			return err
		}
	}
	p.PermissionsBoundary = arn
	return nil
}

// release undoes the counts of a principal that is being deleted.
func (tx *Tx) release(p *Permissions) error {
	for _, arn := range p.AttachedPolicies {
		if err := tx.countPolicyUse(arn, -1, 0); err != nil {
			return err
		}
	}
	return tx.setBoundary(p, "")
}

// permissionsBlockers lists what of p blocks deleting its principal.
func permissionsBlockers(p Permissions) []Blocker {
	var blockers []Blocker
	if len(p.InlinePolicies) > 0 {
		blockers = append(blockers, BlockerInlinePolicies)
	}
	if len(p.AttachedPolicies) > 0 {
		blockers = append(blockers, BlockerAttachedPolicies)
	}
	return blockers
}
