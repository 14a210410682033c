package store

import (
	"strings"
	"time"
)

// Group buckets. Membership is kept twice, once from each side, so that a
// group's users and a user's groups are each one prefix scan; the two are
// written and deleted together.
const (
	bucketGroups       = "groups"       // lower(group name) → Group
	bucketGroupMembers = "groupMembers" // lower(group name)/lower(user name) → nothing
	bucketUserGroups   = "userGroups"   // lower(user name)/lower(group name) → nothing
)

// Group quotas and lengths, as the IAM User Guide's "IAM and AWS STS quotas"
// page gives them for a new account.
const (
	maxGroupNameLen    = 128
	maxGroupsPerUser   = 10   // GroupsPerUser
	maxGroupPolicySize = 5120 // GroupPolicySizeQuota: all of a group's inline policies, without white space
	// A group's managed policies are capped at maxAttachedPolicies too
	// (AttachedPoliciesPerGroupQuota, PoliciesPerGroup in IAM's message).
)

// prefixGroupID starts the unique ID IAM gives a group, as AIDA starts a
// user's.
const prefixGroupID = "AGPA"

// Group is an IAM group: a name for a set of users that share its policies.
// A group has no permissions boundary; Permissions.PermissionsBoundary is
// always "".
type Group struct {
	Name       string
	Path       string
	GroupID    string
	ARN        string
	CreateDate time.Time
	Permissions
}

func (a Account) groupARN(path, name string) string {
	return "arn:aws:iam::" + a.ID + ":group" + path + name
}

func noSuchGroup(name string) *Error {
	return refuse(NoSuchEntity, "The group with name %s cannot be found.", name)
}

// CreateGroup creates a group from g's Name and Path ("" means "/"), and
// returns it with its ID, ARN and creation date. A group of the same name in
// any case is EntityAlreadyExists.
func (tx *Tx) CreateGroup(g Group) (Group, error) {
	if g.Path == "" {
		g.Path = "/"
	}
	if err := checkName("groupName", g.Name, maxGroupNameLen); err != nil {
		return Group{}, err
	}
	if err := checkPath("path", g.Path); err != nil {
		return Group{}, err
	}
	if tx.exists(bucketGroups, key(g.Name)) {
		return Group{}, refuse(EntityAlreadyExists, "Group with name %s already exists.", g.Name)
	}
	created := Group{
		Name:       g.Name,
		Path:       g.Path,
		GroupID:    newUniqueID(prefixGroupID),
		ARN:        tx.account.groupARN(g.Path, g.Name),
		CreateDate: tx.now,
	}
	return created, tx.put(bucketGroups, key(g.Name), created)
}

// GetGroup returns the group of that name, compared without case.
func (tx *Tx) GetGroup(name string) (Group, error) {
	var g Group
	found, err := tx.get(bucketGroups, key(name), &g)
	if err != nil {
		return Group{}, err
	}
	if !found {
		return Group{}, noSuchGroup(name)
	}
	return g, nil
}

// ListGroups lists the groups whose path starts with pathPrefix ("" for all).
func (tx *Tx) ListGroups(pathPrefix string, page Page) (Listing[Group], error) {
	if err := checkPathPrefix(pathPrefix); err != nil {
		return Listing[Group]{}, err
	}
	return list(tx, bucketGroups, page, func(g *Group) bool { return strings.HasPrefix(g.Path, pathPrefix) })
}

// GroupUsers returns the users in a group, by name without case.
func (tx *Tx) GroupUsers(groupName string) ([]User, error) {
	g, err := tx.GetGroup(groupName)
	if err != nil {
		return nil, err
	}
	prefix := key(g.Name) + "/"
	var users []User
	for _, k := range tx.keysWithPrefix(bucketGroupMembers, prefix) {
		u, err := tx.GetUser(k[len(prefix):])
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, nil
}

// UserGroups returns the groups a user is in, by name without case: with
// the user's own policies, what decides what the user may do.
func (tx *Tx) UserGroups(userName string) ([]Group, error) {
	u, err := tx.GetUser(userName)
	if err != nil {
		return nil, err
	}
	return tx.groupsOf(u.Name)
}

func (tx *Tx) groupsOf(userName string) ([]Group, error) {
	prefix := key(userName) + "/"
	var groups []Group
	for _, k := range tx.keysWithPrefix(bucketUserGroups, prefix) {
		g, err := tx.GetGroup(k[len(prefix):])
		if err != nil {
			return nil, err
		}
		groups = append(groups, g)
	}
	return groups, nil
}

// AddUserToGroup makes a user a member of a group. Adding a member again
// does nothing, as in IAM; a user already in GroupsPerUser groups is
// LimitExceeded.
func (tx *Tx) AddUserToGroup(groupName, userName string) error {
	g, err := tx.GetGroup(groupName)
	if err != nil {
		return err
	}
	u, err := tx.GetUser(userName)
	if err != nil {
		return err
	}
	if tx.exists(bucketUserGroups, membershipKey(u.Name, g.Name)) {
		return nil
	}
	if n := len(tx.keysWithPrefix(bucketUserGroups, key(u.Name)+"/")); n >= maxGroupsPerUser {
		return refuse(LimitExceeded, "Cannot exceed quota for GroupsPerUser: %d", maxGroupsPerUser)
	}
	return tx.putMembership(u.Name, g.Name)
}

// RemoveUserFromGroup removes a user from a group it is in; a user not in
// the group is NoSuchEntity.
func (tx *Tx) RemoveUserFromGroup(groupName, userName string) error {
	g, err := tx.GetGroup(groupName)
	if err != nil {
		return err
	}
	u, err := tx.GetUser(userName)
	if err != nil {
		return err
	}
	if !tx.exists(bucketUserGroups, membershipKey(u.Name, g.Name)) {
		return refuse(NoSuchEntity, "The user with name %s cannot be found.", userName)
	}
	return tx.deleteMembership(u.Name, g.Name)
}

func membershipKey(first, second string) string { return key(first) + "/" + key(second) }

// putMembership and deleteMembership write both sides of a membership; the
// writes go through put and delete, so they advance the permissions revision.
func (tx *Tx) putMembership(userName, groupName string) error {
	if err := tx.putKey(bucketUserGroups, membershipKey(userName, groupName)); err != nil {
		return err
	}
	return tx.putKey(bucketGroupMembers, membershipKey(groupName, userName))
}

func (tx *Tx) deleteMembership(userName, groupName string) error {
	if err := tx.delete(bucketUserGroups, membershipKey(userName, groupName)); err != nil {
		return err
	}
	return tx.delete(bucketGroupMembers, membershipKey(groupName, userName))
}

// putKey writes an index entry, which has no value.
func (tx *Tx) putKey(bucket, k string) error {
	tx.noteWrite(bucket)
	return tx.bucket(bucket).Put([]byte(k), []byte{})
}

// renameMember moves a renamed user's memberships to its new name.
func (tx *Tx) renameMember(oldName, newName string) error {
	prefix := key(oldName) + "/"
	for _, k := range tx.keysWithPrefix(bucketUserGroups, prefix) {
		group := k[len(prefix):]
		if err := tx.deleteMembership(oldName, group); err != nil {
			return err
		}
		if err := tx.putMembership(newName, group); err != nil {
			return err
		}
	}
	return nil
}

// userInGroups reports whether a user is a member of any group: IAM refuses
// to delete it until it is not.
func (tx *Tx) userInGroups(userName string) bool {
	return len(tx.keysWithPrefix(bucketUserGroups, key(userName)+"/")) > 0
}

// updateGroup applies change to a group and writes it back.
func (tx *Tx) updateGroup(name string, change func(*Group) error) (Group, error) {
	g, err := tx.GetGroup(name)
	if err != nil {
		return Group{}, err
	}
	if err := change(&g); err != nil {
		return Group{}, err
	}
	return g, tx.put(bucketGroups, key(g.Name), g)
}

// UpdateGroup renames a group, moves it to another path, or both; "" leaves
// that part as it is. The group keeps its ID, members and policies.
func (tx *Tx) UpdateGroup(name, newName, newPath string) (Group, error) {
	g, err := tx.GetGroup(name)
	if err != nil {
		return Group{}, err
	}
	if newPath != "" {
		if err := checkPath("newPath", newPath); err != nil {
			return Group{}, err
		}
		g.Path = newPath
	}
	if newName != "" && newName != g.Name {
		if err := checkName("newGroupName", newName, maxGroupNameLen); err != nil {
			return Group{}, err
		}
		if key(newName) != key(g.Name) {
			if tx.exists(bucketGroups, key(newName)) {
				return Group{}, refuse(EntityAlreadyExists, "Group with name %s already exists.", newName)
			}
			prefix := key(g.Name) + "/"
			for _, k := range tx.keysWithPrefix(bucketGroupMembers, prefix) {
				user := k[len(prefix):]
				if err := tx.deleteMembership(user, g.Name); err != nil {
					return Group{}, err
				}
				if err := tx.putMembership(user, newName); err != nil {
					return Group{}, err
				}
			}
			if err := tx.delete(bucketGroups, key(g.Name)); err != nil {
				return Group{}, err
			}
		}
		g.Name = newName
	}
	g.ARN = tx.account.groupARN(g.Path, g.Name)
	return g, tx.put(bucketGroups, key(g.Name), g)
}

// GroupBlockers lists what must be removed before the group can be deleted,
// in that order: its users, inline policies, attached policies.
func (tx *Tx) GroupBlockers(name string) ([]Blocker, error) {
	g, err := tx.GetGroup(name)
	if err != nil {
		return nil, err
	}
	return tx.groupBlockers(g), nil
}

func (tx *Tx) groupBlockers(g Group) []Blocker {
	var blockers []Blocker
	if len(tx.keysWithPrefix(bucketGroupMembers, key(g.Name)+"/")) > 0 {
		blockers = append(blockers, BlockerMembers)
	}
	return append(blockers, permissionsBlockers(g.Permissions)...)
}

// DeleteGroup deletes a group that nothing blocks (see GroupBlockers), or
// refuses with DeleteConflict and the blockers.
func (tx *Tx) DeleteGroup(name string) error {
	g, err := tx.GetGroup(name)
	if err != nil {
		return err
	}
	if blockers := tx.groupBlockers(g); len(blockers) > 0 {
		return deleteConflict(blockers)
	}
	return tx.delete(bucketGroups, key(g.Name))
}

// PutGroupPolicy adds or replaces an inline policy of a group.
func (tx *Tx) PutGroupPolicy(groupName, policyName, document string) (Group, error) {
	return tx.updateGroup(groupName, func(g *Group) error {
		return g.putInline(policyName, document, maxGroupPolicySize, "group "+g.Name)
	})
}

// GetGroupPolicy returns an inline policy of a group.
func (tx *Tx) GetGroupPolicy(groupName, policyName string) (InlinePolicy, error) {
	g, err := tx.GetGroup(groupName)
	if err != nil {
		return InlinePolicy{}, err
	}
	p, found := g.InlinePolicy(policyName)
	if !found {
		return InlinePolicy{}, noSuchGroupPolicy(policyName)
	}
	return p, nil
}

// DeleteGroupPolicy deletes an inline policy of a group.
func (tx *Tx) DeleteGroupPolicy(groupName, policyName string) (Group, error) {
	return tx.updateGroup(groupName, func(g *Group) error {
		if !g.deleteInline(policyName) {
			return noSuchGroupPolicy(policyName)
		}
		return nil
	})
}

func noSuchGroupPolicy(policyName string) *Error {
	return refuse(NoSuchEntity, "The group policy with name %s cannot be found.", policyName)
}

// AttachGroupPolicy attaches a managed policy to a group.
func (tx *Tx) AttachGroupPolicy(groupName, policyARN string) (Group, error) {
	return tx.updateGroup(groupName, func(g *Group) error {
		return tx.attach(&g.Permissions, policyARN, "PoliciesPerGroup")
	})
}

// DetachGroupPolicy detaches a managed policy from a group.
func (tx *Tx) DetachGroupPolicy(groupName, policyARN string) (Group, error) {
	return tx.updateGroup(groupName, func(g *Group) error { return tx.detach(&g.Permissions, policyARN) })
}
