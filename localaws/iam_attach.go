package localaws

import (
	"strings"

	"leash.dev/leash/localaws/internal/store"
)

// attachedPolicyShape is IAM's AttachedPolicy.
type attachedPolicyShape struct {
	PolicyName string `xml:"PolicyName"`
	PolicyArn  string `xml:"PolicyArn"`
}

// listAttached pages the managed policies attached to a user or role whose
// path starts with PathPrefix, in the order they were attached.
func listAttached(c *call, perms store.Permissions) (any, error) {
	prefix, err := c.pathPrefix(store.PolicyPathPrefix)
	if err != nil {
		return nil, err
	}
	var attached []attachedPolicyShape
	for _, arn := range perms.AttachedPolicies {
		_, path, name, _ := store.PolicyARNParts(arn)
		if strings.HasPrefix(path, prefix) {
			attached = append(attached, attachedPolicyShape{PolicyName: name, PolicyArn: arn})
		}
	}
	page, marker, err := paged(c, attached)
	if err != nil {
		return nil, err
	}
	return struct {
		AttachedPolicies []attachedPolicyShape `xml:"AttachedPolicies>member"`
		IsTruncated      bool                  `xml:"IsTruncated"`
		Marker           string                `xml:"Marker,omitempty"`
	}{append([]attachedPolicyShape{}, page...), marker != "", marker}, nil
}

// The operations below change what a principal may do, so each carries
// iam:PermissionsBoundary: the principal's boundary (or, for
// Put*PermissionsBoundary, the boundary being set).
func iamAttachmentOperations(ops map[string]operation) {
	attachedPolicyOperations(ops, userKind)
	attachedPolicyOperations(ops, roleKind)
	ops["PutUserPermissionsBoundary"] = operation{
		target: onUser(requestedBoundary),
		run: func(c *call) (any, error) {
			name, arn, err := c.requiredPair("UserName", "PermissionsBoundary")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.PutUserPermissionsBoundary(name, arn)
			return nil, err
		},
	}
	ops["DeleteUserPermissionsBoundary"] = operation{
		target: onUser(currentBoundary),
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.DeleteUserPermissionsBoundary(name)
			return nil, err
		},
	}
	ops["PutRolePermissionsBoundary"] = operation{
		target: onRole(requestedBoundary),
		run: func(c *call) (any, error) {
			name, arn, err := c.requiredPair("RoleName", "PermissionsBoundary")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.PutRolePermissionsBoundary(name, arn)
			return nil, err
		},
	}
	ops["DeleteRolePermissionsBoundary"] = operation{
		target: onRole(currentBoundary),
		run: func(c *call) (any, error) {
			name, err := c.required("RoleName")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.DeleteRolePermissionsBoundary(name)
			return nil, err
		},
	}
	ops["ListEntitiesForPolicy"] = operation{
		readOnly: true,
		target:   onARN("PolicyArn"),
		run:      listEntitiesForPolicy,
	}
}

// listEntitiesForPolicy lists the users, groups and roles a managed policy
// is attached to, filtered by EntityFilter and PathPrefix, in that order.
func listEntitiesForPolicy(c *call) (any, error) {
	arn, err := c.required("PolicyArn")
	if err != nil {
		return nil, err
	}
	var users, groups, roles bool
	switch c.param("EntityFilter") {
	case "":
		users, groups, roles = true, true, true
	case "User":
		users = true
	case "Role":
		roles = true
	case "Group":
		groups = true
	case "LocalManagedPolicy":
		users = !store.IsAWSManagedPolicy(arn)
		groups, roles = users, users
	case "AWSManagedPolicy":
		users = store.IsAWSManagedPolicy(arn)
		groups, roles = users, users
	default:
		return nil, c.q.Invalid("EntityFilter", "Member must satisfy enum value set: [User, Role, Group, LocalManagedPolicy, AWSManagedPolicy]")
	}
	prefix, err := c.pathPrefix(store.EntityPathPrefix)
	if err != nil {
		return nil, err
	}
	entities, err := c.tx.ListEntitiesForPolicy(arn)
	if err != nil {
		return nil, err
	}
	type entity struct {
		kind string // "user", "group" or "role"
		name string
		id   string
	}
	var all []entity
	if users {
		for _, name := range entities.UserNames {
			u, err := c.tx.GetUser(name)
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(u.Path, prefix) {
				all = append(all, entity{"user", u.Name, u.UserID})
			}
		}
	}
	if groups {
		for _, name := range entities.GroupNames {
			g, err := c.tx.GetGroup(name)
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(g.Path, prefix) {
				all = append(all, entity{"group", g.Name, g.GroupID})
			}
		}
	}
	if roles {
		for _, name := range entities.RoleNames {
			r, err := c.tx.GetRole(name)
			if err != nil {
				return nil, err
			}
			if strings.HasPrefix(r.Path, prefix) {
				all = append(all, entity{"role", r.Name, r.RoleID})
			}
		}
	}
	page, marker, err := paged(c, all)
	if err != nil {
		return nil, err
	}
	type userEntry struct {
		UserName string `xml:"UserName"`
		UserID   string `xml:"UserId"`
	}
	type groupEntry struct {
		GroupName string `xml:"GroupName"`
		GroupID   string `xml:"GroupId"`
	}
	type roleEntry struct {
		RoleName string `xml:"RoleName"`
		RoleID   string `xml:"RoleId"`
	}
	out := struct {
		PolicyGroups []groupEntry `xml:"PolicyGroups>member"`
		PolicyUsers  []userEntry  `xml:"PolicyUsers>member"`
		PolicyRoles  []roleEntry  `xml:"PolicyRoles>member"`
		IsTruncated  bool         `xml:"IsTruncated"`
		Marker       string       `xml:"Marker,omitempty"`
	}{IsTruncated: marker != "", Marker: marker}
	for _, e := range page {
		switch e.kind {
		case "user":
			out.PolicyUsers = append(out.PolicyUsers, userEntry{e.name, e.id})
		case "group":
			out.PolicyGroups = append(out.PolicyGroups, groupEntry{e.name, e.id})
		default:
			out.PolicyRoles = append(out.PolicyRoles, roleEntry{e.name, e.id})
		}
	}
	return out, nil
}

// attachedPolicyOperations adds Attach{Noun}Policy, Detach{Noun}Policy and
// ListAttached{Noun}Policies. A change carries iam:PolicyARN and the
// principal's boundary (a group has none).
func attachedPolicyOperations(ops map[string]operation, k principalKind) {
	change := func(do func(tx *store.Tx, name, arn string) error) operation {
		return operation{
			target: k.on(policyARNKey, currentBoundary),
			run: func(c *call) (any, error) {
				name, arn, err := c.requiredPair(k.nameParam, "PolicyArn")
				if err != nil {
					return nil, err
				}
				return nil, do(c.tx, name, arn)
			},
		}
	}
	ops["Attach"+k.noun+"Policy"] = change(k.attach)
	ops["Detach"+k.noun+"Policy"] = change(k.detach)
	ops["ListAttached"+k.noun+"Policies"] = operation{
		readOnly: true,
		target:   k.on(),
		run: func(c *call) (any, error) {
			perms, err := k.permissions(c)
			if err != nil {
				return nil, err
			}
			return listAttached(c, perms)
		},
	}
}
