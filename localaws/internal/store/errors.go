package store

import "fmt"

// Code is the IAM or STS error code a refusal maps to; a handler sends it to
// the client as it is.
type Code string

// The codes the store refuses with.
const (
	NoSuchEntity        Code = "NoSuchEntity"
	EntityAlreadyExists Code = "EntityAlreadyExists"
	LimitExceeded       Code = "LimitExceeded"
	DeleteConflict      Code = "DeleteConflict"
	InvalidInput        Code = "InvalidInput"
	ValidationError     Code = "ValidationError"
	PolicyNotAttachable Code = "PolicyNotAttachable"
	// InvalidClientTokenID and ExpiredToken refuse a credential presented to
	// sign a request (Credential.Verify).
	InvalidClientTokenID Code = "InvalidClientTokenId"
	ExpiredToken         Code = "ExpiredToken"
)

// Error is a refusal the client caused. Code is what IAM answers in that case
// and Message says it in IAM's words, so a handler can send both unchanged.
// Messages quote names and IDs but never a secret.
type Error struct {
	Code    Code
	Message string
	// Blockers lists what still holds an entity whose delete was refused
	// (Code DeleteConflict), in the order they must be removed.
	Blockers []Blocker
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return string(e.Code) + ": " + e.Message
}

// Is makes errors.Is(err, ErrNotFound) and the like true for every Error of
// that code, whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// Sentinels for errors.Is; the errors returned carry a message besides.
var (
	ErrNotFound       = &Error{Code: NoSuchEntity}
	ErrAlreadyExists  = &Error{Code: EntityAlreadyExists}
	ErrLimitExceeded  = &Error{Code: LimitExceeded}
	ErrDeleteConflict = &Error{Code: DeleteConflict}
	ErrInvalidInput   = &Error{Code: InvalidInput}
	ErrValidation     = &Error{Code: ValidationError}
)

func refuse(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Blocker is something that must be removed before an entity can be deleted.
type Blocker string

// What can block a delete, as IAM names it in DeleteConflict messages.
const (
	BlockerLoginProfile     Blocker = "login profile"
	BlockerAccessKeys       Blocker = "access keys"
	BlockerInlinePolicies   Blocker = "inline policies"
	BlockerAttachedPolicies Blocker = "attached policies"
	BlockerGroups           Blocker = "group memberships"        // a user still in groups
	BlockerMembers          Blocker = "group members"            // a group that still has users
	BlockerAttachments      Blocker = "attachments"              // a managed policy still attached to users or roles
	BlockerBoundaryUse      Blocker = "permissions boundary use" // a managed policy still a user's or role's boundary
	BlockerPolicyVersions   Blocker = "policy versions"          // a managed policy with versions besides the default
	BlockerProfileRoles     Blocker = "instance profile roles"   // a role in an instance profile, or a profile holding a role
)

// deleteConflict is the refusal of a delete, with IAM's message for the first
// blocker.
func deleteConflict(blockers []Blocker) *Error {
	msg := map[Blocker]string{
		BlockerLoginProfile:     "Cannot delete entity, must delete login profile first.",
		BlockerAccessKeys:       "Cannot delete entity, must delete access keys first.",
		BlockerInlinePolicies:   "Cannot delete entity, must delete policies first.",
		BlockerAttachedPolicies: "Cannot delete entity, must detach all policies first.",
		BlockerGroups:           "Cannot delete entity, must remove user from all groups first.",
		BlockerMembers:          "Cannot delete entity, must remove users from group first.",
		BlockerAttachments:      "Cannot delete a policy attached to entities.",
		BlockerBoundaryUse:      "Cannot delete a policy used as a permissions boundary.",
		BlockerProfileRoles:     "Cannot delete entity, must remove roles from instance profile first.",
		BlockerPolicyVersions:   "This policy has more than one version. Before you delete a policy, you must delete the policy's versions. The default version is deleted with the policy.",
	}[blockers[0]]
	return &Error{Code: DeleteConflict, Message: msg, Blockers: blockers}
}
