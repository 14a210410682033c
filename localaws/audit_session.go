package localaws

import "leash.dev/leash/localaws/audit"

// sessionContext is CloudTrail's userIdentity.sessionContext for a call made
// with temporary credentials: when the session was issued, which is what
// leash audit --issued-before asks after a revoke. nil for a long-term key.
// The session issuer is left out: a role session's ARN already names its
// role, and a GetSessionToken session carries the user's ARN.
func (c *call) sessionContext() *audit.SessionContext {
	if c.session == nil || c.session.Issued.IsZero() {
		return nil
	}
	return &audit.SessionContext{Attributes: audit.SessionAttributes{CreationDate: c.session.Issued.UTC(), MFAAuthenticated: "false"}}
}
