package localaws

import (
	"net/http"
	"time"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// stsOperations are the STS actions leash local serves.
func stsOperations() map[string]operation {
	ops := map[string]operation{}
	ops["GetCallerIdentity"] = operation{
		readOnly: true,
		// GetCallerIdentity needs no permission; the engine allows it even
		// under an explicit deny, as AWS does.
		target: func(c *call) (target, error) { return target{resource: "*"}, nil },
		run: func(c *call) (any, error) {
			return struct {
				UserID  string `xml:"UserId"`
				Account string `xml:"Account"`
				Arn     string `xml:"Arn"`
			}{c.caller.UserID, c.caller.Account, c.caller.ARN}, nil
		},
	}
	ops["GetSessionToken"] = operation{
		// "No permissions are required for a user to get a session token",
		// and no policy can deny it (IAM User Guide, Permissions for
		// GetSessionToken).
		noPermission: true,
		run:          getSessionToken,
	}
	ops["AssumeRole"] = operation{target: assumeRoleTarget, run: assumeRole}
	ops["AssumeRoleWithWebIdentity"] = webIdentityOperation(newOIDCKeys())
	stsKeyInfoOperations(ops)
	ops["AssumeRoleWithSAML"] = operation{
		unsigned: true,
		run: func(c *call) (any, error) {
			return nil, query.NewError(http.StatusBadRequest, "InvalidAction",
				"leash local does not serve AssumeRoleWithSAML: federate with OpenID Connect (AssumeRoleWithWebIdentity), or use an IAM user's key and AssumeRole")
		},
	}
	return ops
}

// Durations of GetSessionToken's sessions, in seconds.
const (
	minSessionSeconds            = 900
	maxUserSessionSeconds        = 129600
	defaultUserSessionSeconds    = 43200
	defaultRoleSessionSeconds    = 3600
	maxRoleSessionSeconds        = 43200
	maxChainedRoleSessionSeconds = 3600
)

// credentialsShape is STS's Credentials: the one place a session's secrets
// leave the server.
type credentialsShape struct {
	AccessKeyID     string          `xml:"AccessKeyId"`
	SecretAccessKey string          `xml:"SecretAccessKey"`
	SessionToken    string          `xml:"SessionToken"`
	Expiration      query.Timestamp `xml:"Expiration"`
}

func credentialsOf(s store.Session) credentialsShape {
	return credentialsShape{AccessKeyID: s.AccessKeyID, SecretAccessKey: s.SecretAccessKey.Reveal(),
		SessionToken: s.SessionToken.Reveal(), Expiration: query.Timestamp(s.Expiration)}
}

// getSessionToken issues temporary credentials for the calling user, with
// the user's permissions.
func getSessionToken(c *call) (any, error) {
	seconds, given, qerr := c.q.Int("DurationSeconds", minSessionSeconds, maxUserSessionSeconds)
	if qerr != nil {
		return nil, qerr
	}
	if !given {
		seconds = defaultUserSessionSeconds
	}
	if err := refuseMFA(c); err != nil {
		return nil, err
	}
	if c.session != nil {
		// GetSessionToken takes a user's long-term key, as in AWS.
		return nil, query.AccessDenied("Cannot call GetSessionToken with session credentials")
	}
	s, err := c.tx.CreateSession(store.Session{UserName: c.userName}, time.Duration(seconds)*time.Second)
	if err != nil {
		return nil, err
	}
	return struct {
		Credentials credentialsShape `xml:"Credentials"`
	}{credentialsOf(s)}, nil
}

// refuseMFA refuses a request that sends an MFA code: leash local has no MFA
// devices, so no code can be right.
func refuseMFA(c *call) error {
	if _, ok := c.q.String("TokenCode"); ok {
		return query.AccessDenied("MultiFactorAuthentication failed with invalid MFA one time pass code. (leash local has no MFA devices.)")
	}
	return nil
}
