// Package revoke takes credentials back: it deletes a principal's keys and
// puts on it the policy that refuses every session issued before a time,
// proves with the engine that the policy IAM holds does so, and says when
// that policy may be lifted.
package revoke

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// PolicyName is the inline policy that ends older sessions. It is the name
// the AWS console gives the policy of its "Revoke active sessions" button,
// so a revocation made there is read, renewed and lifted here, and the
// reverse.
const PolicyName = "AWSRevokeOlderSessions"

// The longest a session can outlive the moment it was issued, by how it was
// issued. A user's GetSessionToken and GetFederationToken sessions last at
// most 36 hours; a role session at most the role's MaxSessionDuration, which
// IAM caps at 12 hours, and one assumed with another role's session (role
// chaining) at most an hour.
// https://docs.aws.amazon.com/STS/latest/APIReference/API_GetSessionToken.html
// https://docs.aws.amazon.com/IAM/latest/APIReference/API_CreateRole.html (MaxSessionDuration)
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_manage-assume.html
const (
	UserSessionMax    = 36 * time.Hour
	RoleSessionMax    = 12 * time.Hour
	ChainedSessionMax = time.Hour
)

// Deny is a session deny: sessions issued before Cutoff are refused every
// action.
type Deny struct {
	Cutoff time.Time
	// LongestSession is the longest a session issued before the cutoff
	// could last, recorded when the deny was written (the role's
	// MaxSessionDuration then), so that lowering it later cannot bring the
	// lift time forward. Zero when the deny carries no record, as the AWS
	// console's does not.
	LongestSession time.Duration
}

// recordSid is the statement ID that records the longest session: Sids
// are letters and digits only, so the seconds are written out.
const recordSid = "LeashLongestSession"

var recordPattern = regexp.MustCompile(`^` + recordSid + `([1-9][0-9]{0,8})$`)

// SessionDeny is the policy document that refuses every action to sessions
// issued before d.Cutoff. Long-term access keys carry no
// aws:TokenIssueTime, so the condition never matches them: it ends
// sessions only.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_revoke-sessions.html
func SessionDeny(d Deny) string {
	st := denyStatement{
		Effect: "Deny", Action: []string{"*"}, Resource: []string{"*"},
		Condition: map[string]map[string]string{
			"DateLessThan": {"aws:TokenIssueTime": d.Cutoff.UTC().Format(time.RFC3339)},
		},
	}
	if s := int64(d.LongestSession / time.Second); s > 0 {
		st.Sid = recordSid + strconv.FormatInt(s, 10)
	}
	b, _ := json.Marshal(denyDocument{Version: "2012-10-17", Statement: []denyStatement{st}}) // a fixed shape of strings cannot fail to encode
	return string(b)
}

// ReadDeny reads back a session deny. It accepts exactly the shape
// SessionDeny and the AWS console write, field by field: one Deny
// statement of every action on every resource whose one condition is
// DateLessThan aws:TokenIssueTime with one time. Anything else under the
// name (an Allow, an action or resource that is not "*", another
// condition that could fail to match, a NotAction) may refuse nothing,
// however it is named, so it is not a deny here.
func ReadDeny(document string) (Deny, error) {
	if err := uniqueKeys(json.NewDecoder(strings.NewReader(document))); err != nil {
		return Deny{}, fmt.Errorf("not the session deny's shape (%v)", err)
	}
	dec := json.NewDecoder(strings.NewReader(document))
	dec.DisallowUnknownFields()
	var doc struct {
		Version   string
		Statement []struct {
			Sid       string
			Effect    string
			Action    stringOrList
			Resource  stringOrList
			Condition map[string]map[string]stringOrList
		}
	}
	if err := dec.Decode(&doc); err != nil {
		return Deny{}, fmt.Errorf("not the session deny's shape (%v)", err)
	}
	if len(doc.Statement) != 1 {
		return Deny{}, fmt.Errorf("has %d statements, not one", len(doc.Statement))
	}
	st := doc.Statement[0]
	switch {
	case doc.Version != "2012-10-17":
		return Deny{}, fmt.Errorf("has Version %q, not 2012-10-17", doc.Version)
	case st.Effect != "Deny":
		return Deny{}, fmt.Errorf("has Effect %q, not Deny", st.Effect)
	case !st.Action.is("*"):
		return Deny{}, fmt.Errorf("denies Action %v, not every action (\"*\")", []string(st.Action))
	case !st.Resource.is("*"):
		return Deny{}, fmt.Errorf("denies Resource %v, not every resource (\"*\")", []string(st.Resource))
	case len(st.Condition) != 1 || len(st.Condition["DateLessThan"]) != 1:
		return Deny{}, fmt.Errorf("has conditions other than the one DateLessThan aws:TokenIssueTime")
	}
	raw, ok := st.Condition["DateLessThan"]["aws:TokenIssueTime"]
	if !ok || len(raw) != 1 {
		return Deny{}, fmt.Errorf("has no single DateLessThan aws:TokenIssueTime time")
	}
	t, err := time.Parse(time.RFC3339, raw[0])
	if err != nil {
		return Deny{}, fmt.Errorf("has aws:TokenIssueTime %q, not an RFC 3339 time", raw[0])
	}
	d := Deny{Cutoff: t.UTC()}
	if st.Sid != "" {
		m := recordPattern.FindStringSubmatch(st.Sid)
		if m == nil {
			return Deny{}, fmt.Errorf("has Sid %q, which the session deny does not write", st.Sid)
		}
		s, _ := strconv.ParseInt(m[1], 10, 64) // nine digits fit
		d.LongestSession = time.Duration(s) * time.Second
	}
	return d, nil
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
	Sid       string                       `json:"Sid,omitempty"`
	Effect    string                       `json:"Effect"`
	Action    []string                     `json:"Action"`
	Resource  []string                     `json:"Resource"`
	Condition map[string]map[string]string `json:"Condition,omitempty"`
}

// stringOrList is an IAM value written as a string or a list of strings.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("want a string or a list of strings")
	}
	*s = many
	return nil
}

func (s stringOrList) is(v string) bool { return len(s) == 1 && s[0] == v }

// uniqueKeys refuses a JSON value holding an object with a key twice, in
// any letter case: Go's decoding keeps the last of two and matches names
// regardless of case, and a policy read one way here and another way by
// IAM would prove nothing.
func uniqueKeys(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key := strings.ToLower(k.(string))
			if seen[key] {
				return fmt.Errorf("the key %q is written twice", k)
			}
			seen[key] = true
			if err := uniqueKeys(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for dec.More() {
			if err := uniqueKeys(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('}'), json.Delim(']'):
		err = errors.New("unbalanced JSON")
	}
	return err
}
