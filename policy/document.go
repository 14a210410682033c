// Package policy is the AWS IAM policy language: documents and their JSON
// quirks, validation, compilation, evaluation with AWS's documented logic, and
// explanations of each decision. It does no I/O.
package policy

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
}

// Principal is the Principal or NotPrincipal element. Wildcard is true for
// `"Principal": "*"`; `{"AWS": "*"}` is kept as written in AWS.
type Principal struct {
	Wildcard      bool
	AWS           []string
	Service       []string
	Federated     []string
	CanonicalUser []string
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
}
