package store

import (
	"strings"
	"time"
)

// InstanceProfile is an IAM instance profile: the container EC2 hands a role
// to an instance through. It holds one role at most, as in AWS, where that
// quota cannot be raised.
type InstanceProfile struct {
	Name              string
	Path              string
	InstanceProfileID string
	ARN               string
	CreateDate        time.Time
	Tags              Tags
	// RoleNames are the names of the roles in the profile: none or one.
	RoleNames []string
}

// maxRolesPerInstanceProfile is IAM's InstanceSessionsPerInstanceProfile.
const maxRolesPerInstanceProfile = 1

// maxInstanceProfiles is IAM's InstanceProfilesPerAccount.
const maxInstanceProfiles = 1000

// maxInstanceProfileNameLen is the longest name IAM takes for an instance
// profile (roles take 64 characters at most).
const maxInstanceProfileNameLen = 128

// CreateInstanceProfile creates an instance profile from p's Name, Path ("" means
// "/") and Tags, with no role, and returns it with its ID, ARN and creation
// date.
func (tx *Tx) CreateInstanceProfile(p InstanceProfile) (InstanceProfile, error) {
	if p.Path == "" {
		p.Path = "/"
	}
	if err := checkName("instanceProfileName", p.Name, maxInstanceProfileNameLen); err != nil {
		return InstanceProfile{}, err
	}
	if err := checkPath("path", p.Path); err != nil {
		return InstanceProfile{}, err
	}
	if err := p.Tags.check(TaggedInstanceProfile.foldsKeys()); err != nil {
		return InstanceProfile{}, err
	}
	if tx.exists(bucketInstanceProfiles, key(p.Name)) {
		return InstanceProfile{}, refuse(EntityAlreadyExists, "Instance Profile %s already exists.", p.Name)
	}
	if tx.countKeys(bucketInstanceProfiles, maxInstanceProfiles) >= maxInstanceProfiles {
		return InstanceProfile{}, refuse(LimitExceeded, "Cannot exceed quota for InstanceProfilesPerAccount: %d", maxInstanceProfiles)
	}
	created := InstanceProfile{
		Name:              p.Name,
		Path:              p.Path,
		InstanceProfileID: newUniqueID(prefixInstanceProfileID),
		ARN:               tx.account.instanceProfileARN(p.Path, p.Name),
		CreateDate:        tx.now,
		Tags:              p.Tags,
		RoleNames:         []string{},
	}
	return created, tx.put(bucketInstanceProfiles, key(p.Name), created)
}

// GetInstanceProfile returns the instance profile of that name, compared
// without case.
func (tx *Tx) GetInstanceProfile(name string) (InstanceProfile, error) {
	var p InstanceProfile
	found, err := tx.get(bucketInstanceProfiles, key(name), &p)
	if err != nil {
		return InstanceProfile{}, err
	}
	if !found {
		return InstanceProfile{}, refuse(NoSuchEntity, "Instance Profile %s cannot be found.", name)
	}
	return p, nil
}

// ListInstanceProfiles lists the instance profiles whose path starts with
// pathPrefix ("" for all).
func (tx *Tx) ListInstanceProfiles(pathPrefix string, page Page) (Listing[InstanceProfile], error) {
	if err := checkPathPrefix(pathPrefix); err != nil {
		return Listing[InstanceProfile]{}, err
	}
	return list(tx, bucketInstanceProfiles, page, func(p *InstanceProfile) bool { return strings.HasPrefix(p.Path, pathPrefix) })
}

// ListInstanceProfilesForRole lists the instance profiles that hold the
// role, by name; the role must exist.
func (tx *Tx) ListInstanceProfilesForRole(roleName string) ([]InstanceProfile, error) {
	r, err := tx.GetRole(roleName)
	if err != nil {
		return nil, err
	}
	out := []InstanceProfile{}
	for _, k := range tx.keysWithPrefix(bucketRoleInstanceProfiles, key(r.Name)+"/") {
		_, profile, _ := strings.Cut(k, "/")
		p, err := tx.GetInstanceProfile(profile)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// roleInInstanceProfile reports whether any instance profile holds the role.
func (tx *Tx) roleInInstanceProfile(roleName string) bool {
	c := tx.bucket(bucketRoleInstanceProfiles).Cursor()
	prefix := key(roleName) + "/"
	k, _ := c.Seek([]byte(prefix))
	return k != nil && strings.HasPrefix(string(k), prefix)
}

// DeleteInstanceProfile deletes an instance profile that holds no role, or
// refuses with DeleteConflict, as IAM does.
func (tx *Tx) DeleteInstanceProfile(name string) error {
	p, err := tx.GetInstanceProfile(name)
	if err != nil {
		return err
	}
	if len(p.RoleNames) > 0 {
		return deleteConflict([]Blocker{BlockerProfileRoles})
	}
	return tx.delete(bucketInstanceProfiles, key(p.Name))
}

// AddRoleToInstanceProfile puts a role in an instance profile that holds
// none. Both must exist; a profile that holds a role already, even this one,
// is at its quota of one, as IAM answers.
func (tx *Tx) AddRoleToInstanceProfile(profileName, roleName string) (InstanceProfile, error) {
	p, err := tx.GetInstanceProfile(profileName)
	if err != nil {
		return InstanceProfile{}, err
	}
	r, err := tx.GetRole(roleName)
	if err != nil {
		return InstanceProfile{}, err
	}
	if len(p.RoleNames) >= maxRolesPerInstanceProfile {
		return InstanceProfile{}, refuse(LimitExceeded, "Cannot exceed quota for InstanceSessionsPerInstanceProfile: %d", maxRolesPerInstanceProfile)
	}
	p.RoleNames = append(p.RoleNames, r.Name)
	if err := tx.put(bucketRoleInstanceProfiles, key(r.Name)+"/"+key(p.Name), struct{}{}); err != nil {
		return InstanceProfile{}, err
	}
	return p, tx.put(bucketInstanceProfiles, key(p.Name), p)
}

// RemoveRoleFromInstanceProfile takes a role out of an instance profile.
// Both must exist, and the role must be in the profile.
func (tx *Tx) RemoveRoleFromInstanceProfile(profileName, roleName string) (InstanceProfile, error) {
	p, err := tx.GetInstanceProfile(profileName)
	if err != nil {
		return InstanceProfile{}, err
	}
	r, err := tx.GetRole(roleName)
	if err != nil {
		return InstanceProfile{}, err
	}
	kept := []string{}
	for _, n := range p.RoleNames {
		if !strings.EqualFold(n, r.Name) {
			kept = append(kept, n)
		}
	}
	if len(kept) == len(p.RoleNames) {
		return InstanceProfile{}, refuse(NoSuchEntity, "The role with name %s cannot be found in instance profile %s.", r.Name, p.Name)
	}
	p.RoleNames = kept
	if err := tx.delete(bucketRoleInstanceProfiles, key(r.Name)+"/"+key(p.Name)); err != nil {
		return InstanceProfile{}, err
	}
	return p, tx.put(bucketInstanceProfiles, key(p.Name), p)
}

func (tx *Tx) updateInstanceProfile(name string, change func(*InstanceProfile) error) (InstanceProfile, error) {
	p, err := tx.GetInstanceProfile(name)
	if err != nil {
		return InstanceProfile{}, err
	}
	if err := change(&p); err != nil {
		return InstanceProfile{}, err
	}
	return p, tx.put(bucketInstanceProfiles, key(p.Name), p)
}

// countKeys counts the keys of bucket, up to limit. It walks a cursor, since
// bbolt's bucket statistics miss what the transaction itself has written.
func (tx *Tx) countKeys(bucket string, limit int) int {
	n := 0
	c := tx.bucket(bucket).Cursor()
	for k, _ := c.First(); k != nil && n < limit; k, _ = c.Next() {
		n++
	}
	return n
}
