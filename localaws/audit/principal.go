package audit

import (
	"strings"
	"time"
)

// Selects reports whether a call made as id is a call of principal or of a
// session derived from it. This is the one place that decides what a
// principal ARN selects, for every source of records:
//
//   - a role (arn:aws:iam::ACCOUNT:role/PATH/NAME) selects its assumed-role
//     sessions: those whose session issuer is the role, and, for records that
//     carry no session context, those whose ARN is
//     arn:aws:sts::ACCOUNT:assumed-role/NAME/SESSION (a role's name is unique
//     in its account, and assumed-role ARNs drop the path);
//   - a user (arn:aws:iam::ACCOUNT:user/PATH/NAME) selects its own calls and
//     those of its GetSessionToken sessions (both carry the user's ARN), and
//     the federated users it issued (their session issuer is the user);
//   - any other ARN, such as one assumed-role session
//     (arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION), selects calls made
//     with exactly that ARN.
//
// An empty principal selects every call.
func Selects(principal string, id *Identity) bool {
	if principal == "" || id.ARN == principal {
		return true
	}
	if sc := id.SessionContext; sc != nil && sc.SessionIssuer != nil && sc.SessionIssuer.ARN == principal {
		return true
	}
	if prefix, ok := assumedRolePrefix(principal); ok {
		return strings.HasPrefix(id.ARN, prefix)
	}
	return false
}

// assumedRolePrefix is the start of the ARNs of a role's sessions,
// "arn:PARTITION:sts::ACCOUNT:assumed-role/NAME/", when principal is a
// role's ARN.
func assumedRolePrefix(principal string) (string, bool) {
	// arn:PARTITION:iam::ACCOUNT:role/PATH/NAME
	parts := strings.SplitN(principal, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "iam" || parts[4] == "" || !strings.HasPrefix(parts[5], "role/") {
		return "", false
	}
	name := parts[5][strings.LastIndexByte(parts[5], '/')+1:]
	if name == "" {
		return "", false
	}
	return "arn:" + parts[1] + ":sts::" + parts[4] + ":assumed-role/" + name + "/", true
}

// IssuedBefore reports whether the call was made with a session issued
// before t. A call made with a long-term key, or a record that does not say
// when its session was issued, was not.
func (id *Identity) IssuedBefore(t time.Time) bool {
	if id.SessionContext == nil {
		return false
	}
	at := id.SessionContext.Attributes.CreationDate
	return !at.IsZero() && at.Before(t)
}
