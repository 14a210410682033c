package store

import (
	"fmt"
	"regexp"
	"unicode/utf8"
)

// pattern is a regular expression of IAM's model: re matches a whole value
// as IAM does, and text is the model's own spelling, which IAM quotes in
// its ValidationError ("Member must satisfy regular expression pattern:
// \u002F[\u0021-\u007F]*"), so that a client sees the words AWS sends.
type pattern struct {
	re   *regexp.Regexp
	text string
}

// newPattern anchors re; text is the model's spelling of the same pattern.
func newPattern(re, text string) pattern {
	return pattern{re: regexp.MustCompile(`^(?:` + re + `)$`), text: text}
}

// IAM's input constraints, from the IAM API reference (the shapes of its
// model named in each comment). The store checks them so that nothing IAM
// would refuse is ever written.
var (
	namePattern = newPattern(`[\w+=,.@-]+`, `[\w+=,.@-]+`) // userNameType, roleNameType, policyNameType
	// pathPattern is pathType: a path of CreateUser, CreateRole,
	// CreateGroup, CreateInstanceProfile, and ListEntitiesForPolicy's
	// PathPrefix.
	pathPattern = newPattern(`/|/[\x21-\x7E]+/`, `(\u002F)|(\u002F[\u0021-\u007E]+\u002F)`)
	// pathPrefixPattern is pathPrefixType: the PathPrefix of ListUsers,
	// ListRoles, ListGroups and ListInstanceProfiles.
	pathPrefixPattern = newPattern(`/[\x21-\x7F]*`, `\u002F[\u0021-\u007F]*`)
	// policyPathPattern is policyPathType: CreatePolicy's Path and the
	// PathPrefix of ListPolicies and ListAttached{User,Role,Group}Policies.
	policyPathPattern  = newPattern(`(/[A-Za-z0-9.,+@=_-]+)*/`, `((/[A-Za-z0-9\.,\+@=_-]+)*)/`)
	descriptionPattern = newPattern(`[\t\n\r\x20-\x7E\x{A1}-\x{FF}]*`, `[\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]*`)
	documentPattern    = newPattern(`[\t\n\r\x20-\x{FF}]+`, `[\u0009\u000A\u000D\u0020-\u00FF]+`)
	tagKeyPattern      = newPattern(`[\p{L}\p{Z}\p{N}_.:/=+\-@]+`, `[\p{L}\p{Z}\p{N}_.:/=+\-@]+`)
	tagValuePattern    = newPattern(`[\p{L}\p{Z}\p{N}_.:/=+\-@]*`, `[\p{L}\p{Z}\p{N}_.:/=+\-@]*`)
	thumbprintPattern  = newPattern(`[0-9A-Fa-f]{40}`, `[0-9A-Fa-f]{40}`)
)

// Lengths and quotas of IAM (the default quotas of a new account).
const (
	maxUserNameLen       = 64
	maxRoleNameLen       = 64
	maxPolicyNameLen     = 128
	maxSessionNameLen    = 64
	minSessionNameLen    = 2
	maxPathLen           = 512
	maxDescriptionLen    = 1000
	maxTags              = 50
	maxTagKeyLen         = 128
	maxTagValueLen       = 256
	maxAccessKeys        = 2  // AccessKeysPerUser
	maxAttachedPolicies  = 10 // PoliciesPerUser and PoliciesPerRole
	maxPolicyVersions    = 5  // VersionsPerPolicy
	maxUserPolicySize    = 2048
	maxRolePolicySize    = 10240
	maxTrustPolicySize   = 2048 // ACLSizePerRole: a role's trust policy
	maxManagedPolicySize = 6144
	maxClientIDs         = 100
	maxClientIDLen       = 255
	maxThumbprints       = 5
	maxURLLen            = 255

	// MinMaxSessionDuration, MaxMaxSessionDuration and
	// DefaultMaxSessionDuration bound a role's MaxSessionDuration, in seconds.
	MinMaxSessionDuration     = 3600
	MaxMaxSessionDuration     = 43200
	DefaultMaxSessionDuration = 3600
)

// invalid is IAM's ValidationError for one parameter.
func invalid(field, value, constraint string) *Error {
	return refuse(ValidationError, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: %s", value, field, constraint)
}

func checkLength(field, value string, minLen, maxLen int) error {
	n := utf8.RuneCountInString(value)
	if n < minLen {
		return invalid(field, value, fmt.Sprintf("Member must have length greater than or equal to %d", minLen))
	}
	if n > maxLen {
		return invalid(field, value, fmt.Sprintf("Member must have length less than or equal to %d", maxLen))
	}
	return nil
}

func checkPattern(field, value string, p pattern) error {
	if !p.re.MatchString(value) {
		return invalid(field, value, "Member must satisfy regular expression pattern: "+p.text)
	}
	return nil
}

// checkName checks a user, role, policy or inline policy name.
func checkName(field, name string, maxLen int) error {
	if err := checkLength(field, name, 1, maxLen); err != nil {
		return err
	}
	return checkPattern(field, name, namePattern)
}

// checkPath checks the path of a user, role, group or instance profile.
func checkPath(field, path string) error {
	return checkPathLike(field, path, pathPattern)
}

// checkPathLike checks a path or path prefix of at most 512 characters
// against the pattern IAM's model gives the parameter.
func checkPathLike(field, path string, p pattern) error {
	if err := checkLength(field, path, 1, maxPathLen); err != nil {
		return err
	}
	return checkPattern(field, path, p)
}

// checkPathPrefix checks the PathPrefix of ListUsers, ListRoles, ListGroups
// or ListInstanceProfiles; "" (none sent) lists everything.
func checkPathPrefix(prefix string) error {
	return CheckPathPrefix(prefix, AnyPathPrefix)
}

// PathPrefixKind is the pattern of IAM's model a List operation's
// PathPrefix must match: the operations differ.
type PathPrefixKind int

const (
	// AnyPathPrefix is pathPrefixType: ListUsers, ListRoles, ListGroups,
	// ListInstanceProfiles.
	AnyPathPrefix PathPrefixKind = iota
	// PolicyPathPrefix is policyPathType: ListPolicies and
	// ListAttached{User,Role,Group}Policies.
	PolicyPathPrefix
	// EntityPathPrefix is pathType: ListEntitiesForPolicy.
	EntityPathPrefix
)

// CheckPathPrefix refuses a PathPrefix IAM refuses, with IAM's words; ""
// (none sent) passes. Handlers check it before they list what is not in
// the store (AWS managed policies) or filter what they read.
func CheckPathPrefix(prefix string, kind PathPrefixKind) error {
	if prefix == "" {
		return nil
	}
	p := pathPrefixPattern
	switch kind {
	case PolicyPathPrefix:
		p = policyPathPattern
	case EntityPathPrefix:
		p = pathPattern
	}
	return checkPathLike("pathPrefix", prefix, p)
}

func checkDescription(description string) error {
	if err := checkLength("description", description, 0, maxDescriptionLen); err != nil {
		return err
	}
	return checkPattern("description", description, descriptionPattern)
}

// checkDocument checks a policy document's characters and IAM's PolicySize
// quota. IAM counts size without white space. Parsing the document is the
// policy package's work, done by the handler before it calls the store.
func checkDocument(field, doc string, maxSize int) error {
	return checkDocumentQuota(field, doc, "PolicySize", maxSize)
}

// checkDocumentQuota checks a document against the size quota IAM names
// quota in its LimitExceeded message, such as ACLSizePerRole for a trust
// policy.
func checkDocumentQuota(field, doc, quota string, maxSize int) error {
	if err := checkDocumentChars(field, doc); err != nil {
		return err
	}
	if n := documentSize(doc); n > maxSize {
		return refuse(LimitExceeded, "Cannot exceed quota for %s: %d", quota, maxSize)
	}
	return nil
}

// checkDocumentChars checks that a document is not empty and has only the
// characters IAM allows in one.
func checkDocumentChars(field, doc string) error {
	if err := checkPattern(field, doc, documentPattern); err != nil {
		return refuse(ValidationError, "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\u0009\\u000A\\u000D\\u0020-\\u00FF]+", field)
	}
	return nil
}

// documentSize is a document's size as IAM counts it for quotas: characters
// other than white space.
func documentSize(doc string) int {
	n := 0
	for _, r := range doc {
		switch r {
		case ' ', '\t', '\n', '\r':
		default:
			n++
		}
	}
	return n
}

// checkPolicyARN checks that arn is a policy ARN at all; whether the policy
// exists is the caller's check.
func checkPolicyARN(arn string) error {
	if _, _, _, ok := PolicyARNParts(arn); !ok {
		return refuse(InvalidInput, "ARN %s is not valid.", arn)
	}
	return nil
}

func itoa(n int) string { return fmt.Sprint(n) }
