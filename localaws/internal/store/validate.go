package store

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// IAM's input constraints, from the IAM API reference. The store checks them
// so that nothing IAM would refuse is ever written.
var (
	namePattern        = regexp.MustCompile(`^[\w+=,.@-]+$`)
	pathPattern        = regexp.MustCompile(`^/([\x21-\x7E]*/)?$`)
	pathPrefixPattern  = regexp.MustCompile(`^/[\x21-\x7F]*$`)
	descriptionPattern = regexp.MustCompile(`^[\t\n\r\x20-\x7E\x{A1}-\x{FF}]*$`)
	documentPattern    = regexp.MustCompile(`^[\t\n\r\x20-\x{FF}]+$`)
	tagKeyPattern      = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]+$`)
	tagValuePattern    = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)
	thumbprintPattern  = regexp.MustCompile(`^[0-9A-Fa-f]{40}$`)
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

func checkPattern(field, value string, re *regexp.Regexp) error {
	if !re.MatchString(value) {
		return invalid(field, value, "Member must satisfy regular expression pattern: "+strings.Trim(re.String(), "^$"))
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

func checkPath(field, path string) error {
	if err := checkLength(field, path, 1, maxPathLen); err != nil {
		return err
	}
	return checkPattern(field, path, pathPattern)
}

// checkPathPrefix checks the PathPrefix of a List call; "" lists everything.
func checkPathPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	if err := checkLength("pathPrefix", prefix, 1, maxPathLen); err != nil {
		return err
	}
	return checkPattern("pathPrefix", prefix, pathPrefixPattern)
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
