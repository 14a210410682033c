package localaws

// operation is one API action: how to authorize it and what it does. Both
// run inside one store transaction (c.tx).
type operation struct {
	// readOnly operations run in a read transaction.
	readOnly bool
	// unsigned operations take no signature: AssumeRoleWithWebIdentity and
	// AssumeRoleWithSAML authenticate with the token they carry.
	unsigned bool
	// noPermission operations need no permission and no policy denies them:
	// any authenticated caller may call them, as AWS has it for
	// GetSessionToken.
	noPermission bool
	// prepare, when set, runs before the store transaction, for work that
	// must not hold the store, such as fetching an identity provider's keys.
	prepare func(c *call) error
	// target names what a signed request is authorized against.
	target func(c *call) (target, error)
	// run performs the action and returns the result to encode, or nil for
	// actions whose response has no result element.
	run func(c *call) (any, error)
}

// target is the resource a request is authorized against, with the
// action's own condition keys and, for a role's trust policy, the resource's
// policy.
type target struct {
	resource string
	// resourceAccount owns the resource when its ARN does not say so;
	// AWS managed policies (account "aws") are read as the caller's own.
	resourceAccount string
	keys            map[string][]string
	// resourcePolicy is the text of the resource's policy (a role's trust
	// policy), evaluated with the caller's policies; "" for none.
	resourcePolicy *resourcePolicy
}

type resourcePolicy struct {
	// name identifies the policy in explanations, such as the role's ARN.
	name     string
	document string
}
