package localaws

import (
	"leash.dev/leash/localaws/internal/query"
	"leash.dev/leash/localaws/internal/store"
)

// userShape is IAM's User in results.
type userShape struct {
	Path                string                        `xml:"Path"`
	UserName            string                        `xml:"UserName"`
	UserID              string                        `xml:"UserId"`
	Arn                 string                        `xml:"Arn"`
	CreateDate          query.Timestamp               `xml:"CreateDate"`
	PermissionsBoundary *boundaryShape                `xml:"PermissionsBoundary,omitempty"`
	Tags                query.OptionalList[query.Tag] `xml:"Tags"`
}

// userOf is a user as results show it; ListUsers leaves out the tags and
// the boundary, as IAM does.
func userOf(u store.User, full bool) userShape {
	s := userShape{Path: u.Path, UserName: u.Name, UserID: u.UserID, Arn: u.ARN, CreateDate: query.Timestamp(u.CreateDate)}
	if full {
		s.PermissionsBoundary = boundaryOf(u.PermissionsBoundary)
		s.Tags = tagsOf(u.Tags)
	}
	return s
}

type userResult struct {
	User userShape `xml:"User"`
}

func iamUserOperations(ops map[string]operation) {
	ops["CreateUser"] = operation{
		target: func(c *call) (target, error) {
			name, err := c.required("UserName")
			if err != nil {
				return target{}, err
			}
			s := subject{arn: c.arn("user/" + pathName(c.param("Path"), name))}
			return s.target(c, []keysFunc{requestTags, requestedBoundary})
		},
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			tags, err := c.tags("Tags")
			if err != nil {
				return nil, err
			}
			u := store.User{Name: name, Path: c.param("Path"), Tags: storeTags(tags)}
			u.PermissionsBoundary = c.param("PermissionsBoundary")
			u, err = c.tx.CreateUser(u)
			if err != nil {
				return nil, err
			}
			return userResult{userOf(u, true)}, nil
		},
	}
	ops["GetUser"] = operation{
		readOnly: true,
		target:   onUserOrCaller(),
		run: func(c *call) (any, error) {
			name, err := c.userNameParam()
			if err != nil {
				return nil, err
			}
			u, err := c.tx.GetUser(name)
			if err != nil {
				return nil, err
			}
			return userResult{userOf(u, true)}, nil
		},
	}
	ops["ListUsers"] = operation{
		readOnly: true,
		target:   func(c *call) (target, error) { return target{resource: c.arn("user/")}, nil },
		run: func(c *call) (any, error) {
			page, err := pageOf(c)
			if err != nil {
				return nil, err
			}
			prefix, err := c.pathPrefix(store.AnyPathPrefix)
			if err != nil {
				return nil, err
			}
			l, err := c.tx.ListUsers(prefix, page)
			if err != nil {
				return nil, err
			}
			out := struct {
				Users       []userShape `xml:"Users>member"`
				IsTruncated bool        `xml:"IsTruncated"`
				Marker      string      `xml:"Marker,omitempty"`
			}{Users: []userShape{}, IsTruncated: l.Marker != "", Marker: l.Marker}
			for _, u := range l.Items {
				out.Users = append(out.Users, userOf(u, false))
			}
			return out, nil
		},
	}
	ops["UpdateUser"] = operation{
		target: onUser(),
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			_, err = c.tx.UpdateUser(name, c.param("NewUserName"), c.param("NewPath"))
			return nil, err
		},
	}
	ops["DeleteUser"] = operation{
		target: onUser(),
		run: func(c *call) (any, error) {
			name, err := c.required("UserName")
			if err != nil {
				return nil, err
			}
			return nil, c.tx.DeleteUser(name)
		},
	}
	tagOperations(ops, userTags)
	inlinePolicyOperations(ops, userKind)
	iamUserPolicyOperations(ops)
}

// requiredUser is the user named by the required UserName.
func (c *call) requiredUser() (store.User, error) {
	name, err := c.required("UserName")
	if err != nil {
		return store.User{}, err
	}
	return c.tx.GetUser(name)
}

// iamUserPolicyOperations adds GetUserPolicy, whose result names the user.
func iamUserPolicyOperations(ops map[string]operation) {
	ops["GetUserPolicy"] = operation{
		readOnly: true,
		target:   onUser(),
		run: func(c *call) (any, error) {
			u, err := c.requiredUser()
			if err != nil {
				return nil, err
			}
			policyName, err := c.required("PolicyName")
			if err != nil {
				return nil, err
			}
			p, err := c.tx.GetUserPolicy(u.Name, policyName)
			if err != nil {
				return nil, err
			}
			return struct {
				UserName       string `xml:"UserName"`
				PolicyName     string `xml:"PolicyName"`
				PolicyDocument string `xml:"PolicyDocument"`
			}{u.Name, p.Name, query.PolicyDocument(p.Document)}, nil
		},
	}
}
