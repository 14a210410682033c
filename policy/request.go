package policy

import (
	"strings"
)

// Request is one authorization question: may Principal perform Action on
// Resource, given Context?
type Request struct {
	// Principal is the caller: an IAM user, role session (assumed-role),
	// federated user or account root ARN; a service principal such as
	// "ec2.amazonaws.com"; or a web identity provider (an oidc-provider or
	// saml-provider ARN, or a name such as "accounts.google.com").
	Principal string
	// Action is "service:Action", such as "s3:GetObject".
	Action string
	// Resource is the resource ARN, or "*" (or empty) for actions that do not
	// support resource-level permissions.
	Resource string
	// ResourceAccount is the account that owns the resource. Empty means the
	// account in the resource ARN, else the principal's.
	ResourceAccount string
	// Context holds the request's condition keys.
	Context Context
}

// Context holds condition key values. Key names are case-insensitive.
type Context struct {
	m map[string]contextValue
}

type contextValue struct {
	values []string
	// multi is true for a multivalued key (given as a list, or a key AWS
	// defines as multivalued such as aws:TagKeys), which only set operators
	// (ForAllValues:, ForAnyValue:) can test.
	multi bool
}

// multivaluedKeys are AWS global keys that are always multivalued.
var multivaluedKeys = map[string]bool{
	"aws:tagkeys":                   true,
	"aws:calledvia":                 true,
	"aws:principalorgpaths":         true,
	"aws:principalservicenameslist": true,
	"aws:sourceorgpaths":            true,
	"aws:resourceorgpaths":          true,
}

// Set sets a single-valued key (or a multivalued one, for keys AWS defines as
// multivalued).
func (c *Context) Set(key, value string) {
	k := strings.ToLower(key)
	c.put(k, contextValue{values: []string{value}, multi: multivaluedKeys[k]})
}

// SetList sets a multivalued key; an empty list is a key that is present
// with no values.
func (c *Context) SetList(key string, values []string) {
	c.put(strings.ToLower(key), contextValue{values: append([]string{}, values...), multi: true})
}

// Add appends a value to a key, making it multivalued once it has two.
func (c *Context) Add(key, value string) {
	k := strings.ToLower(key)
	cur, ok := c.m[k]
	if !ok {
		c.Set(key, value)
		return
	}
	cur.values = append(cur.values, value)
	cur.multi = true
	c.put(k, cur)
}

// Delete removes a key.
func (c *Context) Delete(key string) { delete(c.m, strings.ToLower(key)) }

// Get returns a key's values and whether it is present.
func (c *Context) Get(key string) ([]string, bool) {
	v, ok := c.m[strings.ToLower(key)]
	return v.values, ok
}

// Keys returns the key names, lower-cased, in no particular order.
func (c *Context) Keys() []string {
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	return keys
}

// IsMultivalued reports whether a present key is multivalued.
func (c *Context) IsMultivalued(key string) bool {
	return c.m[strings.ToLower(key)].multi
}

func (c *Context) put(k string, v contextValue) {
	if c.m == nil {
		c.m = make(map[string]contextValue)
	}
	c.m[k] = v
}

// lookup takes a lower-cased key.
func (c *Context) lookup(k string) (contextValue, bool) {
	if c == nil || c.m == nil {
		return contextValue{}, false
	}
	v, ok := c.m[k]
	return v, ok
}

// single returns the value of a single-valued key; multivalued keys have no
// single value, so a policy variable naming one does not resolve.
func (c *Context) single(k string) (string, bool) {
	v, ok := c.lookup(k)
	if !ok || v.multi || len(v.values) != 1 {
		return "", false
	}
	return v.values[0], true
}

// AddPrincipalKeys sets the keys AWS derives from the caller, unless the
// context already has them: aws:PrincipalArn (for a role session, the role's
// ARN), aws:PrincipalAccount, aws:PrincipalType and, for IAM users,
// aws:username.
func (c *Context) AddPrincipalKeys(principal string) {
	p := parseCaller(principal)
	// k is lower-case already, as the context keeps its keys.
	setDefault := func(k, v string) {
		if _, ok := c.lookup(k); !ok && v != "" {
			c.Set(k, v)
		}
	}
	var arn, typ string
	switch p.kind {
	case callerUser:
		arn, typ = principal, "User"
		setDefault("aws:username", p.name)
	case callerRoleSession:
		parts, _ := splitARN(principal)
		arn, typ = parts[0]+":"+parts[1]+":iam::"+p.account+":role/"+p.name, "AssumedRole"
	case callerRole:
		arn, typ = principal, "AssumedRole"
	case callerFederatedUser:
		arn, typ = principal, "FederatedUser"
	case callerRoot:
		arn, typ = principal, "Account"
	default:
		return
	}
	setDefault("aws:principalarn", arn)
	setDefault("aws:principalaccount", p.account)
	setDefault("aws:principaltype", typ)
}
