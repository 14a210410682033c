// Package revoke takes credentials back: it deletes a principal's keys and
// puts on it the policy that refuses every session issued before a time,
// and says when that policy may be lifted.
package revoke

import (
	"encoding/json"
	"fmt"
	"time"
)

// PolicyName is the inline policy that ends older sessions. It is the name
// the AWS console gives the policy of its "Revoke active sessions" button,
// so a revocation made there is read, renewed and lifted here, and the
// reverse.
const PolicyName = "AWSRevokeOlderSessions"

// The longest a session can outlive the moment it was issued, by how it was
// issued. A user's GetSessionToken and GetFederationToken sessions last at
// most 36 hours; a role session at most the role's MaxSessionDuration, and
// one assumed with another role's session (role chaining) at most an hour.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetSessionToken.html
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_manage-assume.html
const (
	UserSessionMax    = 36 * time.Hour
	ChainedSessionMax = time.Hour
)

// SessionDeny is the policy document that refuses every action to sessions
// issued before cutoff. Long-term access keys carry no aws:TokenIssueTime,
// so the condition never matches them: it ends sessions only.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
func SessionDeny(cutoff time.Time) string {
	doc := denyDocument{
		Version: "2012-10-17",
		Statement: []denyStatement{{
			Effect: "Deny", Action: []string{"*"}, Resource: []string{"*"},
			Condition: map[string]map[string]string{
				"DateLessThan": {"aws:TokenIssueTime": cutoff.UTC().Format(time.RFC3339)},
			},
		}},
	}
	b, _ := json.Marshal(doc) // a fixed shape of strings cannot fail to encode
	return string(b)
}

// Cutoff reads back the time a session-deny policy ends sessions before. It
// refuses a policy that is not one SessionDeny (or the AWS console) writes,
// since lifting it would remove rules nobody here put there.
func Cutoff(document string) (time.Time, error) {
	var doc denyDocument
	if err := json.Unmarshal([]byte(document), &doc); err != nil {
		return time.Time{}, fmt.Errorf("inline policy %s is not the session deny leash writes: %v", PolicyName, err)
	}
	if len(doc.Statement) != 1 || doc.Statement[0].Effect != "Deny" {
		return time.Time{}, fmt.Errorf("inline policy %s is not the session deny leash writes: want one Deny statement", PolicyName)
	}
	raw, ok := doc.Statement[0].Condition["DateLessThan"]["aws:TokenIssueTime"]
	if !ok {
		return time.Time{}, fmt.Errorf("inline policy %s has no DateLessThan aws:TokenIssueTime condition", PolicyName)
	}
	t, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return time.Time{}, fmt.Errorf("inline policy %s: aws:TokenIssueTime %q is not an RFC 3339 time", PolicyName, raw)
	}
	return t, nil
}

// LiftTime is the earliest moment the deny may be removed: when the last
// session issued before cutoff has expired.
func LiftTime(cutoff time.Time, longestSession time.Duration) time.Time {
	return cutoff.Add(longestSession)
}

// RoleLongestSession is the longest session a role can have issued: its
// MaxSessionDuration, and never less than a chained session's hour.
func RoleLongestSession(maxSessionDuration time.Duration) time.Duration {
	return max(maxSessionDuration, ChainedSessionMax)
}

// denyDocument is the one shape SessionDeny writes. Action and Resource are
// lists, as the AWS console writes them.
type denyDocument struct {
	Version   string          `json:"Version"`
	Statement []denyStatement `json:"Statement"`
}

type denyStatement struct {
	Effect    string                       `json:"Effect"`
	Action    []string                     `json:"Action"`
	Resource  []string                     `json:"Resource"`
	Condition map[string]map[string]string `json:"Condition"`
}
