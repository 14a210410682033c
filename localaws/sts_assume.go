package localaws

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"leash.dev/leash/localaws/internal/authz"
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
	"leash.dev/leash/policy"
)

// STS's limits on what a role session asks for (STS API reference).
const (
	maxSessionPolicyLen  = 2048
	maxSessionPolicyARNs = 10
	maxSessionTags       = 50
	// packedLimit is the budget of the session policies and tags together,
	// in bytes of compact JSON, ARNs and tag text. AWS packs them into a
	// binary form whose limit it does not publish; PackedPolicySize reports
	// the percentage of this budget used.
	packedLimit = 2048
)

var (
	sessionNamePattern    = regexp.MustCompile(`^[\w+=,.@-]*$`)
	externalIDPattern     = regexp.MustCompile(`^[\w+=,.@:/-]*$`)
	sessionPolicyPattern  = regexp.MustCompile(`^[\t\n\r\x20-\x{FF}]+$`)
	sessionNameConstraint = `Member must satisfy regular expression pattern: [\w+=,.@-]*`
)

// sessionRequest is what AssumeRole and AssumeRoleWithWebIdentity ask for.
type sessionRequest struct {
	roleARN     string
	sessionName string
	// seconds is DurationSeconds, 0 when absent.
	seconds    int
	policy     string
	policyARNs []string
	// AssumeRole's only.
	tags           []query.Tag
	transitiveKeys []string
	externalID     string
	// sourceIdentity is the one passed, or the one the calling session
	// hands on (see inherit).
	sourceIdentity string
	// inherited are the calling session's transitive tags, which the new
	// session carries besides tags.
	inherited store.Tags
}

// readSessionRequest reads and checks the parameters the two operations
// share and, for AssumeRole, its own, with STS's constraints.
func readSessionRequest(c *call, assumeRole bool) (sessionRequest, error) {
	var in sessionRequest
	var err error
	if in.roleARN, err = c.required("RoleArn"); err != nil {
		return in, err
	}
	if n := utf8.RuneCountInString(in.roleARN); n < 20 || n > 2048 {
		return in, c.q.Invalid("RoleArn", lengthConstraint(n, 20, 2048))
	}
	if in.sessionName, err = c.required("RoleSessionName"); err != nil {
		return in, err
	}
	if n := utf8.RuneCountInString(in.sessionName); n < 2 || n > 64 {
		return in, c.q.Invalid("RoleSessionName", lengthConstraint(n, 2, 64))
	}
	if !sessionNamePattern.MatchString(in.sessionName) {
		return in, c.q.Invalid("RoleSessionName", sessionNameConstraint)
	}
	seconds, _, qerr := c.q.Int("DurationSeconds", minSessionSeconds, maxRoleSessionSeconds)
	if qerr != nil {
		return in, qerr
	}
	in.seconds = seconds
	if doc, ok := c.q.String("Policy"); ok {
		if qerr := checkDocumentLength("Policy", doc, maxSessionPolicyLen); qerr != nil {
			return in, qerr
		}
		if !sessionPolicyPattern.MatchString(doc) {
			return in, hiddenInvalid("policy", `Member must satisfy regular expression pattern: [\u0009\u000A\u000D\u0020-\u00FF]+`)
		}
		if _, err := policy.Parse([]byte(doc), policy.Session); err != nil {
			return in, query.MalformedPolicyDocument(err.Error())
		}
		in.policy = doc
	}
	if in.policyARNs, qerr = c.q.PolicyARNs("PolicyArns"); qerr != nil {
		return in, qerr
	}
	if len(in.policyARNs) > maxSessionPolicyARNs {
		return in, c.q.Invalid("PolicyArns", fmt.Sprintf("Member must have length less than or equal to %d", maxSessionPolicyARNs))
	}
	if !assumeRole {
		return in, nil
	}
	if in.tags, qerr = c.q.Tags("Tags"); qerr != nil {
		return in, qerr
	}
	if len(in.tags) > maxSessionTags {
		return in, c.q.Invalid("Tags", fmt.Sprintf("Member must have length less than or equal to %d", maxSessionTags))
	}
	if in.transitiveKeys, qerr = c.q.List("TransitiveTagKeys"); qerr != nil {
		return in, qerr
	}
	if len(in.transitiveKeys) > maxSessionTags {
		return in, c.q.Invalid("TransitiveTagKeys", fmt.Sprintf("Member must have length less than or equal to %d", maxSessionTags))
	}
	if id, ok := c.q.String("ExternalId"); ok {
		// The external ID is a shared secret of sorts: messages (and so the
		// audit log) do not quote it.
		if n := utf8.RuneCountInString(id); n < 2 || n > 1224 {
			return in, hiddenInvalid("externalId", lengthConstraint(n, 2, 1224))
		}
		if !externalIDPattern.MatchString(id) {
			return in, hiddenInvalid("externalId", `Member must satisfy regular expression pattern: [\w+=,.@:\/-]*`)
		}
		in.externalID = id
	}
	if si, ok := c.q.String("SourceIdentity"); ok {
		if n := utf8.RuneCountInString(si); n < 2 || n > 64 {
			return in, c.q.Invalid("SourceIdentity", lengthConstraint(n, 2, 64))
		}
		if !sessionNamePattern.MatchString(si) {
			return in, c.q.Invalid("SourceIdentity", sessionNameConstraint)
		}
		in.sourceIdentity = si
	}
	if err := refuseMFA(c); err != nil {
		return in, err
	}
	return in, in.inherit(c.session)
}

// lengthConstraint words the length constraint a value of n characters
// breaks.
func lengthConstraint(n, min, max int) string {
	if n < min {
		return fmt.Sprintf("Member must have length greater than or equal to %d", min)
	}
	return fmt.Sprintf("Member must have length less than or equal to %d", max)
}

// hiddenInvalid is a ValidationError that does not quote the value, for
// parameters that must not reach messages or the audit log.
func hiddenInvalid(field, constraint string) *query.Error {
	return query.ValidationError("1 validation error detected: Value at '" + field + "' failed to satisfy constraint: " + constraint)
}

// keys are the condition keys AssumeRole's request carries (IAM User Guide,
// "IAM and AWS STS condition context keys").
func (in *sessionRequest) keys() map[string][]string {
	keys := tagKeys(in.tags)
	if keys == nil {
		keys = map[string][]string{}
	}
	keys["sts:RoleSessionName"] = []string{in.sessionName}
	if in.externalID != "" {
		keys["sts:ExternalId"] = []string{in.externalID}
	}
	if in.sourceIdentity != "" {
		keys["sts:SourceIdentity"] = []string{in.sourceIdentity}
	}
	if len(in.transitiveKeys) > 0 {
		keys["sts:TransitiveTagKeys"] = in.transitiveKeys
	}
	return keys
}

// roleOfARN is the role that arn names, with its path, in the call's
// account or another the server holds; ok is false when there is none. STS
// answers an unknown role with AccessDenied, as it answers a role the
// caller may not assume.
func (c *call) roleOfARN(arn string) (role store.Role, ok bool, err error) {
	if other := c.roleStore(arn); other != nil {
		// A read of another account's state inside this one's transaction:
		// a read never waits on another account's writer.
		err = other.View(c.ctx, func(tx *store.Tx) error {
			role, ok, err = roleIn(tx, arn)
			return err
		})
		return role, ok, err
	}
	return roleIn(c.tx, arn)
}

// roleIn is the role of tx's account that arn names.
func roleIn(tx *store.Tx, arn string) (role store.Role, ok bool, err error) {
	rest, found := strings.CutPrefix(arn, "arn:aws:iam::"+tx.Account().ID+":role/")
	if !found || rest == "" {
		return store.Role{}, false, nil
	}
	role, err = tx.GetRole(rest[strings.LastIndexByte(rest, '/')+1:])
	switch {
	case errors.Is(err, store.ErrNotFound):
		return store.Role{}, false, nil
	case err != nil:
		return store.Role{}, false, err
	}
	return role, role.ARN == arn, nil
}

// roleTarget is what AssumeRole is authorized against: the role, with its
// trust policy as the resource's policy.
func (c *call) roleTarget(in *sessionRequest) (store.Role, target, error) {
	role, ok, err := c.roleOfARN(in.roleARN)
	if err != nil {
		return store.Role{}, target{}, err
	}
	if !ok {
		// Nothing trusts a role that does not exist: worded as a trust
		// policy that does not allow the caller.
		c.authz().AuthorizedResource, c.authz().Decision = in.roleARN, policy.ImplicitDeny.String()
		res := policy.Result{Decision: policy.ImplicitDeny, Reasons: []policy.Reason{{Code: policy.ReasonResourcePolicyNoAllow}}}
		return store.Role{}, target{}, query.AccessDenied(authz.Message(c.caller.ARN, "sts:AssumeRole", in.roleARN, res))
	}
	t := target{resource: role.ARN, keys: in.keys(),
		resourcePolicy: &resourcePolicy{name: role.ARN, document: role.AssumeRolePolicyDocument}}
	return role, t, nil
}

func assumeRoleTarget(c *call) (target, error) {
	in, err := readSessionRequest(c, true)
	if err != nil {
		return target{}, err
	}
	_, t, err := c.roleTarget(&in)
	return t, err
}

// assumeRole issues a role session. The pipeline has authorized
// sts:AssumeRole against the role's trust policy; session tags and a source
// identity need sts:TagSession and sts:SetSourceIdentity as well, as in AWS,
// whether passed or inherited from the calling session: "When you assume a
// role with another role, called role chaining, permissions for
// sts:SetSourceIdentity are required" (IAM User Guide, "Monitor and control
// actions taken with assumed roles"), and STS refuses a chained AssumeRole
// that carries transitive tags into a role whose trust policy does not
// allow sts:TagSession.
func assumeRole(c *call) (any, error) {
	in, err := readSessionRequest(c, true)
	if err != nil {
		return nil, err
	}
	role, t, err := c.roleTarget(&in)
	if err != nil {
		return nil, err
	}
	if len(in.tags) > 0 || len(in.inherited) > 0 {
		if err := c.srv.authorizeAction(c, "sts:TagSession", t); err != nil {
			return nil, err
		}
	}
	if in.sourceIdentity != "" {
		if err := c.srv.authorizeAction(c, "sts:SetSourceIdentity", t); err != nil {
			return nil, err
		}
	}
	chained := c.session != nil && c.session.RoleName != ""
	if other := c.roleStore(in.roleARN); other != nil {
		// The session belongs to the role's account: issued there once
		// the caller's transaction, which authorized it, has committed.
		c.then = func() (any, error) {
			var result any
			err := other.Update(c.ctx, func(tx *store.Tx) error {
				// The role authorized against, not one made since under
				// its name.
				now, ok, err := roleIn(tx, in.roleARN)
				if err != nil {
					return err
				}
				if !ok || now.RoleID != role.RoleID {
					return query.AccessDenied(authz.Message(c.caller.ARN, "sts:AssumeRole", in.roleARN,
						policy.Result{Decision: policy.ImplicitDeny, Reasons: []policy.Reason{{Code: policy.ReasonResourcePolicyNoAllow}}}))
				}
				s, packed, err := createRoleSession(tx, &in, role, chained)
				result = assumeRoleResult(s, packed)
				return err
			})
			return result, err
		}
		return nil, nil
	}
	s, packed, err := createRoleSession(c.tx, &in, role, chained)
	if err != nil {
		return nil, err
	}
	return assumeRoleResult(s, packed), nil
}

// assumeRoleResult is AssumeRole's answer.
func assumeRoleResult(s store.Session, packed *int) any {
	return struct {
		Credentials      credentialsShape     `xml:"Credentials"`
		AssumedRoleUser  assumedRoleUserShape `xml:"AssumedRoleUser"`
		PackedPolicySize *int                 `xml:"PackedPolicySize,omitempty"`
		SourceIdentity   string               `xml:"SourceIdentity,omitempty"`
	}{credentialsOf(s), assumedRoleUserOf(s), packed, s.SourceIdentity}
}

// assumedRoleUserShape is STS's AssumedRoleUser.
type assumedRoleUserShape struct {
	AssumedRoleID string `xml:"AssumedRoleId"`
	Arn           string `xml:"Arn"`
}

func assumedRoleUserOf(s store.Session) assumedRoleUserShape {
	return assumedRoleUserShape{AssumedRoleID: s.AssumedRoleID, Arn: s.AssumedRoleARN}
}

// createRoleSession checks the duration against the role and the packed
// size of the session's policies and tags, and issues the session. packed
// is PackedPolicySize, nil when the request passed no policy or tag.
// chained is role chaining: a role session assuming a role, which AWS
// limits to one hour.
func createRoleSession(tx *store.Tx, in *sessionRequest, role store.Role, chained bool) (store.Session, *int, error) {
	seconds := in.seconds
	if seconds == 0 {
		seconds = defaultRoleSessionSeconds
	}
	switch {
	case chained && seconds > maxChainedRoleSessionSeconds:
		return store.Session{}, nil, query.ValidationError("The requested DurationSeconds exceeds the 1 hour session limit for roles assumed by role chaining.")
	case seconds > role.MaxSessionDuration:
		return store.Session{}, nil, query.ValidationError("The requested DurationSeconds exceeds the MaxSessionDuration set for this role.")
	}
	packed, err := in.packedSize()
	if err != nil {
		return store.Session{}, nil, err
	}
	tags, transitive := in.sessionTags()
	s, err := tx.CreateSession(store.Session{
		RoleName: role.Name, RoleSessionName: in.sessionName,
		Policy: in.policy, PolicyARNs: in.policyARNs, Tags: tags, TransitiveTagKeys: transitive, SourceIdentity: in.sourceIdentity,
	}, time.Duration(seconds)*time.Second)
	return s, packed, err
}

// packedSize is the percentage of packedLimit the session policies and tags
// use, or PackedPolicyTooLarge above 100. Inherited transitive tags count
// with the ones passed.
func (in *sessionRequest) packedSize() (*int, error) {
	if in.policy == "" && len(in.policyARNs) == 0 && len(in.tags) == 0 && len(in.inherited) == 0 {
		return nil, nil
	}
	n := 0
	if in.policy != "" {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(in.policy)); err != nil {
			return nil, query.MalformedPolicyDocument(err.Error())
		}
		n += compact.Len()
	}
	for _, arn := range in.policyARNs {
		n += len(arn)
	}
	for _, t := range in.tags {
		n += len(t.Key) + len(t.Value)
	}
	for _, t := range in.inherited {
		n += len(t.Key) + len(t.Value)
	}
	percent := (n*100 + packedLimit - 1) / packedLimit
	if percent > 100 {
		return nil, query.PackedPolicyTooLarge(fmt.Sprintf("Packed size of the session policies and tags consumes %d%% of allotted space: pass a smaller policy, fewer policy ARNs or fewer tags.", percent))
	}
	return &percent, nil
}
