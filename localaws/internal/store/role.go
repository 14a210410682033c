package store

import (
	"strings"
	"time"
)

// Role is an IAM role.
type Role struct {
	Name                     string
	Path                     string
	RoleID                   string
	ARN                      string
	AssumeRolePolicyDocument string
	Description              string
	// MaxSessionDuration is in seconds, MinMaxSessionDuration to
	// MaxMaxSessionDuration.
	MaxSessionDuration int
	CreateDate         time.Time
	Tags               Tags
	Permissions
}

// CreateRole creates a role from r's Name, Path ("" means "/"),
// AssumeRolePolicyDocument, Description, MaxSessionDuration (0 means
// DefaultMaxSessionDuration), Tags and PermissionsBoundary, and returns it
// with its ID, ARN and creation date.
func (tx *Tx) CreateRole(r Role) (Role, error) {
	if r.Path == "" {
		r.Path = "/"
	}
	if r.MaxSessionDuration == 0 {
		r.MaxSessionDuration = DefaultMaxSessionDuration
	}
	if err := checkName("roleName", r.Name, maxRoleNameLen); err != nil {
		return Role{}, err
	}
	if err := checkPath("path", r.Path); err != nil {
		return Role{}, err
	}
	if err := checkTrustPolicy("assumeRolePolicyDocument", r.AssumeRolePolicyDocument); err != nil {
		return Role{}, err
	}
	if err := checkDescription(r.Description); err != nil {
		return Role{}, err
	}
	if err := checkMaxSessionDuration(r.MaxSessionDuration); err != nil {
		return Role{}, err
	}
	if err := r.Tags.check(TaggedRole.foldsKeys()); err != nil {
		return Role{}, err
	}
	if tx.exists(bucketRoles, key(r.Name)) {
		return Role{}, refuse(EntityAlreadyExists, "Role with name %s already exists.", r.Name)
	}
	created := Role{
		Name:                     r.Name,
		Path:                     r.Path,
		RoleID:                   newUniqueID(prefixRoleID),
		ARN:                      tx.account.roleARN(r.Path, r.Name),
		AssumeRolePolicyDocument: r.AssumeRolePolicyDocument,
		Description:              r.Description,
		MaxSessionDuration:       r.MaxSessionDuration,
		CreateDate:               tx.now,
		Tags:                     r.Tags,
	}
	if err := tx.setBoundary(&created.Permissions, r.PermissionsBoundary); err != nil {
		return Role{}, err
	}
	return created, tx.put(bucketRoles, key(r.Name), created)
}

// checkTrustPolicy checks a role's trust policy against IAM's quota for it,
// ACLSizePerRole (2,048 characters by default), which is smaller than the
// quota on the role's inline policies.
func checkTrustPolicy(field, document string) error {
	return checkDocumentQuota(field, document, "ACLSizePerRole", maxTrustPolicySize)
}

func checkMaxSessionDuration(seconds int) error {
	if seconds < MinMaxSessionDuration || seconds > MaxMaxSessionDuration {
		return invalid("maxSessionDuration", itoa(seconds), "Member must have value between 3600 and 43200")
	}
	return nil
}

// GetRole returns the role of that name, compared without case.
func (tx *Tx) GetRole(name string) (Role, error) {
	var r Role
	found, err := tx.get(bucketRoles, key(name), &r)
	if err != nil {
		return Role{}, err
	}
	if !found {
		return Role{}, refuse(NoSuchEntity, "The role with name %s cannot be found.", name)
	}
	return r, nil
}

// ListRoles lists the roles whose path starts with pathPrefix ("" for all).
func (tx *Tx) ListRoles(pathPrefix string, page Page) (Listing[Role], error) {
	if err := checkPathPrefix(pathPrefix); err != nil {
		return Listing[Role]{}, err
	}
	return list(tx, bucketRoles, page, func(r *Role) bool { return strings.HasPrefix(r.Path, pathPrefix) })
}

func (tx *Tx) updateRole(name string, change func(*Role) error) (Role, error) {
	r, err := tx.GetRole(name)
	if err != nil {
		return Role{}, err
	}
	if err := change(&r); err != nil {
		return Role{}, err
	}
	return r, tx.put(bucketRoles, key(r.Name), r)
}

// RoleUpdate is what UpdateRole changes; nil and zero fields stay as they are.
type RoleUpdate struct {
	Description        *string
	MaxSessionDuration int
}

// UpdateRole changes a role's description or maximum session duration.
func (tx *Tx) UpdateRole(name string, change RoleUpdate) (Role, error) {
	return tx.updateRole(name, func(r *Role) error {
		if change.Description != nil {
			if err := checkDescription(*change.Description); err != nil {
				return err
			}
			r.Description = *change.Description
		}
		if change.MaxSessionDuration != 0 {
			if err := checkMaxSessionDuration(change.MaxSessionDuration); err != nil {
				return err
			}
			r.MaxSessionDuration = change.MaxSessionDuration
		}
		return nil
	})
}

// UpdateAssumeRolePolicy replaces a role's trust policy.
func (tx *Tx) UpdateAssumeRolePolicy(name, document string) (Role, error) {
	return tx.updateRole(name, func(r *Role) error {
		if err := checkTrustPolicy("policyDocument", document); err != nil {
			return err
		}
		r.AssumeRolePolicyDocument = document
		return nil
	})
}

// RoleBlockers lists what must be removed before the role can be deleted:
// inline policies, then attached policies, then the role's place in
// instance profiles.
func (tx *Tx) RoleBlockers(name string) ([]Blocker, error) {
	r, err := tx.GetRole(name)
	if err != nil {
		return nil, err
	}
	return tx.roleBlockers(r), nil
}

func (tx *Tx) roleBlockers(r Role) []Blocker {
	blockers := permissionsBlockers(r.Permissions)
	if tx.roleInInstanceProfile(r.Name) {
		blockers = append(blockers, BlockerProfileRoles)
	}
	return blockers
}

// DeleteRole deletes a role that nothing blocks (see RoleBlockers), or refuses
// with DeleteConflict and the blockers. Sessions of the role stay until they
// expire, as in AWS, but no longer find their role.
func (tx *Tx) DeleteRole(name string) error {
	r, err := tx.GetRole(name)
	if err != nil {
		return err
	}
	if blockers := tx.roleBlockers(r); len(blockers) > 0 {
		return deleteConflict(blockers)
	}
	if err := tx.release(&r.Permissions); err != nil {
		return err
	}
	return tx.delete(bucketRoles, key(name))
}

// PutRolePermissionsBoundary sets or replaces a role's permissions boundary.
func (tx *Tx) PutRolePermissionsBoundary(name, policyARN string) (Role, error) {
	return tx.updateRole(name, func(r *Role) error { return tx.setBoundary(&r.Permissions, policyARN) })
}

// DeleteRolePermissionsBoundary removes a role's permissions boundary, if any.
func (tx *Tx) DeleteRolePermissionsBoundary(name string) (Role, error) {
	return tx.updateRole(name, func(r *Role) error { return tx.setBoundary(&r.Permissions, "") })
}

// PutRolePolicy adds or replaces an inline policy of a role.
func (tx *Tx) PutRolePolicy(roleName, policyName, document string) (Role, error) {
	return tx.updateRole(roleName, func(r *Role) error {
		return r.putInline(policyName, document, maxRolePolicySize, "role "+r.Name)
	})
}

// GetRolePolicy returns an inline policy of a role.
func (tx *Tx) GetRolePolicy(roleName, policyName string) (InlinePolicy, error) {
	r, err := tx.GetRole(roleName)
	if err != nil {
		return InlinePolicy{}, err
	}
	p, found := r.InlinePolicy(policyName)
	if !found {
		return InlinePolicy{}, refuse(NoSuchEntity, "The role policy with name %s cannot be found.", policyName)
	}
	return p, nil
}

// DeleteRolePolicy deletes an inline policy of a role.
func (tx *Tx) DeleteRolePolicy(roleName, policyName string) (Role, error) {
	return tx.updateRole(roleName, func(r *Role) error {
		if !r.deleteInline(policyName) {
			return refuse(NoSuchEntity, "The role policy with name %s cannot be found.", policyName)
		}
		return nil
	})
}

// AttachRolePolicy attaches a managed policy to a role.
func (tx *Tx) AttachRolePolicy(roleName, policyARN string) (Role, error) {
	return tx.updateRole(roleName, func(r *Role) error {
		return tx.attach(&r.Permissions, policyARN, "PoliciesPerRole")
	})
}

// DetachRolePolicy detaches a managed policy from a role.
func (tx *Tx) DetachRolePolicy(roleName, policyARN string) (Role, error) {
	return tx.updateRole(roleName, func(r *Role) error { return tx.detach(&r.Permissions, policyARN) })
}
