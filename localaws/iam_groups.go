package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// groupShape is IAM's Group in results.
type groupShape struct {
	Path       string          `xml:"Path"`
	GroupName  string          `xml:"GroupName"`
	GroupID    string          `xml:"GroupId"`
	Arn        string          `xml:"Arn"`
	CreateDate query.Timestamp `xml:"CreateDate"`
}

func groupOf(g store.Group) groupShape {
	return groupShape{Path: g.Path, GroupName: g.Name, GroupID: g.GroupID, Arn: g.ARN, CreateDate: query.Timestamp(g.CreateDate)}
}

// groupsResult is the result of ListGroups and ListGroupsForUser.
type groupsResult struct {
	Groups      []groupShape `xml:"Groups>member"`
	IsTruncated bool         `xml:"IsTruncated"`
	Marker      string       `xml:"Marker,omitempty"`
}

// groupSubject is the group of that name, or a group by that name at the
// root path when there is none. Groups have no tags and no boundary.
func (c *call) groupSubject(name string) subject {
	g, err := c.tx.GetGroup(name)
	if err != nil {
		return subject{arn: c.arn("group/" + name)}
	}
	return subject{arn: g.ARN}
}

// onGroup authorizes against the group named by the required GroupName.
func onGroup(extra ...keysFunc) func(*call) (target, error) {
	return func(c *call) (target, error) {
		name, err := c.required("GroupName")
		if err != nil {
			return target{}, err
		}
		return c.groupSubject(name).target(c, extra)
	}
}

// authorizeNewGroup asks for iam:UpdateGroup on the group as it will be
// named, as IAM does besides asking for it on the group as it is: a caller
// allowed to change only some groups cannot rename one out of its reach.
func authorizeNewGroup(c *call, name, newName, newPath string) error {
	if c.accessKeyID == "" || (newName == "" && newPath == "") {
		return nil
	}
	g, err := c.tx.GetGroup(name)
	if err != nil {
		return err // UpdateGroup says NoSuchEntity
	}
	if newName == "" {
		newName = g.Name
	}
	if newPath == "" {
		newPath = g.Path
	}
	t, err := subject{arn: c.arn("group/" + pathName(newPath, newName))}.target(c, nil)
	if err != nil {
		return err
	}
	return c.srv.authorizeAction(c, "iam:UpdateGroup", t)
}

// requiredGroup is the group named by the required GroupName.
func (c *call) requiredGroup() (store.Group, error) {
	name, err := c.required("GroupName")
	if err != nil {
		return store.Group{}, err
	}
	return c.tx.GetGroup(name)
}

var groupKind = principalKind{
	noun: "Group", nameParam: "GroupName", on: onGroup,
	get: func(tx *store.Tx, name string) (store.Tags, store.Permissions, error) {
		g, err := tx.GetGroup(name)
		return nil, g.Permissions, err
	},
	put: func(tx *store.Tx, name, policyName, doc string) error {
		_, err := tx.PutGroupPolicy(name, policyName, doc)
		return err
	},
	delete: func(tx *store.Tx, name, policyName string) error {
		_, err := tx.DeleteGroupPolicy(name, policyName)
		return err
	},
	attach: func(tx *store.Tx, name, arn string) error {
		_, err := tx.AttachGroupPolicy(name, arn)
		return err
	},
	detach: func(tx *store.Tx, name, arn string) error {
		_, err := tx.DetachGroupPolicy(name, arn)
		return err
	},
}

// iamGroupOperations adds the group operations: the groups themselves,
// their members, and their inline and attached policies.
func iamGroupOperations(ops map[string]operation) {
	ops["CreateGroup"] = operation{
		target: func(c *call) (target, error) {
			name, err := c.required("GroupName")
			if err != nil {
				return target{}, err
			}
			return subject{arn: c.arn("group/" + pathName(c.param("Path"), name))}.target(c, nil)
		},
		run: func(c *call) (any, error) {
			name, err := c.required("GroupName")
			if err != nil {
				return nil, err
			}
			g, err := c.tx.CreateGroup(store.Group{Name: name, Path: c.param("Path")})
			if err != nil {
				return nil, err
			}
			return struct {
				Group groupShape `xml:"Group"`
			}{groupOf(g)}, nil
		},
	}
	ops["GetGroup"] = operation{
		readOnly: true,
		target:   onGroup(),
		run: func(c *call) (any, error) {
			g, err := c.requiredGroup()
			if err != nil {
				return nil, err
			}
			users, err := c.tx.GroupUsers(g.Name)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, users)
			if err != nil {
				return nil, err
			}
			out := struct {
				Group       groupShape  `xml:"Group"`
				Users       []userShape `xml:"Users>member"`
				IsTruncated bool        `xml:"IsTruncated"`
				Marker      string      `xml:"Marker,omitempty"`
			}{Group: groupOf(g), Users: []userShape{}, IsTruncated: marker != "", Marker: marker}
			for _, u := range page {
				out.Users = append(out.Users, userOf(u, false))
			}
			return out, nil
		},
	}
	ops["ListGroups"] = operation{
		readOnly: true,
		target:   func(c *call) (target, error) { return target{resource: c.arn("group/")}, nil },
		run: func(c *call) (any, error) {
			page, err := pageOf(c)
			if err != nil {
				return nil, err
			}
			prefix, err := c.pathPrefix(store.AnyPathPrefix)
			if err != nil {
				return nil, err
			}
			l, err := c.tx.ListGroups(prefix, page)
			if err != nil {
				return nil, err
			}
			out := groupsResult{Groups: []groupShape{}, IsTruncated: l.Marker != "", Marker: l.Marker}
			for _, g := range l.Items {
				out.Groups = append(out.Groups, groupOf(g))
			}
			return out, nil
		},
	}
	ops["UpdateGroup"] = operation{
		target: onGroup(),
		run: func(c *call) (any, error) {
			name, err := c.required("GroupName")
			if err != nil {
				return nil, err
			}
			newName, newPath := c.param("NewGroupName"), c.param("NewPath")
			if err := authorizeNewGroup(c, name, newName, newPath); err != nil {
				return nil, err
			}
			_, err = c.tx.UpdateGroup(name, newName, newPath)
			return nil, err
		},
	}
	ops["DeleteGroup"] = operation{
		target: onGroup(),
		run: func(c *call) (any, error) {
			name, err := c.required("GroupName")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteGroup(name)
		},
	}
	ops["AddUserToGroup"] = operation{
		target: onGroup(),
		run: func(c *call) (any, error) {
			group, user, err := c.requiredPair("GroupName", "UserName")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.AddUserToGroup(group, user)
		},
	}
	ops["RemoveUserFromGroup"] = operation{
		target: onGroup(),
		run: func(c *call) (any, error) {
			group, user, err := c.requiredPair("GroupName", "UserName")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.RemoveUserFromGroup(group, user)
		},
	}
	ops["ListGroupsForUser"] = operation{
		readOnly: true,
		target:   onUser(),
		run: func(c *call) (any, error) {
			u, err := c.requiredUser()
			if err != nil {
				return nil, err
			}
			groups, err := c.tx.UserGroups(u.Name)
			if err != nil {
				return nil, err
			}
			page, marker, err := paged(c, groups)
			if err != nil {
				return nil, err
			}
			out := groupsResult{Groups: []groupShape{}, IsTruncated: marker != "", Marker: marker}
			for _, g := range page {
				out.Groups = append(out.Groups, groupOf(g))
			}
			return out, nil
		},
	}
	ops["GetGroupPolicy"] = operation{
		readOnly: true,
		target:   onGroup(),
		run: func(c *call) (any, error) {
			g, err := c.requiredGroup()
			if err != nil {
				return nil, err
			}
			policyName, err := c.required("PolicyName")
			if err != nil {
				return nil, err
			}
			p, err := c.tx.GetGroupPolicy(g.Name, policyName)
			if err != nil {
				return nil, err
			}
			return struct {
				GroupName      string `xml:"GroupName"`
				PolicyName     string `xml:"PolicyName"`
				PolicyDocument string `xml:"PolicyDocument"`
			}{g.Name, p.Name, query.PolicyDocument(p.Document)}, nil
		},
	}
	inlinePolicyOperations(ops, groupKind)
	attachedPolicyOperations(ops, groupKind)
}
