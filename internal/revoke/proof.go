package revoke

import (
	"fmt"
	"strings"
	"time"

	"leash.dev/leash/policy"
)

// A proof asks the engine about the document IAM holds, read back after
// the write: the revocation relies on what IAM has, not on what was sent.
// An explicit deny in any identity policy of the principal refuses a
// request whatever else applies (no allow, boundary or resource policy
// overrides it), so the deny document alone decides each question here.
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html

// probe is one call a proof asks about.
type probe struct{ action, resource string }

// probes are the calls of a revoked principal's holder: the ones that would
// undo the revocation or keep a way in (its own policies, keys and trust,
// assuming other roles, new sessions), ordinary use of other services, and
// an action no policy names, which only a deny of "*" refuses. %[1]s is
// the principal's IAM ARN, %[2]s its account.
var probes = []probe{
	{"iam:DeleteRolePolicy", "%[1]s"},
	{"iam:PutRolePolicy", "%[1]s"},
	{"iam:DeleteUserPolicy", "%[1]s"},
	{"iam:PutUserPolicy", "%[1]s"},
	{"iam:AttachUserPolicy", "%[1]s"},
	{"iam:CreateAccessKey", "%[1]s"},
	{"iam:UpdateAccessKey", "%[1]s"},
	{"iam:UpdateAssumeRolePolicy", "%[1]s"},
	{"iam:CreateUser", "arn:aws:iam::%[2]s:user/leash-revoke-probe"},
	{"sts:AssumeRole", "arn:aws:iam::%[2]s:role/leash-revoke-probe"},
	{"sts:GetFederationToken", "arn:aws:sts::%[2]s:federated-user/leash-revoke-probe"},
	{"s3:GetObject", "arn:aws:s3:::leash-revoke-probe/key"},
	{"ec2:RunInstances", "arn:aws:ec2:us-east-1:%[2]s:instance/*"},
	{"kms:Decrypt", "arn:aws:kms:us-east-1:%[2]s:key/leash-revoke-probe"},
	{"leashprobe:AnyAction", "*"},
}

// caller is who a proof's requests come from: a session of a role, or a
// user (whose GetSessionToken sessions act with the user's ARN).
type caller struct {
	arn     string // the principal's IAM ARN
	account string
	session string // the ARN its sessions call with
}

func callerOf(principalARN string) (caller, error) {
	parts := strings.SplitN(principalARN, ":", 6)
	if len(parts) != 6 || parts[2] != "iam" {
		return caller{}, fmt.Errorf("%s is not an IAM user or role ARN", principalARN)
	}
	c := caller{arn: principalARN, account: parts[4], session: principalARN}
	if name, ok := strings.CutPrefix(parts[5], "role/"); ok {
		name = name[strings.LastIndexByte(name, '/')+1:]
		c.session = "arn:" + parts[1] + ":sts::" + parts[4] + ":assumed-role/" + name + "/leash-revoke-probe"
	}
	return c, nil
}

// decide asks the engine about one probe against document alone.
func (c caller) decide(ps *policy.Policies, p probe, issued time.Time) policy.Decision {
	r := &policy.Request{Principal: c.session, Action: p.action, Resource: fmt.Sprintf(p.resource, c.arn, c.account)}
	if !issued.IsZero() {
		r.Context.Set("aws:TokenIssueTime", issued.UTC().Format(time.RFC3339))
	}
	r.Context.AddPrincipalKeys(c.session)
	return ps.Decide(r)
}

func compileOne(name, document string) (*policy.Policies, error) {
	doc, err := policy.ParseString(document, policy.Identity)
	if err != nil {
		return nil, fmt.Errorf("the engine cannot read %s: %v", name, err)
	}
	return policy.Compile(policy.Set{Identity: []policy.Named{{Name: name, Document: doc}}})
}

// ProveDeny asks the engine whether document refuses every probe call to
// sessions of principal issued before d.Cutoff (a second before it, and as
// early as its longest session reaches back), and refuses nothing to a
// session issued at the cutoff or to a long-term key, which are what the
// principal is given afresh. The error says which question failed.
func ProveDeny(document, principal string, d Deny, longest time.Duration) error {
	c, err := callerOf(principal)
	if err != nil {
		return err
	}
	ps, err := compileOne(PolicyName, document)
	if err != nil {
		return err
	}
	for _, p := range probes {
		for _, issued := range []time.Time{d.Cutoff.Add(-time.Second), d.Cutoff.Add(-longest)} {
			if got := c.decide(ps, p, issued); got != policy.ExplicitDeny {
				return fmt.Errorf("a session issued at %s would not be refused %s (the engine says %s)", issued.Format(time.RFC3339), p.action, got)
			}
		}
		if got := c.decide(ps, p, d.Cutoff); got == policy.ExplicitDeny {
			return fmt.Errorf("a session issued at the cutoff %s would be refused %s too", d.Cutoff.Format(time.RFC3339), p.action)
		}
		if got := c.decide(ps, p, time.Time{}); got == policy.ExplicitDeny {
			return fmt.Errorf("a new access key would be refused %s too", p.action)
		}
	}
	return nil
}

// LockoutName is the inline policy that holds a user still while its keys
// are removed: it refuses every call of the user's keys and sessions,
// those made during the revocation included, so the holder of a leaked key
// cannot make another, reactivate one or change the user's policies
// meanwhile. It is removed once the keys are gone and the session deny is
// proven.
const LockoutName = "LeashRevokeInProgress"

// Lockout is LockoutName's document: every action denied, without
// condition.
func Lockout() string {
	return `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":["*"],"Resource":["*"]}]}`
}

// ProveLockout asks the engine whether document refuses every probe call
// to principal's long-term keys and to its sessions, however recent.
func ProveLockout(document, principal string, now time.Time) error {
	c, err := callerOf(principal)
	if err != nil {
		return err
	}
	ps, err := compileOne(LockoutName, document)
	if err != nil {
		return err
	}
	for _, p := range probes {
		for _, issued := range []time.Time{{}, now, now.Add(time.Hour)} {
			if got := c.decide(ps, p, issued); got != policy.ExplicitDeny {
				return fmt.Errorf("%s would not be refused (the engine says %s)", p.action, got)
			}
		}
	}
	return nil
}
