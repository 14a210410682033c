package localaws

import (
	"fmt"
	"strings"

	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// resolveCaller finds who signed the request and compiles (or takes from
// the cache) the policies that bound what they may do.
func (s *Server) resolveCaller(c *call) error {
	tx := c.tx
	cred, err := tx.LookupCredential(c.accessKeyID)
	if err != nil {
		return err
	}
	if cred.Status != store.Active || s.cfg.Now().Before(cred.NotBefore) {
		// The signature was checked against the key before this
		// transaction; a key deactivated since (a revocation racing the
		// key's holder) acts no more, and issues no session.
		return store.InvalidClientToken()
	}
	account := tx.Account().ID
	var (
		key   string
		perms store.Permissions
		// member is the calling user, whose groups' policies apply besides
		// perms; nil for a role session.
		member *store.User
	)
	c.session = cred.Session
	c.caller.Account = account
	if c.session != nil {
		c.caller.TokenIssueTime = c.session.Issued
	}
	if c.session != nil && c.session.RoleName != "" {
		role, err := tx.GetRole(c.session.RoleName)
		if err != nil || !c.session.IssuedTo(role.RoleID) {
			// The role was deleted after the session began, or replaced
			// by a new role of the same name: AWS ties a session to the
			// role's unique ID, so it refuses the session's requests.
			return store.InvalidClientToken()
		}
		c.caller.ARN, c.caller.UserID = c.session.AssumedRoleARN, c.session.AssumedRoleID
		c.issuer = roleIssuer(role, account)
		c.caller.Tags = tagMap(role.Tags, c.session.Tags)
		c.caller.SourceIdentity = c.session.SourceIdentity
		perms, key = role.Permissions, "session:"+c.accessKeyID
	} else {
		user, err := tx.GetUser(cred.UserName)
		if err != nil || !sameUser(cred, user) {
			// Deleted, renamed (even back), or replaced by a new user of the
			// same name: the key or session was not issued to this user.
			return store.InvalidClientToken()
		}
		c.userName = user.Name
		c.caller.ARN, c.caller.UserID = user.ARN, user.UserID
		c.caller.Tags = tagMap(user.Tags, nil)
		perms, key = user.Permissions, "user:"+strings.ToLower(user.Name)
		member = &user
		if c.session != nil {
			key = "session:" + c.accessKeyID
			c.issuer = userIssuer(user, account)
			if err := sessionTokenLimits(c.service, c.action); err != nil {
				return err
			}
		}
	}
	// Each account numbers its own revisions and names its own users.
	key = account + "/" + key
	principal, revision := key, tx.PermissionsRevision()
	key = fmt.Sprintf("%s@%d", key, revision)
	// Reading and parsing the documents is done only when the cache has no
	// compiled set for this principal at this revision, and for AssumeRole.
	session := c.session
	c.buildSet = func() (policy.Set, error) {
		var set policy.Set
		if session != nil && session.RoleName != "" {
			var err error
			if set.Session, err = sessionPolicy(tx, session); err != nil {
				return set, err
			}
		}
		var err error
		if member != nil {
			err = userIdentitySet(tx, *member, &set)
		} else {
			err = identitySet(tx, perms, &set)
		}
		return set, err
	}
	build := func() (*policy.Policies, error) {
		return s.cache.Get(key, func() (*policy.Policies, error) {
			set, err := c.buildSet()
			if err != nil {
				return nil, err
			}
			return policy.Compile(set)
		})
	}
	if s.propagation != nil {
		c.policies, err = s.propagation.policies(principal, revision, c.now, build)
	} else {
		c.policies, err = build()
	}
	return err
}

// sameUser reports whether user is the one cred was issued to, by the
// user's unique ID. A long-term key whose user ID was not recorded (state
// written before it was) is taken by its name: a key follows its user
// through renames and DeleteUser refuses a user that still has keys, so the
// name finds the key's own user.
func sameUser(cred store.Credential, user store.User) bool {
	if cred.Session != nil {
		return cred.Session.IssuedToUser(user)
	}
	return cred.UserID == "" || cred.UserID == user.UserID
}

// withResourcePolicy compiles the caller's policies together with a
// resource's own policy (a role's trust policy).
func (s *Server) withResourcePolicy(c *call, rp *resourcePolicy) (*policy.Policies, error) {
	doc, err := policy.Parse([]byte(rp.document), policy.Trust)
	if err != nil {
		return nil, fmt.Errorf("stored policy %s: %w", rp.name, err)
	}
	set, err := c.buildSet()
	if err != nil {
		return nil, err
	}
	set.ResourcePolicy = &policy.Named{Name: rp.name, Document: doc}
	return policy.Compile(set)
}

// identitySet adds a principal's inline and attached policies and its
// boundary to set.
func identitySet(tx *store.Tx, perms store.Permissions, set *policy.Set) error {
	for _, ip := range perms.InlinePolicies {
		d, err := parseStored(ip.Name, ip.Document, policy.Identity)
		if err != nil {
			return err
		}
		set.Identity = append(set.Identity, policy.Named{Name: ip.Name, Document: d})
	}
	for _, arn := range perms.AttachedPolicies {
		text, ok, err := managedDocument(tx, arn)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		d, err := parseStored(arn, text, policy.Identity)
		if err != nil {
			return err
		}
		set.Identity = append(set.Identity, policy.Named{Name: arn, Document: d})
	}
	if b := perms.PermissionsBoundary; b != "" {
		text, ok, err := managedDocument(tx, b)
		if err != nil {
			return err
		}
		if !ok {
			// A boundary leash local cannot read allows nothing, the safe
			// reading. The store refuses such a boundary when it is set,
			// so it is found only in state written before that check, or
			// naming an AWS managed policy AWS has since withdrawn.
			text = `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"*","Resource":"*"}]}`
		}
		d, err := parseStored(b, text, policy.Boundary)
		if err != nil {
			return err
		}
		set.Boundary = &policy.Named{Name: b, Document: d}
	}
	return nil
}

// managedDocument is the default version of a managed policy.
func managedDocument(tx *store.Tx, arn string) (string, bool, error) {
	if store.IsAWSManagedPolicy(arn) {
		p, err := awsManagedPolicy(arn)
		if err != nil {
			// Only state written before attachments were checked names
			// a policy not in the set; it grants nothing.
			return "", false, nil
		}
		return p.Document(), true, nil
	}
	text, err := tx.PolicyDocument(arn)
	if err != nil {
		return "", false, err
	}
	return text, true, nil
}

// sessionPolicy merges a session's inline and managed session policies into
// one document: together they allow what any of them allows.
func sessionPolicy(tx *store.Tx, s *store.Session) (*policy.Named, error) {
	if s.Policy == "" && len(s.PolicyARNs) == 0 {
		return nil, nil
	}
	merged := &policy.Document{Version: policy.Version2012}
	add := func(name, text string) error {
		d, err := parseStored(name, text, policy.Session)
		if err != nil {
			return err
		}
		merged.Statements = append(merged.Statements, d.Statements...)
		return nil
	}
	if s.Policy != "" {
		if err := add("session policy", s.Policy); err != nil {
			return nil, err
		}
	}
	for _, arn := range s.PolicyARNs {
		text, ok, err := managedDocument(tx, arn)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := add(arn, text); err != nil {
				return nil, err
			}
		}
	}
	return &policy.Named{Name: "session-policy", Document: merged}, nil
}

// parseStored parses a document the store accepted; they were checked when
// written, so a failure here is the server's fault.
func parseStored(name, text string, kind policy.Kind) (*policy.Document, error) {
	d, err := policy.Parse([]byte(text), kind)
	if err != nil {
		return nil, fmt.Errorf("stored policy %s: %w", name, err)
	}
	return d, nil
}

// tagMap is a principal's tags, a session tag replacing the role's tag of
// the same key regardless of case ("New session tags override existing
// assumed role or federated user tags with the same tag key, regardless of
// case": IAM User Guide, "Passing session tags in AWS STS"), so that
// aws:PrincipalTag/team has one value whatever order a map yields.
func tagMap(base, over store.Tags) map[string]string {
	m := make(map[string]string, len(base)+len(over))
	for _, t := range base {
		m[t.Key] = t.Value
	}
	for _, t := range over {
		for k := range m {
			if strings.EqualFold(k, t.Key) {
				delete(m, k)
			}
		}
		m[t.Key] = t.Value
	}
	return m
}
