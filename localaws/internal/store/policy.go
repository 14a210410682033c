package store

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ManagedPolicy is a customer managed policy of the account. Its documents
// are its versions (PolicyVersion).
type ManagedPolicy struct {
	Name             string
	Path             string
	PolicyID         string
	ARN              string
	Description      string
	DefaultVersionID string
	// AttachmentCount counts the users, groups and roles it is attached to.
	AttachmentCount int
	// PermissionsBoundaryUsageCount counts the users and roles it bounds.
	PermissionsBoundaryUsageCount int
	CreateDate                    time.Time
	// UpdateDate is when the default version last changed.
	UpdateDate time.Time
	Tags       Tags
	// LastVersion is the number of the newest version ever created: IAM
	// never reuses a version ID, so v3 names one document for good.
	LastVersion int
}

// PolicyVersion is one version of a managed policy's document.
type PolicyVersion struct {
	VersionID        string
	Document         string
	IsDefaultVersion bool `json:"-"` // from the policy's DefaultVersionID when read
	CreateDate       time.Time
}

// PolicyFilter selects the policies ListPolicies returns.
type PolicyFilter struct {
	PathPrefix string
	// OnlyAttached keeps the policies attached to at least one user or role.
	OnlyAttached bool
}

// CreatePolicy creates a managed policy from p's Name, Path ("" means "/"),
// Description and Tags, with document as its default version v1.
func (tx *Tx) CreatePolicy(p ManagedPolicy, document string) (ManagedPolicy, error) {
	if p.Path == "" {
		p.Path = "/"
	}
	if err := checkName("policyName", p.Name, maxPolicyNameLen); err != nil {
		return ManagedPolicy{}, err
	}
	if err := checkPathLike("path", p.Path, policyPathPattern); err != nil {
		return ManagedPolicy{}, err
	}
	if err := checkDescription(p.Description); err != nil {
		return ManagedPolicy{}, err
	}
	if err := checkDocument("policyDocument", document, maxManagedPolicySize); err != nil {
		return ManagedPolicy{}, err
	}
	if err := p.Tags.check(TaggedPolicy.foldsKeys()); err != nil {
		return ManagedPolicy{}, err
	}
	if tx.exists(bucketPolicies, key(p.Name)) {
		return ManagedPolicy{}, refuse(EntityAlreadyExists, "A policy called %s already exists. Duplicate names are not allowed.", p.Name)
	}
	created := ManagedPolicy{
		Name:             p.Name,
		Path:             p.Path,
		PolicyID:         newUniqueID(prefixPolicyID),
		ARN:              tx.account.policyARN(p.Path, p.Name),
		Description:      p.Description,
		DefaultVersionID: "v1",
		CreateDate:       tx.now,
		UpdateDate:       tx.now,
		Tags:             p.Tags,
		LastVersion:      1,
	}
	if err := tx.put(bucketPolicyVersions, versionKey(created.Name, "v1"), PolicyVersion{VersionID: "v1", Document: document, CreateDate: tx.now}); err != nil {
		return ManagedPolicy{}, err
	}
	return created, tx.put(bucketPolicies, key(created.Name), created)
}

func versionKey(policyName, versionID string) string { return key(policyName) + "/" + versionID }

// GetPolicy returns the account's managed policy of that ARN. AWS managed
// policies are not in the store (see IsAWSManagedPolicy).
func (tx *Tx) GetPolicy(arn string) (ManagedPolicy, error) {
	account, path, name, ok := PolicyARNParts(arn)
	var p ManagedPolicy
	if ok && account == tx.account.ID {
		found, err := tx.get(bucketPolicies, key(name), &p)
		if err != nil {
			return ManagedPolicy{}, err
		}
		if found && p.Path == path {
			return p, nil
		}
	}
	return ManagedPolicy{}, refuse(NoSuchEntity, "Policy %s does not exist or is not attachable.", arn)
}

// ListPolicies lists the account's managed policies that filter selects.
func (tx *Tx) ListPolicies(filter PolicyFilter, page Page) (Listing[ManagedPolicy], error) {
	if err := CheckPathPrefix(filter.PathPrefix, PolicyPathPrefix); err != nil {
		return Listing[ManagedPolicy]{}, err
	}
	return list(tx, bucketPolicies, page, func(p *ManagedPolicy) bool {
		return strings.HasPrefix(p.Path, filter.PathPrefix) && (!filter.OnlyAttached || p.AttachmentCount > 0)
	})
}

// PolicyDocument returns the document of a managed policy's default version:
// what the authorizer evaluates.
func (tx *Tx) PolicyDocument(arn string) (string, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return "", err
	}
	v, err := tx.policyVersion(p, p.DefaultVersionID)
	return v.Document, err
}

func (tx *Tx) policyVersion(p ManagedPolicy, versionID string) (PolicyVersion, error) {
	var v PolicyVersion
	found, err := tx.get(bucketPolicyVersions, versionKey(p.Name, versionID), &v)
	if err != nil {
		return PolicyVersion{}, err
	}
	if !found {
		return PolicyVersion{}, refuse(NoSuchEntity, "Policy %s version %s does not exist or is not attachable.", p.ARN, versionID)
	}
	v.IsDefaultVersion = v.VersionID == p.DefaultVersionID
	return v, nil
}

// updatePolicy applies change to a managed policy and stores it.
func (tx *Tx) updatePolicy(arn string, change func(*ManagedPolicy) error) (ManagedPolicy, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return ManagedPolicy{}, err
	}
	if err := change(&p); err != nil {
		return ManagedPolicy{}, err
	}
	return p, tx.put(bucketPolicies, key(p.Name), p)
}

// GetPolicyVersion returns one version of a managed policy.
func (tx *Tx) GetPolicyVersion(arn, versionID string) (PolicyVersion, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return PolicyVersion{}, err
	}
	return tx.policyVersion(p, versionID)
}

// ListPolicyVersions returns the versions of a managed policy, newest first.
func (tx *Tx) ListPolicyVersions(arn string) ([]PolicyVersion, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return nil, err
	}
	return tx.versions(p)
}

func (tx *Tx) versions(p ManagedPolicy) ([]PolicyVersion, error) {
	var out []PolicyVersion
	for _, k := range tx.keysWithPrefix(bucketPolicyVersions, key(p.Name)+"/") {
		var v PolicyVersion
		if _, err := tx.get(bucketPolicyVersions, k, &v); err != nil {
			return nil, err
		}
		v.IsDefaultVersion = v.VersionID == p.DefaultVersionID
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b PolicyVersion) int {
		return cmp.Compare(versionNumber(b.VersionID), versionNumber(a.VersionID))
	})
	return out, nil
}

func versionNumber(versionID string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(versionID, "v"))
	return n
}

// CreatePolicyVersion adds a version to a managed policy, at most five in
// all, and makes it the default if asked.
func (tx *Tx) CreatePolicyVersion(arn, document string, setAsDefault bool) (PolicyVersion, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return PolicyVersion{}, err
	}
	if err := checkDocument("policyDocument", document, maxManagedPolicySize); err != nil {
		return PolicyVersion{}, err
	}
	if n := len(tx.keysWithPrefix(bucketPolicyVersions, key(p.Name)+"/")); n >= maxPolicyVersions {
		return PolicyVersion{}, refuse(LimitExceeded, "A managed policy can have up to %d versions. Before you create a new version, you must delete an existing version.", maxPolicyVersions)
	}
	p.LastVersion++
	v := PolicyVersion{VersionID: "v" + strconv.Itoa(p.LastVersion), Document: document, CreateDate: tx.now}
	if setAsDefault {
		p.DefaultVersionID, p.UpdateDate = v.VersionID, tx.now
		v.IsDefaultVersion = true
	}
	if err := tx.put(bucketPolicyVersions, versionKey(p.Name, v.VersionID), v); err != nil {
		return PolicyVersion{}, err
	}
	return v, tx.put(bucketPolicies, key(p.Name), p)
}

// SetDefaultPolicyVersion makes an existing version the one that applies.
func (tx *Tx) SetDefaultPolicyVersion(arn, versionID string) (ManagedPolicy, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return ManagedPolicy{}, err
	}
	if _, err := tx.policyVersion(p, versionID); err != nil {
		return ManagedPolicy{}, err
	}
	if p.DefaultVersionID != versionID {
		p.DefaultVersionID, p.UpdateDate = versionID, tx.now
	}
	return p, tx.put(bucketPolicies, key(p.Name), p)
}

// DeletePolicyVersion deletes a version other than the default.
func (tx *Tx) DeletePolicyVersion(arn, versionID string) error {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return err
	}
	if _, err := tx.policyVersion(p, versionID); err != nil {
		return err
	}
	if versionID == p.DefaultVersionID {
		return refuse(DeleteConflict, "Cannot delete the default version of a policy.")
	}
	return tx.delete(bucketPolicyVersions, versionKey(p.Name, versionID))
}

// PolicyBlockers lists what must be removed before the managed policy can be
// deleted: its attachments, its uses as a permissions boundary, and its
// versions besides the default.
func (tx *Tx) PolicyBlockers(arn string) ([]Blocker, error) {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return nil, err
	}
	return tx.policyBlockers(p), nil
}

func (tx *Tx) policyBlockers(p ManagedPolicy) []Blocker {
	var blockers []Blocker
	if p.AttachmentCount > 0 {
		blockers = append(blockers, BlockerAttachments)
	}
	if p.PermissionsBoundaryUsageCount > 0 {
		blockers = append(blockers, BlockerBoundaryUse)
	}
	if len(tx.keysWithPrefix(bucketPolicyVersions, key(p.Name)+"/")) > 1 {
		blockers = append(blockers, BlockerPolicyVersions)
	}
	return blockers
}

// DeletePolicy deletes a managed policy that nothing blocks (see
// PolicyBlockers), with its default version, or refuses with DeleteConflict.
func (tx *Tx) DeletePolicy(arn string) error {
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return err
	}
	if blockers := tx.policyBlockers(p); len(blockers) > 0 {
		return deleteConflict(blockers)
	}
	if err := tx.delete(bucketPolicyVersions, versionKey(p.Name, p.DefaultVersionID)); err != nil {
		return err
	}
	return tx.delete(bucketPolicies, key(p.Name))
}

// PolicyEntities are the users, groups and roles a managed policy is
// attached to.
type PolicyEntities struct {
	UserNames  []string
	GroupNames []string
	RoleNames  []string
}

// ListEntitiesForPolicy returns the users, groups and roles a policy is
// attached to, by name. It reads every user, group and role: fine for a
// local endpoint's few.
func (tx *Tx) ListEntitiesForPolicy(arn string) (PolicyEntities, error) {
	if err := tx.checkManagedPolicy(arn); err != nil {
		return PolicyEntities{}, err
	}
	var out PolicyEntities
	err := tx.bucket(bucketUsers).ForEach(func(_, v []byte) error {
		var u User
		if err := decode(v, &u); err != nil {
			return err
		}
		if slices.Contains(u.AttachedPolicies, arn) {
			out.UserNames = append(out.UserNames, u.Name)
		}
		return nil
	})
	if err != nil {
		return PolicyEntities{}, err
	}
	err = tx.bucket(bucketGroups).ForEach(func(_, v []byte) error {
		var g Group
		if err := decode(v, &g); err != nil {
			return err
		}
		if slices.Contains(g.AttachedPolicies, arn) {
			out.GroupNames = append(out.GroupNames, g.Name)
		}
		return nil
	})
	if err != nil {
		return PolicyEntities{}, err
	}
	err = tx.bucket(bucketRoles).ForEach(func(_, v []byte) error {
		var r Role
		if err := decode(v, &r); err != nil {
			return err
		}
		if slices.Contains(r.AttachedPolicies, arn) {
			out.RoleNames = append(out.RoleNames, r.Name)
		}
		return nil
	})
	return out, err
}

// countPolicyUse adds to a managed policy's attachment and boundary counts.
// AWS managed policies are not in the store and are not counted (leash
// local counts their use when asked); a new use of one that is not in AWS's
// set, or a policy of another account, is NoSuchEntity. Dropping a use is
// never refused, so state written before that check can still be undone.
func (tx *Tx) countPolicyUse(arn string, attachments, boundaries int) error {
	if IsAWSManagedPolicy(arn) {
		if attachments > 0 || boundaries > 0 {
			return tx.checkManagedPolicy(arn)
		}
		return nil
	}
	p, err := tx.GetPolicy(arn)
	if err != nil {
		return err
	}
	p.AttachmentCount += attachments
	p.PermissionsBoundaryUsageCount += boundaries
	return tx.put(bucketPolicies, key(p.Name), p)
}
