// Package policy is the AWS IAM policy language: documents and their JSON
// quirks, validation, compilation, evaluation with AWS's documented logic, and
// explanations of each decision. It does no I/O.
package policy

import "strings"

// Versions of the policy language. Policy variables exist only in Version2012.
const (
	Version2012 = "2012-10-17"
	Version2008 = "2008-10-17"
)

// Effect is a statement's effect.
type Effect string

// The two effects a statement can have.
const (
	Allow Effect = "Allow"
	Deny  Effect = "Deny"
)

// Kind says which policy type a document is; it decides which elements a
// statement must or must not have.
type Kind int

// Policy kinds.
const (
	// Identity is a policy attached to a user, group or role.
	Identity Kind = iota
	// Resource is a resource-based policy (bucket, key, queue...): it names principals.
	Resource
	// Trust is a role's trust policy: a resource policy whose resource is the role.
	Trust
	// Boundary is a permissions boundary.
	Boundary
	// Session is a session policy passed to AssumeRole or GetFederationToken.
	Session
	// SCP is a service control policy of AWS Organizations.
	SCP
	// RCP is a resource control policy of AWS Organizations.
	RCP
)

var kindNames = [...]string{"identity", "resource", "trust", "boundary", "session", "scp", "rcp"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// ResourcePolicyKind is the kind of the resource's own policy for a request
// of action on resource: a role's trust policy for the sts:AssumeRole*
// family and for other sts: actions on a role (sts:TagSession,
// sts:SetSourceIdentity are granted by the trust policy too), a
// resource-based policy otherwise.
func ResourcePolicyKind(action, resource string) Kind {
	if len(action) < 4 || !strings.EqualFold(action[:4], "sts:") {
		return Resource
	}
	if len(action) >= len("sts:AssumeRole") && strings.EqualFold(action[:len("sts:AssumeRole")], "sts:AssumeRole") ||
		strings.Contains(resource, ":role/") {
		return Trust
	}
	return Resource
}

// namesPrincipals reports whether statements of this kind carry a Principal.
func (k Kind) namesPrincipals() bool { return k == Resource || k == Trust || k == RCP }

// Document is a parsed policy document. Values keep the spelling of the source
// so that explanations quote what the author wrote.
type Document struct {
	// Version is "2012-10-17", "2008-10-17", or "" when the document has none
	// (AWS then applies the 2008 rules).
	Version    string
	ID         string
	Statements []Statement
	// SingleStatement records that Statement was written as one object
	// rather than an array; MarshalJSON writes it back so when there is one
	// statement.
	SingleStatement bool
	// Size is the document's length in characters with whitespace removed, the
	// measure of IAM's size limits.
	Size int
}

// Statement is one statement of a document.
type Statement struct {
	Sid    string
	Effect Effect

	// Principal and NotPrincipal are nil when absent.
	Principal    *Principal
	NotPrincipal *Principal

	// Exactly one of Action and NotAction is set.
	Action    []string
	NotAction []string

	// At most one of Resource and NotResource is set.
	Resource    []string
	NotResource []string

	Conditions []Condition

	// Singles records which of Action, NotAction, Resource and NotResource
	// were written as one string rather than an array.
	Singles Singles
}

// Singles is a set of the elements a document wrote as one string where AWS
// accepts a string or an array. Parse records it and MarshalJSON follows it,
// so that a document is written back as its author spelt it; the zero set
// writes arrays, which AWS accepts everywhere.
type Singles uint8

// Elements that hold a string or an array.
const (
	SingleAction Singles = 1 << iota
	SingleNotAction
	SingleResource
	SingleNotResource
	// The principal types of Principal and NotPrincipal.
	SingleAWS
	SingleService
	SingleFederated
	SingleCanonicalUser
)

// Principal is the Principal or NotPrincipal element. Wildcard is true for
// `"Principal": "*"`; `{"AWS": "*"}` is kept as written in AWS.
type Principal struct {
	Wildcard      bool
	AWS           []string
	Service       []string
	Federated     []string
	CanonicalUser []string
	// Singles records which principal types were written as one string.
	Singles Singles
}

// Condition is one key under one operator of a Condition block, such as
// `"StringEquals": {"aws:username": ["alice", "bob"]}`.
type Condition struct {
	// Operator as written, with any ForAllValues:/ForAnyValue: prefix and
	// IfExists suffix.
	Operator string
	// Key as written; key names compare case-insensitively.
	Key string
	// Values are the policy values as strings: numbers as written, booleans as
	// "true"/"false".
	Values []string
	// Single records that the value was written alone rather than in an
	// array.
	Single bool
	// Unquoted records, value by value, which values were written as JSON
	// numbers or booleans rather than strings; nil when all were strings.
	// MarshalJSON writes such a value without quotes when it is a valid
	// JSON number or boolean.
	Unquoted []bool
}
