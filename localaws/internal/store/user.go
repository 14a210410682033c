package store

import (
	"strings"
	"time"
)

// User is an IAM user.
type User struct {
	Name       string
	Path       string
	UserID     string
	ARN        string
	CreateDate time.Time
	Tags       Tags
	Permissions
	// LoginProfile is nil when the user has no console password.
	LoginProfile *LoginProfile
	// Renames counts the user's renames. A GetSessionToken session
	// records it (Session.UserRenames): a session issued before a rename
	// is refused for good, even once the user is renamed back.
	Renames int `json:",omitempty"`
}

// LoginProfile records that a user has a console password. The password
// itself is not stored, not even hashed: leash local never authenticates a
// console login, so keeping it would only be a liability.
type LoginProfile struct {
	CreateDate            time.Time
	PasswordResetRequired bool
}

// CreateUser creates a user from u's Name, Path ("" means "/"), Tags and
// PermissionsBoundary, and returns it with its ID, ARN and creation date.
// A user of the same name in any case is EntityAlreadyExists.
func (tx *Tx) CreateUser(u User) (User, error) {
	if u.Path == "" {
		u.Path = "/"
	}
	if err := checkName("userName", u.Name, maxUserNameLen); err != nil {
		return User{}, err
	}
	if err := checkPath("path", u.Path); err != nil {
		return User{}, err
	}
	if err := u.Tags.check(TaggedUser.foldsKeys()); err != nil {
		return User{}, err
	}
	if tx.exists(bucketUsers, key(u.Name)) {
		return User{}, refuse(EntityAlreadyExists, "User with name %s already exists.", u.Name)
	}
	created := User{
		Name:       u.Name,
		Path:       u.Path,
		UserID:     newUniqueID(prefixUserID),
		ARN:        tx.account.userARN(u.Path, u.Name),
		CreateDate: tx.now,
		Tags:       u.Tags,
	}
	if err := tx.setBoundary(&created.Permissions, u.PermissionsBoundary); err != nil {
		return User{}, err
	}
	return created, tx.put(bucketUsers, key(u.Name), created)
}

// GetUser returns the user of that name, compared without case.
func (tx *Tx) GetUser(name string) (User, error) {
	k := key(name)
	if u, ok := tx.users[k]; ok {
		return u, nil
	}
	var u User
	found, err := tx.get(bucketUsers, k, &u)
	if err != nil {
		return User{}, err
	}
	if !found {
		return User{}, refuse(NoSuchEntity, "The user with name %s cannot be found.", name)
	}
	if !tx.btx.Writable() {
		if tx.users == nil {
			tx.users = map[string]User{}
		}
		tx.users[k] = u
	}
	return u, nil
}

// ListUsers lists the users whose path starts with pathPrefix ("" for all).
func (tx *Tx) ListUsers(pathPrefix string, page Page) (Listing[User], error) {
	if err := checkPathPrefix(pathPrefix); err != nil {
		return Listing[User]{}, err
	}
	return list(tx, bucketUsers, page, func(u *User) bool { return strings.HasPrefix(u.Path, pathPrefix) })
}

// updateUser applies change to a user and writes it back.
func (tx *Tx) updateUser(name string, change func(*User) error) (User, error) {
	u, err := tx.GetUser(name)
	if err != nil {
		return User{}, err
	}
	if err := change(&u); err != nil {
		return User{}, err
	}
	return u, tx.put(bucketUsers, key(u.Name), u)
}

// UpdateUser renames a user, moves it to another path, or both; "" leaves
// that part as it is. The user keeps its ID, keys and policies; a rename
// counts in Renames, which ends the user's sessions.
func (tx *Tx) UpdateUser(name, newName, newPath string) (User, error) {
	u, err := tx.GetUser(name)
	if err != nil {
		return User{}, err
	}
	if newPath != "" {
		if err := checkPath("newPath", newPath); err != nil {
			return User{}, err
		}
		u.Path = newPath
	}
	if newName != "" && newName != u.Name {
		if err := checkName("newUserName", newName, maxUserNameLen); err != nil {
			return User{}, err
		}
		if key(newName) != key(u.Name) {
			if tx.exists(bucketUsers, key(newName)) {
				return User{}, refuse(EntityAlreadyExists, "User with name %s already exists.", newName)
			}
			if err := tx.moveAccessKeys(u.Name, newName); err != nil {
				return User{}, err
			}
			if err := tx.renameMember(u.Name, newName); err != nil {
				return User{}, err
			}
			if err := tx.delete(bucketUsers, key(u.Name)); err != nil {
				return User{}, err
			}
		}
		u.Name = newName
		u.Renames++
	}
	u.ARN = tx.account.userARN(u.Path, u.Name)
	return u, tx.put(bucketUsers, key(u.Name), u)
}

// UserBlockers lists what must be removed before the user can be deleted, in
// that order: login profile, access keys, inline policies, attached policies,
// group memberships (IAM's order). A permissions boundary does not block.
func (tx *Tx) UserBlockers(name string) ([]Blocker, error) {
	u, err := tx.GetUser(name)
	if err != nil {
		return nil, err
	}
	return tx.userBlockers(u), nil
}

func (tx *Tx) userBlockers(u User) []Blocker {
	var blockers []Blocker
	if u.LoginProfile != nil {
		blockers = append(blockers, BlockerLoginProfile)
	}
	if len(tx.keysWithPrefix(bucketUserKeys, key(u.Name)+"/")) > 0 {
		blockers = append(blockers, BlockerAccessKeys)
	}
	blockers = append(blockers, permissionsBlockers(u.Permissions)...)
	if tx.userInGroups(u.Name) {
		blockers = append(blockers, BlockerGroups)
	}
	return blockers
}

// DeleteUser deletes a user that nothing blocks (see UserBlockers), or
// refuses with DeleteConflict and the blockers.
func (tx *Tx) DeleteUser(name string) error {
	u, err := tx.GetUser(name)
	if err != nil {
		return err
	}
	if blockers := tx.userBlockers(u); len(blockers) > 0 {
		return deleteConflict(blockers)
	}
	if err := tx.release(&u.Permissions); err != nil {
		return err
	}
	return tx.delete(bucketUsers, key(u.Name))
}

// PutUserPermissionsBoundary sets or replaces a user's permissions boundary.
func (tx *Tx) PutUserPermissionsBoundary(name, policyARN string) (User, error) {
	return tx.updateUser(name, func(u *User) error { return tx.setBoundary(&u.Permissions, policyARN) })
}

// DeleteUserPermissionsBoundary removes a user's permissions boundary, if any.
func (tx *Tx) DeleteUserPermissionsBoundary(name string) (User, error) {
	return tx.updateUser(name, func(u *User) error { return tx.setBoundary(&u.Permissions, "") })
}

// PutUserPolicy adds or replaces an inline policy of a user.
func (tx *Tx) PutUserPolicy(userName, policyName, document string) (User, error) {
	return tx.updateUser(userName, func(u *User) error {
		return u.putInline(policyName, document, maxUserPolicySize, "user "+u.Name)
	})
}

// GetUserPolicy returns an inline policy of a user.
func (tx *Tx) GetUserPolicy(userName, policyName string) (InlinePolicy, error) {
	u, err := tx.GetUser(userName)
	if err != nil {
		return InlinePolicy{}, err
	}
	p, found := u.InlinePolicy(policyName)
	if !found {
		return InlinePolicy{}, refuse(NoSuchEntity, "The user policy with name %s cannot be found.", policyName)
	}
	return p, nil
}

// DeleteUserPolicy deletes an inline policy of a user.
func (tx *Tx) DeleteUserPolicy(userName, policyName string) (User, error) {
	return tx.updateUser(userName, func(u *User) error {
		if !u.deleteInline(policyName) {
			return refuse(NoSuchEntity, "The user policy with name %s cannot be found.", policyName)
		}
		return nil
	})
}

// AttachUserPolicy attaches a managed policy to a user.
func (tx *Tx) AttachUserPolicy(userName, policyARN string) (User, error) {
	return tx.updateUser(userName, func(u *User) error {
		return tx.attach(&u.Permissions, policyARN, "PoliciesPerUser")
	})
}

// DetachUserPolicy detaches a managed policy from a user.
func (tx *Tx) DetachUserPolicy(userName, policyARN string) (User, error) {
	return tx.updateUser(userName, func(u *User) error { return tx.detach(&u.Permissions, policyARN) })
}

// CreateLoginProfile gives a user a console password (which the store does
// not keep; see LoginProfile).
func (tx *Tx) CreateLoginProfile(userName string, passwordResetRequired bool) (User, error) {
	return tx.updateUser(userName, func(u *User) error {
		if u.LoginProfile != nil {
			return refuse(EntityAlreadyExists, "Login Profile for user %s already exists.", u.Name)
		}
		u.LoginProfile = &LoginProfile{CreateDate: tx.now, PasswordResetRequired: passwordResetRequired}
		return nil
	})
}

// GetLoginProfile returns a user's login profile.
func (tx *Tx) GetLoginProfile(userName string) (LoginProfile, error) {
	u, err := tx.GetUser(userName)
	if err != nil {
		return LoginProfile{}, err
	}
	if u.LoginProfile == nil {
		return LoginProfile{}, noLoginProfile(u.Name)
	}
	return *u.LoginProfile, nil
}

// UpdateLoginProfile changes whether the user must reset the password.
func (tx *Tx) UpdateLoginProfile(userName string, passwordResetRequired bool) (User, error) {
	return tx.updateUser(userName, func(u *User) error {
		if u.LoginProfile == nil {
			return noLoginProfile(u.Name)
		}
		u.LoginProfile.PasswordResetRequired = passwordResetRequired
		return nil
	})
}

// DeleteLoginProfile removes a user's console password.
func (tx *Tx) DeleteLoginProfile(userName string) (User, error) {
	return tx.updateUser(userName, func(u *User) error {
		if u.LoginProfile == nil {
			return noLoginProfile(u.Name)
		}
		u.LoginProfile = nil
		return nil
	})
}

func noLoginProfile(userName string) *Error {
	return refuse(NoSuchEntity, "Login Profile for User %s cannot be found.", userName)
}
