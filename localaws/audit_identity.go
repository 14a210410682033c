package localaws

import (
	"leash.dev/leash/localaws/audit"
	"leash.dev/leash/localaws/internal/store"
)

// sessionContext is CloudTrail's userIdentity.sessionContext for a request
// signed with temporary credentials: when the session was issued, that it
// was not authenticated with MFA (leash local has no MFA devices), the
// role or user it was issued for, and its source identity when it has one.
// CloudTrail writes it for AssumedRole identities and for IAMUser
// identities using GetSessionToken's credentials (CloudTrail user guide,
// "CloudTrail userIdentity element":
// https://docs.aws.amazon.com/awscloudtrail/latest/userguide/cloudtrail-event-reference-user-identity.html;
// sourceIdentity: IAM User Guide, "Monitor and control actions taken with
// assumed roles",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_credentials_temp_control-access_monitor.html).
func sessionContext(s *store.Session, issuer *audit.SessionIssuer) *audit.SessionContext {
	return &audit.SessionContext{
		Attributes:     audit.SessionAttributes{CreationDate: s.Issued, MFAAuthenticated: "false"},
		SessionIssuer:  issuer,
		SourceIdentity: s.SourceIdentity,
	}
}

// roleIssuer is a role as a session's issuer.
func roleIssuer(r store.Role, account string) *audit.SessionIssuer {
	return &audit.SessionIssuer{Type: "Role", PrincipalID: r.RoleID, ARN: r.ARN, AccountID: account, UserName: r.Name}
}

// userIssuer is a user as the issuer of its GetSessionToken session.
func userIssuer(u store.User, account string) *audit.SessionIssuer {
	return &audit.SessionIssuer{Type: "IAMUser", PrincipalID: u.UserID, ARN: u.ARN, AccountID: account, UserName: u.Name}
}
