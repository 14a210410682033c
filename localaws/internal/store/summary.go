package store

// Quotas of a new account that leash local reports but does not enforce,
// from the IAM User Guide's "IAM and AWS STS quotas" page. The quotas it
// does enforce are the constants beside the checks that enforce them
// (validate.go, group.go, instanceprofile.go); Quotas reads those.
const (
	quotaUsers                      = 5000  // IAM users in an account
	quotaGroups                     = 300   // groups in an account
	quotaRoles                      = 1000  // roles in an account
	quotaPolicies                   = 1500  // customer managed policies in an account
	quotaServerCertificates         = 20    // server certificates in an account
	quotaSigningCertificatesPerUser = 2     // signing certificates per user
	quotaPolicyVersionsInUse        = 10000 // managed policy attachments in an account
)

// Quotas are the account's IAM quotas, named as GetAccountSummary names
// them without the "Quota" suffix. Sizes are in characters without white
// space.
type Quotas struct {
	Users, Groups, Roles, Policies, InstanceProfiles, ServerCertificates int

	AccessKeysPerUser, SigningCertificatesPerUser, GroupsPerUser               int
	AttachedPoliciesPerUser, AttachedPoliciesPerGroup, AttachedPoliciesPerRole int
	VersionsPerPolicy, PolicyVersionsInUse                                     int

	PolicySize, UserPolicySize, GroupPolicySize, RolePolicySize, AssumeRolePolicySize int
}

// AccountQuotas are the quotas of the account: for each quota leash local
// enforces, the limit it enforces, and IAM's default for a new account for
// the others.
func AccountQuotas() Quotas {
	return Quotas{
		Users: quotaUsers, Groups: quotaGroups, Roles: quotaRoles, Policies: quotaPolicies,
		InstanceProfiles: maxInstanceProfiles, ServerCertificates: quotaServerCertificates,

		AccessKeysPerUser: maxAccessKeys, SigningCertificatesPerUser: quotaSigningCertificatesPerUser,
		GroupsPerUser:           maxGroupsPerUser,
		AttachedPoliciesPerUser: maxAttachedPolicies, AttachedPoliciesPerGroup: maxAttachedPolicies,
		AttachedPoliciesPerRole: maxAttachedPolicies,
		VersionsPerPolicy:       maxPolicyVersions, PolicyVersionsInUse: quotaPolicyVersionsInUse,

		PolicySize: maxManagedPolicySize, UserPolicySize: maxUserPolicySize, GroupPolicySize: maxGroupPolicySize,
		RolePolicySize: maxRolePolicySize, AssumeRolePolicySize: maxTrustPolicySize,
	}
}

// Counts are how many of each entity the account holds.
type Counts struct {
	// Policies counts customer managed policies only: AWS managed policies
	// are not the account's.
	Users, Groups, Roles, Policies, InstanceProfiles, OIDCProviders int
}

// Counts counts the account's entities by their bucket keys, without
// decoding a record, so that a summary costs a walk of the keys and not a
// read of every user and role.
func (tx *Tx) Counts() Counts {
	return Counts{
		Users:            tx.count(bucketUsers),
		Groups:           tx.count(bucketGroups),
		Roles:            tx.count(bucketRoles),
		Policies:         tx.count(bucketPolicies),
		InstanceProfiles: tx.count(bucketInstanceProfiles),
		OIDCProviders:    tx.count(bucketOIDCProviders),
	}
}

// count is the number of keys in a bucket.
func (tx *Tx) count(bucket string) int {
	n := 0
	c := tx.bucket(bucket).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

// PolicyAttachments is the number of managed policies attached to the
// account's users, groups and roles, each attachment counted once
// (GetAccountSummary's PolicyVersionsInUse). Boundaries are not
// attachments. AWS managed policies keep no count of their own, so this
// reads every principal.
func (tx *Tx) PolicyAttachments() (int, error) {
	users, err := attachments(tx, bucketUsers, func(u *User) *Permissions { return &u.Permissions })
	if err != nil {
		return 0, err
	}
	groups, err := attachments(tx, bucketGroups, func(g *Group) *Permissions { return &g.Permissions })
	if err != nil {
		return 0, err
	}
	roles, err := attachments(tx, bucketRoles, func(r *Role) *Permissions { return &r.Permissions })
	return users + groups + roles, err
}

// attachments counts the managed policies attached to the principals of a
// bucket, each record decoded whole as the store wrote it.
func attachments[T any](tx *Tx, bucket string, permissions func(*T) *Permissions) (int, error) {
	n := 0
	err := tx.bucket(bucket).ForEach(func(_, v []byte) error {
		var record T
		if err := decode(v, &record); err != nil {
			return err
		}
		n += len(permissions(&record).AttachedPolicies)
		return nil
	})
	return n, err
}
