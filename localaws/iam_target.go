package localaws

import (
	"strings"

	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// subject is the user, role, policy or provider an IAM operation acts on,
// as the authorizer sees it: the ARN AWS authorizes against and, for users
// and roles that exist, their tags and permissions boundary.
type subject struct {
	arn      string
	tags     store.Tags
	boundary string
}

// keysFunc computes an action's own condition keys from the request and
// the subject, such as iam:PolicyARN from the PolicyArn parameter.
type keysFunc func(c *call, s subject) (map[string][]string, error)

// target is what the authorizer is asked about s: its ARN, its tags as
// aws:ResourceTag keys (IAM provides them for users and roles), and the
// keys each of extra adds.
func (s subject) target(c *call, extra []keysFunc) (target, error) {
	keys := map[string][]string{}
	addTagKeys(keys, "aws:ResourceTag/", s.tags)
	for _, f := range extra {
		more, err := f(c, s)
		if err != nil {
			return target{}, err
		}
		for k, v := range more {
			keys[k] = v
		}
	}
	t := target{resource: s.arn, keys: keys}
	if store.IsAWSManagedPolicy(s.arn) {
		// AWS managed policies can be read by every account, as its own.
		t.resourceAccount = c.caller.Account
	}
	return t, nil
}

// userSubject is the user of that name, or a user by that name at the root
// path when there is none (the operation then fails with NoSuchEntity, if
// the caller may learn that).
func (c *call) userSubject(name string) subject {
	u, err := c.tx.GetUser(name)
	if err != nil {
		return subject{arn: c.arn("user/" + name)}
	}
	return subject{arn: u.ARN, tags: u.Tags, boundary: u.PermissionsBoundary}
}

// roleSubject is the role of that name, or a role by that name at the root
// path when there is none.
func (c *call) roleSubject(name string) subject {
	r, err := c.tx.GetRole(name)
	if err != nil {
		return subject{arn: c.arn("role/" + name)}
	}
	return subject{arn: r.ARN, tags: r.Tags, boundary: r.PermissionsBoundary}
}

// onUser authorizes against the user named by the required UserName.
func onUser(extra ...keysFunc) func(*call) (target, error) {
	return func(c *call) (target, error) {
		name, err := c.required("UserName")
		if err != nil {
			return target{}, err
		}
		return c.userSubject(name).target(c, extra)
	}
}

// onUserOrCaller authorizes against the user named by UserName, or the
// calling user when the parameter is absent, as IAM does for GetUser,
// access keys and login profiles.
func onUserOrCaller(extra ...keysFunc) func(*call) (target, error) {
	return func(c *call) (target, error) {
		name, err := c.userNameParam()
		if err != nil {
			return target{}, err
		}
		return c.userSubject(name).target(c, extra)
	}
}

// userNameParam is the UserName parameter, or the calling user's own name.
func (c *call) userNameParam() (string, error) {
	if name := c.param("UserName"); name != "" {
		return name, nil
	}
	if c.userName == "" {
		return "", query.ValidationError("Must specify userName when calling with non-User credentials")
	}
	return c.userName, nil
}

// onRole authorizes against the role named by the required RoleName.
func onRole(extra ...keysFunc) func(*call) (target, error) {
	return func(c *call) (target, error) {
		name, err := c.required("RoleName")
		if err != nil {
			return target{}, err
		}
		return c.roleSubject(name).target(c, extra)
	}
}

// onAnyResource authorizes against "*", for the actions without
// resource-level permissions: only a statement with Resource "*" grants
// them.
func onAnyResource(*call) (target, error) { return target{resource: "*"}, nil }

// onARN authorizes against the ARN in a required parameter, such as a
// managed policy's PolicyArn.
func onARN(param string, extra ...keysFunc) func(*call) (target, error) {
	return func(c *call) (target, error) {
		arn, err := c.required(param)
		if err != nil {
			return target{}, err
		}
		return subject{arn: arn}.target(c, extra)
	}
}

// currentBoundary is iam:PermissionsBoundary: the subject's boundary, for
// the actions that change what a bounded principal may do, so that a
// policy can confine an administrator to principals with a given boundary.
func currentBoundary(_ *call, s subject) (map[string][]string, error) {
	if s.boundary == "" {
		return nil, nil
	}
	return map[string][]string{"iam:PermissionsBoundary": {s.boundary}}, nil
}

// requestedBoundary is iam:PermissionsBoundary: the boundary the request
// sets (CreateUser, CreateRole, Put*PermissionsBoundary).
func requestedBoundary(c *call, _ subject) (map[string][]string, error) {
	b := c.param("PermissionsBoundary")
	if b == "" {
		return nil, nil
	}
	return map[string][]string{"iam:PermissionsBoundary": {b}}, nil
}

// policyARNKey is iam:PolicyARN: the managed policy being attached or
// detached.
func policyARNKey(c *call, _ subject) (map[string][]string, error) {
	arn, err := c.required("PolicyArn")
	if err != nil {
		return nil, err
	}
	return map[string][]string{"iam:PolicyARN": {arn}}, nil
}

// requestTags are aws:RequestTag/KEY and aws:TagKeys of an action that
// tags (Create* with Tags, Tag*).
func requestTags(c *call, _ subject) (map[string][]string, error) {
	tags, err := c.tags("Tags")
	if err != nil {
		return nil, err
	}
	return tagKeys(tags), nil
}

// removedTagKeys is aws:TagKeys of an Untag* action: the keys it removes.
func removedTagKeys(c *call, _ subject) (map[string][]string, error) {
	keys, err := c.requiredList("TagKeys")
	if err != nil {
		return nil, err
	}
	return map[string][]string{"aws:TagKeys": keys}, nil
}

// tagKeys are the request-tag condition keys of tags.
func tagKeys(tags []query.Tag) map[string][]string {
	if len(tags) == 0 {
		return nil
	}
	keys := map[string][]string{}
	addTagKeys(keys, "aws:RequestTag/", storeTags(tags))
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Key
	}
	keys["aws:TagKeys"] = names
	return keys
}

// addTagKeys adds prefix+KEY for each tag, such as aws:ResourceTag/team.
// Condition key names compare without case, but the tag keys of a policy,
// instance profile or OIDC provider do not: such an entity may hold both
// Team and team. Both would be one condition key, so the first of them (in
// the order the entity or request holds them) gives its value, the same
// one on every request, rather than whichever a map yields last.
func addTagKeys(keys map[string][]string, prefix string, tags store.Tags) {
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		folded := strings.ToLower(t.Key)
		if seen[folded] {
			continue
		}
		seen[folded] = true
		keys[prefix+t.Key] = []string{t.Value}
	}
}
